// ROUGE with several references per segment: rouge-score 0.1.2's score_multi (the reference with
// the highest F1 gives P, R and F1; the first on a tie, as its np.argmax) and ROUGE-1.5.5's
// jackknifing (Lin 2004, section 2.1: the best score over each of the M sets of M − 1 references,
// averaged); and `draftsmith score -m rouge` with several --ref files, JSONL lists, --stem,
// --rouge-jackknife, --rouge-split and the paired tests.
//
// rouge-score itself is not installable on this machine (no wheel in the local cache the sacreBLEU
// generator uses), so the expected numbers are derived by hand in the comments, and the single-reference
// ones are rouge-score's own published test expectations (google-research rouge/rouge_scorer_test.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { rougeL, rougeLsum, rougeMulti, rougeN, type Score } from '../../extension/engine/metrics/rouge';
import { rougeMetrics } from '../../extension/engine/metrics/rougeMetric';
import { repoRoot, tempDir } from './helpers';

const near = (s: Score, p: number, r: number, f: number, what = '') => {
  const ok = (a: number, e: number) => Math.abs(a - e) < 1e-9;
  assert.ok(
    ok(s.precision, p) && ok(s.recall, r) && ok(s.f1, f),
    `${what} expected P=${p} R=${r} F=${f}, got ${JSON.stringify(s)}`,
  );
};

const HYP = 'the cat sat on the mat';
const R1 = 'the cat was on the mat'; // the x2, cat, on, mat: 5 of 6 each way, F1 5/6
const R2 = 'a cat sat on a mat'; // cat, sat, on, mat: 4 of 6 each way, F1 2/3

test("one reference: the same scores as the single-reference functions (rouge-score's published cases)", () => {
  // rouge_scorer_test.py: testRouge1 (1, 1/3, 1/2), testRouge2 (1, 1/2, 2/3), testRougeLNonConsecutive (1, 2/3, 4/5);
  // scorer.score(target, prediction), so the prediction here is rouge-score's second argument.
  near(rougeMulti('testing', ['testing one two']).rouge1, 1, 1 / 3, 1 / 2);
  near(rougeMulti('testing one', ['testing one two']).rouge2, 1, 1 / 2, 2 / 3);
  near(rougeMulti('testing two', ['testing one two']).rougeL, 1, 2 / 3, 4 / 5);
  // testRougeLsum: two prediction sentences against one reference sentence: R 0.8, P 0.4.
  near(rougeMulti('w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['w1 w2 w3 w4 w5']).rougeLsum, 0.4, 0.8, 0.32 / 0.6);
  for (const stem of [false, true]) {
    const m = rougeMulti('Cats were running home', ['A cat was running to its home'], { stem });
    assert.deepEqual(m.rouge1, rougeN('Cats were running home', 'A cat was running to its home', 1, { stem }));
    assert.deepEqual(m.rougeL, rougeL('Cats were running home', 'A cat was running to its home', { stem }));
    assert.deepEqual(m.rougeLsum, rougeLsum('Cats were running home', 'A cat was running to its home', { stem }));
  }
});

test('several references: each type takes the reference with the best F1, whatever their order', () => {
  for (const refs of [
    [R1, R2],
    [R2, R1],
  ]) {
    const m = rougeMulti(HYP, refs);
    near(m.rouge1, 5 / 6, 5 / 6, 5 / 6, 'ROUGE-1');
    // ROUGE-2 against R1: the cat, on the, the mat = 3 of 5 bigrams; against R2: cat sat, sat on = 2 of 5.
    near(m.rouge2, 3 / 5, 3 / 5, 3 / 5, 'ROUGE-2');
  }
  // P and R come from the same reference as the F1: the second one here, for ROUGE-1 and ROUGE-2.
  const m = rougeMulti('cat sat on a mat', ['the cat sat on it', 'a dog sat on a mat']);
  // ROUGE-1: R1 shares cat sat on (3 of 5 each way, F1 0.6); R2 sat on a mat (P 4/5, R 4/6, F1 8/11).
  near(m.rouge1, 4 / 5, 4 / 6, 8 / 11, 'ROUGE-1');
  // bigrams of the prediction: cat sat, sat on, on a, a mat (4). R1 (4 bigrams): cat sat, sat on -> 2/4 each, F1 0.5;
  // R2 (5 bigrams): sat on, on a, a mat -> P 3/4, R 3/5, F1 2/3.
  near(m.rouge2, 3 / 4, 3 / 5, 2 / 3, 'ROUGE-2');
});

test("a tie in F1 keeps the first reference, as rouge-score's np.argmax", () => {
  // refA: P 2/4, R 2/2 -> F1 2/3; refC: P 4/4, R 4/8 -> F1 2/3. Same F1, different P and R.
  const hyp = 'a b c d';
  const refA = 'a b';
  const refC = 'a b c d e f g h';
  assert.ok(Math.abs(rougeN(hyp, refC, 1).f1 - rougeN(hyp, refA, 1).f1) < 1e-12);
  near(rougeMulti(hyp, [refA, refC]).rouge1, 1 / 2, 1, 2 / 3);
  near(rougeMulti(hyp, [refC, refA]).rouge1, 1, 1 / 2, 2 / 3);
});

test('jackknifing averages the best over each leave-one-out set (Lin 2004, section 2.1)', () => {
  // Two references: leave R1 out -> R2's 2/3; leave R2 out -> R1's 5/6; mean 3/4 (the best alone: 5/6).
  near(rougeMulti(HYP, [R1, R2], { jackknife: true }).rouge1, 3 / 4, 3 / 4, 3 / 4);
  // Three references, R1, R2 and R3 = R2: leave R1 -> 2/3, leave R2 -> 5/6, leave R3 -> 5/6: mean 7/9.
  near(rougeMulti(HYP, [R1, R2, R2], { jackknife: true }).rouge1, 7 / 9, 7 / 9, 7 / 9);
  // One reference: nothing to leave out, the plain score; a reference given twice: the plain score too.
  assert.deepEqual(rougeMulti(HYP, [R1], { jackknife: true }), rougeMulti(HYP, [R1]));
  assert.deepEqual(rougeMulti(HYP, [R1, R1], { jackknife: true }), rougeMulti(HYP, [R1]));
  // Jackknifing never scores above the best single reference.
  const jk = rougeMulti(HYP, [R1, R2], { jackknife: true });
  const best = rougeMulti(HYP, [R1, R2]);
  for (const k of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const) assert.ok(jk[k].f1 <= best[k].f1 + 1e-12, k);
});

test("no reference is refused; the metric skips a segment's missing references (holes)", () => {
  assert.throws(() => rougeMulti(HYP, []), /at least one reference/);
  const [m] = rougeMetrics(['rouge1']);

  const holey = [R1, undefined as unknown as string];
  assert.deepEqual(m.segmentStats(HYP, holey), [100 * (5 / 6), 1]);
  assert.equal(m.score([150, 2]), 75);
});

// ---- the CLI ----------------------------------------------------------------------------------

const cli = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('rouge-multi');
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli, 'score', ...args, '--quiet'], { encoding: 'utf8' });
const hyp = file('hyp.txt', `${HYP}\na quick brown fox\n`);
const ref1 = file('ref1.txt', `${R1}\nthe quick brown fox jumps\n`);
const ref2 = file('ref2.txt', `${R2}\na fast brown fox\n`);
const jsonOf = (r: ReturnType<typeof run>) => {
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as {
    metrics: {
      metric: string;
      signature: string;
      systems: { name: string; score: number; pValue?: number; ci?: number }[];
    }[];
  };
};

