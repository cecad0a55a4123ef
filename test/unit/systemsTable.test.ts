// Several systems against one baseline: `draftsmith score --hyp BASE --hyp S1 … --paired-bs|--paired-ar`
// prints sacreBLEU 2.6.0's multi-system table and carries it in --json (test/fixtures/sacrebleu-systems.json:
// sacreBLEU's own command-line output for five systems and a baseline, BLEU, chrF and TER, written by
// test/fixtures/generators/sacrebleu_systems.py); and the drill-down sorts segments by their drop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compareSystems } from '../../extension/engine/eval/systemsComparison';
import { drillDown, type SystemsTable } from '../../extension/engine/eval/systemsTable';
import { sentenceBleu } from '../../extension/engine/metrics/bleu';
import { fixture, repoRoot, tempDir } from './helpers';

type SacreCell = { score: number; p_value: number | null; mean: number | null; ci: number | null };
const ref: {
  refs: string[];
  systems: string[][];
  pairedArJson: ({ system: string } & Record<string, SacreCell>)[];
  pairedBsText: string;
} = JSON.parse(readFileSync(fixture('sacrebleu-systems.json'), 'utf8'));

const dir = tempDir('systems');
writeFileSync(path.join(dir, 'ref.txt'), ref.refs.join('\n') + '\n');
const sysFiles = ref.systems.map((lines, k) => {
  writeFileSync(path.join(dir, `sys${k}.txt`), lines.join('\n') + '\n');
  return `sys${k}.txt`;
});
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], {
    encoding: 'utf8',
    cwd: dir,
  });
const systemsArgs = ['--ref', 'ref.txt', ...sysFiles.flatMap((f) => ['--hyp', f]), '-m', 'bleu', 'chrf', 'ter'];

test("--paired-ar --json: the table is sacreBLEU's -f json for six systems, value for value (BLEU, chrF2, TER)", () => {
  const r = cli(...systemsArgs, '--paired-ar', '--json');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  // p-values exactly; scores to 1e-12 relative: corpus BLEU from summed statistics can differ from
  // sacreBLEU's in the last bit (as in significance.test.ts), chrF and TER are equal.
  const table = out.table as typeof ref.pairedArJson;
  assert.deepEqual(
    table.map((row) => Object.keys(row)),
    ref.pairedArJson.map((row) => Object.keys(row)),
  );
  table.forEach((row, i) => {
    const e = ref.pairedArJson[i];
    assert.equal(row.system, e.system);
    for (const m of ['BLEU', 'chrF2', 'TER']) {
      assert.equal(row[m].p_value, e[m].p_value, `${e.system} ${m} p`);
      assert.equal(row[m].mean, null);
      assert.equal(row[m].ci, null);
      const tol = m === 'BLEU' ? 1e-12 * e[m].score : 0;
      assert.ok(Math.abs(row[m].score - e[m].score) <= tol, `${e.system} ${m} ${row[m].score} vs ${e[m].score}`);
    }
  });
  const t: SystemsTable = out.systems;
  assert.deepEqual(
    t.metrics.map((m) => [m.name, m.better]),
    [
      ['BLEU', 'higher'],
      ['chrF2', 'higher'],
      ['TER', 'lower'],
    ],
  );
  assert.equal(t.systems.length, 6);
  assert.ok(t.systems[0].baseline && t.systems[0].name === 'Baseline: sys0.txt');
});

/** sacreBLEU's fancy_grid table as [system, cell lines…] rows: each cell's score line and p line. */
function sacreRows(text: string): string[][] {
  const lines = text.split('\n').filter((l) => l.startsWith('│'));
  const cells = lines.map((l) =>
    l
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim()),
  );
  const out: string[][] = [];
  for (const c of cells.slice(1)) {
    if (c[0] === '') out[out.length - 1].push(...c.slice(1));
    else out.push(c);
  }
  return out;
}

