// `draftsmith score` with sacreBLEU's options: -m bleu chrf, several --ref and --hyp, signatures,
// --paired-bs / --paired-ar, --sentence-level, --confidence, --json / --csv, and clear refusals.
// The numbers are sacreBLEU 2.6.0's (test/fixtures/sacrebleu-options.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fixture, repoRoot, tempDir } from './helpers';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const ref = JSON.parse(readFileSync(fixture('sacrebleu-options.json'), 'utf8'));
const dir = tempDir('sacre');
const file = (name: string, lines: string[]) => {
  const p = path.join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};
const { systems, refs } = ref.significanceData as { systems: Record<string, string[]>; refs: string[][] };
const R1 = file('ref1.txt', refs[0]);
const R2 = file('ref2.txt', refs[1]);
const A = file('a.txt', systems.A);
const B = file('b.txt', systems.B);
const C = file('c.txt', systems.C);
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, 'score', ...args, '--quiet'], { encoding: 'utf8' });

test("one system, -m bleu chrf with options: sacreBLEU's lines with signatures and numbers", () => {
  const r = run(
    '--ref',
    R1,
    '--ref',
    R2,
    '--hyp',
    A,
    '-m',
    'bleu',
    'chrf',
    '--tokenize',
    'intl',
    '--smooth-method',
    'floor',
    '--chrf-word-order',
    '2',
    '--json',
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const bleu = out.metrics.find((m: { metric: string }) => m.metric === 'BLEU');
  assert.equal(bleu.signature, 'nrefs:2|case:mixed|eff:no|tok:intl|smooth:floor[0.10]|version:2.6.0');
  const expected = ref.significance.find((t: { test: string; seed: number }) => t.test === 'bs' && t.seed === 7)
    .systems[0].score; // same options, same data
  assert.ok(Math.abs(bleu.systems[0].score - expected) < 1e-9);
  assert.equal(out.metrics[1].metric, 'chrF2++');
  const text = run('--ref', R1, '--hyp', A, '-m', 'bleu', '--width', '1');
  assert.match(
    text.stdout,
    /^BLEU\|nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:2\.6\.0 = 47\.2 [\d./]+ \(BP = /,
  );
});

test("--paired-bs: each system's score, μ ± 95 % CI and p-value as sacreBLEU, in text, JSON and CSV", () => {
  const expected = ref.significance.find(
    (t: { test: string; samples: number; metric: string; seed: number }) =>
      t.test === 'bs' && t.samples === 1000 && t.metric === 'BLEU' && t.seed === 12345,
  );
  const r = run('--ref', R1, '--hyp', A, '--hyp', B, '--hyp', C, '--paired-bs', '--json');
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(r.stdout).metrics[0];
  assert.equal(m.signature, expected.signature);
  m.systems.forEach((s: { score: number; mean: number; ci: number; pValue?: number }, i: number) => {
    assert.ok(Math.abs(s.ci - expected.systems[i].ci) < 1e-9);
    assert.equal(s.pValue, expected.systems[i].pValue ?? undefined);
  });
  assert.match(m.systems[0].name, /^Baseline: /);
  const text = run('--ref', R1, '--hyp', A, '--hyp', B, '--paired-bs', '--paired-bs-n', '200');
  // sacreBLEU's multi-system table: score (μ ± 95% CI) per system, the p-value under it, the signatures.
  assert.match(text.stdout, / - BLEU +nrefs:1\|bs:200\|seed:12345\|case:mixed/);
  assert.match(text.stdout, /\| +System \| +BLEU \(μ ± 95% CI\) \|/);
  assert.match(text.stdout, /\| +\| +\(p = 0\.\d{4}\)\*? \|/);
  const csv = run('--ref', R1, '--hyp', A, '--hyp', B, '--paired-ar', '--paired-ar-n', '500', '--seed', '3', '--csv')
    .stdout.trim()
    .split('\n');
  assert.equal(csv[0], 'metric,system,score,mean,ci,p_value,signature');
  assert.equal(csv.length, 3);
  assert.match(csv[2], /^BLEU,.*b\.txt,[\d.]+,,,[\d.e-]+,nrefs:1\|ar:500\|seed:3\|/);
});

test('--sentence-level: one line per segment with effective order on; --confidence: μ ± CI', () => {
  const r = run('--ref', R1, '--hyp', A, '--sentence-level', '--limit', '3');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0], /^BLEU\|nrefs:1\|case:mixed\|eff:yes\|tok:13a\|smooth:exp\|version:2\.6\.0 = /);
  const c = run('--ref', R1, '--hyp', B, '--confidence', '-m', 'chrf');
  const e = ref.confidence.find((x: { metric: string }) => x.metric === 'chrF2');
  assert.ok(
    c.stdout.includes(`chrF2|${e.signature} = ${e.score.toFixed(2)} (μ = ${e.mean.toFixed(2)} ± ${e.ci.toFixed(2)})`),
    c.stdout,
  );
});