test('CLI: -m rouge with two --ref files prints ROUGE-1/2/L/Lsum F1 (mean over segments) with signatures', () => {
  const out = jsonOf(run('--ref', ref1, '--ref', ref2, '--hyp', hyp, '-m', 'rouge', '--json'));
  assert.deepEqual(
    out.metrics.map((m) => m.metric),
    ['ROUGE-1', 'ROUGE-2', 'ROUGE-L', 'ROUGE-Lsum'],
  );
  // Segment 2: "a quick brown fox" vs ref1 (3 of 4, 3 of 5: F1 2/3) and ref2 (3 of 4 each: 3/4): best 3/4.
  assert.ok(Math.abs(out.metrics[0].systems[0].score - (100 * (5 / 6 + 3 / 4)) / 2) < 1e-9);
  assert.equal(
    out.metrics[0].signature,
    'nrefs:2|agg:mean|multi:max|tok:rouge-score|stem:no|split:nlp|w:1.2|version:rouge-score-0.1.2',
  );
  const text = run('--ref', ref1, '--ref', ref2, '--hyp', hyp, '-m', 'rougeL', 'bleu');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^ROUGE-L\|nrefs:2\|agg:mean\|multi:max\|.* = 79\.17$/m);
  assert.match(text.stdout, /^BLEU\|nrefs:2\|/m);
});