test("--paired-bs: every score, μ ± 95 % CI and p-value cell is sacreBLEU's text table's, at its width", () => {
  const r = cli(...systemsArgs, '--paired-bs', '--width', '1');
  assert.equal(r.status, 0, r.stderr);
  const expected = sacreRows(ref.pairedBsText);
  assert.equal(expected.length, 6);
  // Ours: the same layout as a Markdown table: a row per system, then a row of p-values.
  const rows = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('|') && !l.startsWith('|-'))
    .slice(1)
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const ours: string[][] = [];
  for (const c of rows) {
    if (c[0] === '') ours[ours.length - 1].push(...c.slice(1));
    else ours.push(c);
  }
  // sacreBLEU interleaves each metric's score and p lines; ours lists the scores, then the p-values.
  const sacreSorted = expected.map((row) => {
    if (row.length === 4) return row;
    const scores = [1, 2, 3].map((k) => row[k]);
    return [row[0], ...scores, ...row.slice(4)];
  });
  assert.deepEqual(ours, sacreSorted);
  assert.match(r.stdout, /BLEU \(μ ± 95% CI\) \| +chrF2 \(μ ± 95% CI\) \| +TER \(μ ± 95% CI\)/);
  assert.match(r.stdout, /Lower is better for TER/);
  assert.match(r.stdout, / - TER +nrefs:1\|bs:1000\|seed:12345\|case:lc\|tok:tercom/);
});

test('drill-down: segments sorted by the largest drop against the baseline, in the metric’s direction', () => {
  assert.deepEqual(
    drillDown([50, 20, 80], [10, 30, 80]).map((d) => [d.index, d.drop]),
    [
      [0, 40],
      [2, 0],
      [1, -10],
    ],
  );
  // TER: a higher score is the loss.
  assert.deepEqual(
    drillDown([10, 40], [30, 20], 'lower').map((d) => [d.index, d.drop]),
    [
      [0, 20],
      [1, -20],
    ],
  );
});

test("--worst N: each system's N worst segments per metric with their texts; sentence BLEU as --sentence-level", () => {
  const r = cli(
    ...systemsArgs.slice(0, 6),
    '--hyp',
    'sys3.txt',
    '-m',
    'bleu',
    'ter',
    '--paired-bs',
    '--paired-bs-n',
    '100',
    '--worst',
    '3',
    '--json',
  );
  assert.equal(r.status, 0, r.stderr);
  const worst = JSON.parse(r.stdout).worst as {
    system: string;
    metric: string;
    segments: { index: number; baseline: number; system: number; drop: number; hypothesis: string }[];
  }[];
  assert.deepEqual(
    worst.map((w) => [w.system, w.metric]),
    [
      ['sys1.txt', 'BLEU'],
      ['sys1.txt', 'TER'],
      ['sys3.txt', 'BLEU'],
      ['sys3.txt', 'TER'],
    ],
  );
  const bleu3 = worst[2].segments;
  assert.equal(bleu3.length, 3);
  for (const d of bleu3) {
    assert.equal(d.hypothesis, ref.systems[3][d.index]);
    assert.equal(d.system, sentenceBleu(ref.systems[3][d.index], [ref.refs[d.index]]).score);
    assert.equal(d.baseline, sentenceBleu(ref.systems[0][d.index], [ref.refs[d.index]]).score);
  }
  // The largest drop of all: no segment loses more.
  const drops = ref.systems[3].map(
    (h, i) => sentenceBleu(ref.systems[0][i], [ref.refs[i]]).score - sentenceBleu(h, [ref.refs[i]]).score,
  );
  assert.equal(bleu3[0].drop, Math.max(...drops));
  assert.ok(worst[3].segments.every((d) => d.drop === d.system - d.baseline));
  assert.match(cli('--ref', 'ref.txt', '--hyp', 'sys0.txt', '--worst', '3').stderr, /add --paired-bs or --paired-ar/);
});