test('the full table carries the BLEU and ROUGE signatures and takes the BLEU options', () => {
  const r = run('--ref', R1, '--hyp', A, '--limit', '20', '--json', '--tokenize', 'char');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.signatures.BLEU, 'nrefs:1|case:mixed|eff:no|tok:char|smooth:exp|version:2.6.0');
  assert.match(
    out.signatures.ROUGE,
    /^nrefs:1\|agg:mean\|tok:rouge-score\|stem:no\|split:nlp\|w:1\.2\|version:rouge-score-0\.1\.2$/,
  );
  assert.ok(out.rouge.rouge1.f1 > 0);
});

test('a smoothing value applies to floor and add-k; exp ignores it, as sacreBLEU does, and the CLI says so', () => {
  for (const mode of [['-m', 'bleu'], []]) {
    const plain = run('--ref', R1, '--hyp', A, '--limit', '50', '--json', ...mode);
    const ignored = run('--ref', R1, '--hyp', A, '--limit', '50', '--json', '--smooth-value', '0.2', ...mode);
    assert.equal(ignored.status, 0, ignored.stderr);
    assert.equal(ignored.stdout, plain.stdout, `${mode.join(' ') || 'the full table'}: the same scores and signature`);
    assert.match(ignored.stderr, /--smooth-value applies to --smooth-method floor or add-k; exp ignores it/);
  }
  // No 4-gram in common: floor smoothing gives that order ε matches.
  const [ref, hyp] = [
    file('floor-ref.txt', ['the cat sat on the mat']),
    file('floor-hyp.txt', ['the cat sat at the mat']),
  ];
  const floor = (value: string[]) =>
    JSON.parse(run('--ref', ref, '--hyp', hyp, '--json', '--smooth-method', 'floor', ...value).stdout);
  const [byDefault, explicit, other] = [floor([]), floor(['--smooth-value', '0.1']), floor(['--smooth-value', '0.5'])];
  assert.deepEqual(explicit, byDefault, "floor's default ε is 0.1");
  assert.notEqual(other.bleu.score, byDefault.bleu.score);
  assert.match(other.signatures.BLEU, /\|smooth:floor\[0\.50\]\|/);
});

test('bad input gets a clear message: line counts, unknown tokenizer, smoothing, metric, exclusive tests', () => {
  const short = file('short.txt', systems.B.slice(0, 10));
  const cases: [string[], RegExp][] = [
    [
      ['--ref', R1, '--hyp', A, '--hyp', short, '-m', 'bleu'],
      /same number of segments[\s\S]*short\.txt \(--hyp\): 10[\s\S]*ref1\.txt \(--ref\): 1000/,
    ],
    [
      ['--ref', R1, '--hyp', A, '--tokenize', 'spm', '-m', 'bleu'],
      /--tokenize must be one of none, zh, 13a, intl, char, not "spm"/,
    ],
    [['--ref', R1, '--hyp', A, '--smooth-method', 'laplace'], /--smooth-method must be one of none, floor, add-k, exp/],
    [['--ref', R1, '--hyp', A, '-m', 'meteor'], /-m\/--metrics takes bleu, chrf, ter, rouge/],
    [
      ['--ref', R1, '--hyp', A, '--hyp', B, '--paired-bs', '--paired-ar'],
      /^draftsmith: --paired-bs and --paired-ar cannot go together: give one of them$/m,
    ],
    [['--ref', R1, '--hyp', A, '--paired-bs'], /give the baseline and at least one other system/],
    [['--ref', R1, '--hyp', A, '--max-ngram-order', '0', '-m', 'bleu'], /--max-ngram-order must be a whole number ≥ 1/],
    [['--ref', R1, '--hyp', A, '-m', 'bleu', 'chrf', '--sentence-level'], /only one metric/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    assert.ok(r.status === 1 || r.status === 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