test('CLI: --rouge-jackknife, --stem and --rouge-split change the number and say so in the signature', () => {
  const jk = jsonOf(run('--ref', ref1, '--ref', ref2, '--hyp', hyp, '-m', 'rouge1', '--rouge-jackknife', '--json'))
    .metrics[0];
  // Segment 1: 3/4 (above); segment 2: leave ref1 out -> 3/4, leave ref2 out -> 2/3: mean 17/24.
  assert.ok(Math.abs(jk.systems[0].score - (100 * (3 / 4 + 17 / 24)) / 2) < 1e-9);
  assert.match(jk.signature, /\|multi:jk\|/);
  const h = file('stem-hyp.txt', 'Cats were running\n');
  const r = file('stem-ref.txt', 'The cat was running\n');
  const plain = jsonOf(run('--ref', r, '--hyp', h, '-m', 'rouge1', '--json')).metrics[0];
  const stemmed = jsonOf(run('--ref', r, '--hyp', h, '-m', 'rouge1', '--stem', '--json')).metrics[0];
  assert.ok(stemmed.systems[0].score > plain.systems[0].score);
  assert.match(stemmed.signature, /^nrefs:1\|agg:mean\|tok:rouge-score\|stem:yes\|split:nlp\|/);
  // ROUGE-Lsum on one-line segments, by default (--rouge-split nlp): sentences found in the line, and
  // the signature says split:nlp; the same number as the full table's ROUGE-Lsum for the same pair.
  // --rouge-split newline: the line is one sentence, and the signature says so.
  const two = file('two.txt', 'The mat was red. The cat sat.\n');
  const ref = file('tworef.txt', 'The cat sat. The mat was red.\n');
  const lines = jsonOf(run('--ref', ref, '--hyp', two, '-m', 'rougeLsum', '--rouge-split', 'newline', '--json'))
    .metrics[0];
  const nlp = jsonOf(run('--ref', ref, '--hyp', two, '-m', 'rougeLsum', '--json')).metrics[0];
  assert.equal(nlp.systems[0].score, 100, 'sentence order does not matter to ROUGE-Lsum once split');
  assert.ok(lines.systems[0].score < 100);
  assert.match(nlp.signature, /\|split:nlp\|/);
  assert.match(lines.signature, /\|split:newline\|/);
  const full = run('--ref', ref, '--hyp', two, '--json');
  assert.equal(JSON.parse(full.stdout).rouge.rougeLsum.f1 * 100, nlp.systems[0].score);
});

test('CLI: a JSONL reference field holding a list gives several references, any number per segment', () => {
  const refs = file(
    'refs.jsonl',
    `${JSON.stringify({ refs: [R1, R2] })}\n${JSON.stringify({ refs: ['the quick brown fox jumps'] })}\n`,
  );
  const out = jsonOf(run('--ref', refs, '--ref-field', 'refs', '--hyp', hyp, '-m', 'rouge1', '--json')).metrics[0];
  // Segment 1: best of R1, R2 = 5/6; segment 2: its one reference, 2/3.
  assert.ok(Math.abs(out.systems[0].score - (100 * (5 / 6 + 2 / 3)) / 2) < 1e-9);
  assert.match(out.signature, /^nrefs:var\|/);
  const bleu = run('--ref', refs, '--ref-field', 'refs', '--hyp', hyp, '-m', 'bleu');
  assert.equal(bleu.status, 1);
  assert.match(bleu.stderr, /different numbers of references .* BLEU, chrF and TER here need the same number/);
  const table = run('--ref', refs, '--ref-field', 'refs', '--hyp', hyp);
  assert.notEqual(table.status, 0);
  assert.match(table.stderr, /holds a list of references; score several references per segment with -m/);
});

test("CLI: --paired-bs on ROUGE gives each system's interval and the p-value; misplaced options are refused", () => {
  const other = file('other.txt', `${R1}\nthe quick brown fox jumps\n`);
  const out = jsonOf(
    run(
      '--ref',
      ref1,
      '--ref',
      ref2,
      '--hyp',
      hyp,
      '--hyp',
      other,
      '-m',
      'rouge1',
      '--paired-bs',
      '--paired-bs-n',
      '200',
      '--json',
    ),
  ).metrics[0];
  assert.match(out.signature, /^nrefs:2\|bs:200\|seed:12345\|agg:mean\|multi:max\|/);
  assert.equal(out.systems[1].score, 100);
  assert.ok(out.systems[1].pValue !== undefined && out.systems[1].pValue > 0 && out.systems[1].pValue <= 1);
  assert.ok(out.systems[0].ci !== undefined);
  const noM = run('--ref', ref1, '--hyp', hyp, '--rouge-jackknife');
  assert.equal(noM.status, 2);
  assert.match(noM.stderr, /--rouge-jackknife applies to ROUGE with -m/);
  const bleuOnly = run('--ref', ref1, '--ref', ref2, '--hyp', hyp, '-m', 'bleu', '--rouge-jackknife');
  assert.equal(bleuOnly.status, 2);
  const badSplit = run('--ref', ref1, '--hyp', hyp, '-m', 'rougeLsum', '--rouge-split', 'paragraph');
  assert.equal(badSplit.status, 2);
  assert.match(badSplit.stderr, /--rouge-split must be one of newline, nlp/);
  const bad = run('--ref', ref1, '--hyp', hyp, '-m', 'rouge3');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /rouge1, rouge2, rougeL, rougeLsum/);
});
