// Score Draft with two drafts: both drafts' scores, each one's 95 % interval and
// the p-value of the difference by paired bootstrap, computed in the engine for the panel. With
// line-aligned texts the numbers are the CLI's `--paired-bs` for the same lines (which are sacreBLEU's
// for BLEU, test/unit/significance.test.ts); otherwise segments follow the reference's sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scoreDraft } from '../../extension/engine/eval/scoreDraft';
import { ScoreResult } from '../../extension/protocol';
import { fixture, repoRoot, tempDir } from './helpers';

const data = JSON.parse(readFileSync(fixture('sacrebleu-options.json'), 'utf8')).significanceData as {
  systems: Record<string, string[]>;
  refs: string[][];
};
const N = 40;
const A = data.systems.A.slice(0, N);
const B = data.systems.B.slice(0, N);
const R = data.refs[0].slice(0, N);

test("line-aligned drafts: each draft's score, interval and the p-value equal `draftsmith score --paired-bs` on the same lines", () => {
  const result = scoreDraft({
    op: 'score',
    hypothesis: A.join('\n'),
    reference: R.join('\n'),
    hypothesisName: 'a.txt',
    second: { hypothesis: B.join('\n'), name: 'b.txt' },
  });
  ScoreResult.parse(result); // what the panel receives is valid
  const c = result.comparison;
  assert.ok(c);
  assert.equal(c.segmentation, 'lines');
  assert.equal(c.segments, N);
  assert.deepEqual(
    c.metrics.map((m) => m.metric),
    ['BLEU', 'ROUGE-1', 'ROUGE-L'],
  );

  const dir = tempDir('two-drafts');
  const write = (name: string, lines: string[]) => {
    const p = path.join(dir, name);
    writeFileSync(p, lines.join('\n') + '\n');
    return p;
  };
  const cli = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, 'dist', 'cli.js'),
      'score',
      '--ref',
      write('r.txt', R),
      '--hyp',
      write('a.txt', A),
      '--hyp',
      write('b.txt', B),
      '-m',
      'bleu',
      'rouge1',
      'rougeL',
      '--paired-bs',
      '--json',
      '--quiet',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(cli.status, 0, cli.stderr);
  const expected = JSON.parse(cli.stdout).metrics as {
    metric: string;
    signature: string;
    systems: { score: number; mean: number; ci: number; pValue?: number }[];
  }[];
  c.metrics.forEach((m, k) => {
    const e = expected[k];
    assert.equal(m.metric, e.metric);
    assert.equal(m.signature, e.signature);
    assert.equal(m.first.score, e.systems[0].score);
    assert.equal(m.first.ci, e.systems[0].ci);
    assert.equal(m.second.score, e.systems[1].score);
    assert.equal(m.second.mean, e.systems[1].mean);
    assert.equal(m.second.ci, e.systems[1].ci);
    assert.equal(m.second.pValue, e.systems[1].pValue);
  });
  // The second draft's whole-text scores are Score Draft's own for it.
  const alone = scoreDraft({ op: 'score', hypothesis: B.join('\n'), reference: R.join('\n') });
  assert.deepEqual(c.secondScores, alone.scores);
  // A noisier second draft scores lower, and 40 segments are enough to tell (sacreBLEU's B is noisier than A).
  assert.ok(c.metrics[0].second.score < c.metrics[0].first.score);
});

test('the same two drafts give the same p-values every time (seeded), and identical drafts p = 1', () => {
  const req = {
    op: 'score' as const,
    hypothesis: A.join('\n'),
    reference: R.join('\n'),
    second: { hypothesis: B.join('\n') },
  };
  assert.deepEqual(scoreDraft(req).comparison?.metrics, scoreDraft(req).comparison?.metrics);
  const same = scoreDraft({ ...req, second: { hypothesis: A.join('\n') } }).comparison;
  assert.ok(same);
  for (const m of same.metrics) {
    assert.equal(m.second.score, m.first.score);
    assert.equal(m.second.pValue, 1);
  }
});

test("drafts without matching lines are paired on the reference's sentences, every draft sentence counted once", () => {
  const reference =
    'The town reopened its footbridge on Saturday. Hundreds of residents walked across the new deck. The project cost four million dollars. Shop owners hope customers return on foot.';
  const first =
    'The town reopened the footbridge on Saturday. Residents walked across the deck.\nThe bridge cost four million dollars. Shops hope customers return.';
  const second = 'A bridge opened. It was expensive.';
  const r = scoreDraft({
    op: 'score',
    hypothesis: first,
    reference,
    hypothesisName: 'first',
    second: { hypothesis: second, name: 'second' },
    options: { chrf: 'chrF' },
  });
  const c = r.comparison;
  assert.ok(c);
  assert.equal(c.segmentation, 'reference-sentences');
  assert.equal(c.segments, 4);
  assert.deepEqual(
    c.metrics.map((m) => m.metric),
    ['BLEU', 'chrF2', 'ROUGE-1', 'ROUGE-L'],
  );
  // The closer draft wins on every metric.
  for (const m of c.metrics) assert.ok(m.first.score > m.second.score, m.metric);
  assert.ok(c.metrics.every((m) => m.second.pValue > 0 && m.second.pValue <= 1));
});

test('an empty second draft is refused with a clear message', () => {
  assert.throws(
    () => scoreDraft({ op: 'score', hypothesis: 'a b c', reference: 'a b c', second: { hypothesis: '  \n' } }),
    /The second draft is empty/,
  );
});
