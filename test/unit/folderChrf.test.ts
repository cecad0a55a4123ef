// `draftsmith score --hyp DIR --ref DIR -m chrf`: a folder's table gets a chrF (or chrF++)
// column whose corpus figure is sacreBLEU's corpus chrF over the drafts, as `-m chrf` on segment files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const dir = tempDir('folder-chrf');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], {
    encoding: 'utf8',
  });
const DRAFTS = ['The cat sat on the mat.', 'A dog barked at the postman all day.', 'Rain fell over the quiet town.'];
const REFS = ['The cat was sitting on the mat.', 'The dog barked at the mailman.', 'It rained on the sleepy town.'];
const drafts = path.join(dir, 'drafts');
const refs = path.join(dir, 'refs');
mkdirSync(drafts);
mkdirSync(refs);
DRAFTS.forEach((d, i) => writeFileSync(path.join(drafts, `${i}.txt`), d));
REFS.forEach((r, i) => writeFileSync(path.join(refs, `${i}.txt`), r));
writeFileSync(path.join(dir, 'hyp.txt'), DRAFTS.join('\n') + '\n');
writeFileSync(path.join(dir, 'ref.txt'), REFS.join('\n') + '\n');

for (const [name, extra] of [
  ['chrF2', []],
  ['chrF2++', ['--chrf-word-order', '2']],
] as const) {
  test(`-m chrf ${extra.join(' ')} on a folder: a ${name} column, the corpus equal to -m chrf on the same segments, with its signature`, () => {
    const json = cli('--hyp', drafts, '--ref', refs, '-m', 'chrf', ...extra, '--json');
    assert.equal(json.status, 0, json.stderr);
    const out = JSON.parse(json.stdout) as {
      drafts: { chrf: number }[];
      corpus: { chrf: number };
      signatures: { chrF?: string };
    };
    const segments = cli(
      '--hyp',
      path.join(dir, 'hyp.txt'),
      '--ref',
      path.join(dir, 'ref.txt'),
      '-m',
      'chrf',
      ...extra,
      '--json',
    );
    const sacre = JSON.parse(segments.stdout) as { metrics: { signature: string; systems: { score: number }[] }[] };
    assert.ok(
      Math.abs(out.corpus.chrf - sacre.metrics[0].systems[0].score) < 1e-9,
      `${out.corpus.chrf} vs ${sacre.metrics[0].systems[0].score}`,
    );
    assert.equal(out.signatures.chrF, sacre.metrics[0].signature);
    assert.equal(out.drafts.length, 3);
    // Each row is that draft's own chrF: the sentence-level score of the segment.
    const rows = cli(
      '--hyp',
      path.join(dir, 'hyp.txt'),
      '--ref',
      path.join(dir, 'ref.txt'),
      '-m',
      'chrf',
      ...extra,
      '--sentence-level',
      '--width',
      '6',
    )
      .stdout.trim()
      .split('\n');
    out.drafts.forEach((d, i) =>
      assert.ok(Math.abs(d.chrf - Number(/= ([\d.]+)/.exec(rows[i])?.[1])) < 1e-5, `${d.chrf} vs ${rows[i]}`),
    );
    const table = cli('--hyp', drafts, '--ref', refs, '-m', 'chrf', ...extra);
    assert.match(table.stdout.split('\n')[0], new RegExp(`\\| +BLEU \\| ${name.replace(/\+/g, '\\+')} \\|`));
    assert.match(table.stdout, /^chrF signature: nrefs:1\|/m);
  });
}

test('a folder refuses what its table cannot show, with a clear message', () => {
  const beta = cli('--hyp', drafts, '--ref', refs, '-m', 'chrf', '--chrf-beta', '3');
  assert.notEqual(beta.status, 0);
  assert.match(beta.stderr, /takes chrF \(-m chrf\) or chrF\+\+ \(-m chrf --chrf-word-order 2\)/);
  assert.match(cli('--hyp', drafts, '--ref', refs, '--paired-bs').stderr, /a folder of drafts is scored as one table/);
  // Without -m the table has no chrF column, as before.
  assert.doesNotMatch(cli('--hyp', drafts, '--ref', refs, '--csv').stdout.split('\n')[0], /chrf/);
});