test('--report FILE.md|FILE.html: tables, inline SVG charts, worst segments, signatures, the command line and versions; the same input gives the same bytes but for the date', () => {
  const args = [...systemsArgs.slice(0, 8), '-m', 'bleu', 'ter', '--paired-bs', '--paired-bs-n', '100'];
  const write = (file: string, epoch: string) => {
    const r = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--report', file, '--quiet'],
      { encoding: 'utf8', cwd: dir, env: { ...process.env, SOURCE_DATE_EPOCH: epoch } },
    );
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(path.join(dir, file), 'utf8');
  };
  for (const ext of ['md', 'html']) {
    // The same file name each time: the command line in the report names it.
    const a = write(`r.${ext}`, '1700000000');
    const b = write(`r.${ext}`, '1800000000');
    const again = write(`r.${ext}`, '1700000000');
    assert.equal(again, a, `${ext}: the same input and date give the same bytes`);
    const dateless = (s: string) => s.replace(/20\d\d-\d\d-\d\dT[\d:.]+Z/g, 'DATE');
    assert.notEqual(a, b);
    assert.equal(dateless(a), dateless(b), `${ext}: only the date differs`);
    assert.ok(a.includes('2023-11-14T22:13:20.000Z'));
    for (const needle of [
      'Baseline: sys0.txt',
      'sys2.txt',
      'BLEU (μ ± 95% CI)',
      'TER (μ ± 95% CI)',
      'nrefs:1|bs:100|seed:12345|case:lc|tok:tercom',
      'sacreBLEU',
      '2.6.0',
      '--paired-bs-n 100',
    ])
      assert.ok(a.includes(ext === 'html' ? needle.replace(/'/g, '&#39;') : needle), `${ext}: no ${needle}`);
    // GitHub shows no data: images: the Markdown report links SVG files written beside it.
    assert.match(a, ext === 'html' ? /<svg [^>]*role="img"/ : /!\[BLEU\]\(r\.chart-1\.svg\)/);
    if (ext === 'md') assert.match(readFileSync(path.join(dir, 'r.chart-1.svg'), 'utf8'), /^<svg /);
    assert.match(a, /Where each draft loses most/);
  }
  const html = write('x.html', '1700000000');
  assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/, 'no script, nothing loaded from outside');
  assert.match(
    cli('--ref', 'ref.txt', '--hyp', 'sys0.txt', '--hyp', 'sys1.txt', '--paired-bs', '--report', 'r.pdf').stderr,
    /FILE\.html or FILE\.md/,
  );
});

test("the editor's comparison (engine 'systems' op) gives the CLI's table for the same lines and Score Draft's metrics", () => {
  const request = {
    op: 'systems' as const,
    systems: ref.systems.slice(0, 5).map((segments, k) => ({ name: `sys${k}.txt`, segments })),
    references: [ref.refs],
    referenceName: 'ref.txt',
    options: { ter: {} },
    samples: 200,
    worst: 3,
  };
  const r = compareSystems(request);
  const cliArgs = ['--ref', 'ref.txt', ...sysFiles.slice(0, 5).flatMap((f) => ['--hyp', f])];
  const out = JSON.parse(
    cli(
      ...cliArgs,
      '-m',
      'bleu',
      'ter',
      'rouge1',
      'rougeL',
      '--paired-bs',
      '--paired-bs-n',
      '200',
      '--worst',
      '3',
      '--json',
    ).stdout,
  );
  // Score Draft's order: BLEU, TER, ROUGE-1, ROUGE-L (the metric list's), the CLI's as -m names them.
  assert.deepEqual(
    r.table.metrics.map((m) => m.name),
    ['BLEU', 'TER', 'ROUGE-1', 'ROUGE-L'],
  );
  assert.deepEqual(r.table, { ...out.systems, metrics: r.table.metrics });
  assert.deepEqual(
    r.table.metrics.map((m) => m.signature.replace(/split:\w+/, '')),
    out.systems.metrics.map((m: { signature: string }) => m.signature.replace(/split:\w+/, '')),
  );
  assert.deepEqual(r.worst, out.worst);
  assert.throws(
    () => compareSystems({ ...request, references: [ref.refs.slice(1)] }),
    /same number of segments.*ref\.txt: 199/,
  );
});
