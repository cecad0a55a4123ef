// TER against sacreBLEU 2.6.0 (sacrebleu/metrics/ter.py, lib_ter.py, tokenizers/tokenizer_ter.py):
// test/fixtures/ter-sacrebleu.json holds sacreBLEU's own tokens, segment statistics, sentence and
// corpus scores, signatures, paired tests and confidence intervals, written by
// test/fixtures/generators/ter_sacrebleu.py on seeded perturbations of CommonGen, DialogSum (three
// references) and ZhiHu (Chinese) texts. Edits are counts and compared exactly; scores are compared
// with ===, to the last digit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  pairedApproximateRandomization,
  pairedBootstrap,
  bootstrapConfidence,
  terMetric,
} from '../../extension/engine/metrics/significance';
import { terSignature } from '../../extension/engine/metrics/signature';
import {
  corpusTer,
  sentenceTer,
  terReferenceTokens,
  terSegmentStats,
  terTokens,
  translationEditRate,
  type TerOptions,
} from '../../extension/engine/metrics/ter';
import { fixture, repoRoot, tempDir, type PairedFixtureRow } from './helpers';

interface SentenceCase {
  hyp: string;
  refs: string[];
  options: TerOptions;
  stats: [number, number];
  score: number;
}
type Row = PairedFixtureRow;
const ref: {
  sacrebleu: string;
  optionSets: TerOptions[];
  tokenize: { text: string; tokens: string[][] }[];
  sentence: SentenceCase[];
  hard: SentenceCase[];
  corpusData: Record<string, { refs: string[][]; hyps: string[] }>;
  corpus: {
    data: string;
    nrefs: number;
    options: TerOptions;
    score: number;
    numEdits: number;
    refLength: number;
    signature: string;
  }[];
  significanceData: { systems: Record<'A' | 'B' | 'C', string[]>; refs: string[][] };
  significance: {
    test: 'bs' | 'ar';
    samples: number;
    seed: number;
    nrefs: number;
    options: TerOptions;
    signature: string;
    systems: Row[];
  }[];
  confidence: { nrefs: number; score: number; mean: number; ci: number; signature: string }[];
} = JSON.parse(readFileSync(fixture('ter-sacrebleu.json'), 'utf8'));

const opts = (o: TerOptions) => JSON.stringify(o);

test("TercomTokenizer: every option combination gives sacreBLEU's words (punctuation, XML entities, possessives, digits, CJK, kana, full-width, Unicode case and spaces)", () => {
  assert.equal(ref.sacrebleu, '2.6.0');
  assert.equal(ref.optionSets.length, 16);
  for (const row of ref.tokenize)
    ref.optionSets.forEach((o, k) =>
      assert.deepEqual(terTokens(row.text, o), row.tokens[k], `${JSON.stringify(row.text)} ${opts(o)}`),
    );
});

test("references are tokenized twice, as sacreBLEU's _cache_references then _extract_reference_info do: with normalisation a reference's words can differ from a hypothesis's", () => {
  const o = { normalized: true };
  // sacreBLEU 2.6.0: TER(normalized=True)._preprocess_segment gives bill's; its reference cache bill 's.
  assert.deepEqual(terTokens("the uncle Bill's, who", o), ['the', 'uncle', "bill's", ',', 'who']);
  assert.deepEqual(terReferenceTokens("the uncle Bill's, who", o), ['the', 'uncle', 'bill', "'s", ',', 'who']);
  assert.deepEqual(terReferenceTokens('A &amp;lt; B', o), ['a', '<', 'b']);
  // Without normalisation one pass and two agree.
  assert.deepEqual(terReferenceTokens("Bill's, who", {}), terTokens("Bill's, who", {}));
  // Identical texts cost 2 edits (bill's → bill, + 's) over 6 reference words, as sacreBLEU says (33.33…).
  assert.equal(sentenceTer("the uncle Bill's, who", ["the uncle Bill's, who"], o).score, 100 * (2 / 6));
});

test("sentence TER: edits, mean reference length and score are sacreBLEU's on perturbed CommonGen, DialogSum (3 references) and Chinese texts", () => {
  assert.ok(ref.sentence.length >= 400);
  for (const c of ref.sentence) {
    const what = `${JSON.stringify(c.hyp)} vs ${JSON.stringify(c.refs)} ${opts(c.options)}`;
    assert.deepEqual(terSegmentStats(c.hyp, c.refs, c.options), c.stats, what);
    assert.equal(sentenceTer(c.hyp, c.refs, c.options).score, c.score, what);
  }
});

test("sacreBLEU's limits: 1,000 shift candidates, the widened beam for unequal lengths, empty hypotheses and references", () => {
  for (const c of ref.hard) {
    const what = `${c.hyp.slice(0, 60)} vs ${c.refs.map((r) => r.slice(0, 60)).join(' | ')}`;
    assert.deepEqual(terSegmentStats(c.hyp, c.refs, c.options), c.stats, what);
    assert.equal(sentenceTer(c.hyp, c.refs, c.options).score, c.score, what);
  }
});

test('shifts are counted as one edit each: a moved run costs 1, not the 2 per word Levenshtein needs', () => {
  // "b c" moved from the end to the front: one shift.
  assert.deepEqual(translationEditRate(['d', 'a', 'b', 'c'], ['b', 'c', 'd', 'a']), [1, 4]);
  // Swapped neighbours: one shift (Levenshtein: 2).
  assert.deepEqual(translationEditRate(['a', 'c', 'b', 'd'], ['a', 'b', 'c', 'd']), [1, 4]);
  assert.deepEqual(translationEditRate([], ['a', 'b']), [2, 2]);
  assert.deepEqual(translationEditRate(['a'], []), [1, 0]);
});

test("corpus TER: Σ edits / Σ mean reference lengths and the signature are sacreBLEU's for every option set, 1–3 references", () => {
  for (const c of ref.corpus) {
    const d = ref.corpusData[c.data];
    const what = `${c.data} nrefs ${c.nrefs} ${opts(c.options)}`;
    const got = corpusTer(d.hyps, d.refs.slice(0, c.nrefs), c.options);
    assert.equal(got.numEdits, c.numEdits, what);
    assert.equal(got.refLength, c.refLength, what);
    assert.equal(got.score, c.score, what);
    assert.equal(terSignature(c.options, c.nrefs), c.signature, what);
  }
});

const { systems, refs } = ref.significanceData;
const named = (['A', 'B', 'C'] as const).map((name) => ({ name, hyps: systems[name] }));

test("paired bootstrap with TER: scores, means, 95 % intervals and p-values are sacreBLEU's (1–3 references, float32 resamples)", () => {
  const cases = ref.significance.filter((t) => t.test === 'bs');
  assert.ok(cases.length >= 3);
  for (const t of cases) {
    const [r] = pairedBootstrap(named, refs.slice(0, t.nrefs), [terMetric(t.options)], {
      samples: t.samples,
      seed: t.seed,
    });
    const what = `TER bs ${t.samples} seed ${t.seed} nrefs ${t.nrefs}`;
    assert.equal(r.signature, t.signature, what);
    t.systems.forEach((e, i) => {
      const got = r.systems[i];
      assert.equal(got.score, e.score, `${what} ${e.name} score`);
      assert.equal(got.mean, e.mean, `${what} ${e.name} mean`);
      assert.equal(got.ci, e.ci, `${what} ${e.name} ci`);
      assert.equal(got.pValue, e.pValue ?? undefined, `${what} ${e.name} p`);
    });
  }
});

test("approximate randomization with TER: p-values are sacreBLEU's", () => {
  for (const t of ref.significance.filter((x) => x.test === 'ar')) {
    const [r] = pairedApproximateRandomization(named, refs.slice(0, t.nrefs), [terMetric(t.options)], {
      samples: t.samples,
      seed: t.seed,
    });
    assert.equal(r.signature, t.signature);
    t.systems.forEach((e, i) => {
      assert.equal(r.systems[i].score, e.score);
      assert.equal(r.systems[i].pValue, e.pValue ?? undefined, `TER ar nrefs ${t.nrefs} ${e.name}`);
    });
  }
});

test("--confidence with TER: mean and interval as sacreBLEU's corpus_score(n_bootstrap=1000)", () => {
  for (const e of ref.confidence) {
    const r = bootstrapConfidence(systems.B, refs.slice(0, e.nrefs), terMetric(), { samples: 1000, seed: 12345 });
    assert.equal(r.signature, e.signature);
    assert.equal(r.score, e.score);
    assert.equal(r.mean, e.mean, `nrefs ${e.nrefs} mean`);
    assert.equal(r.ci, e.ci, `nrefs ${e.nrefs} ci`);
  }
});

const dir = tempDir('ter');
const file = (name: string, lines: string[]) => {
  const p = path.join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], {
    encoding: 'utf8',
  });

test("CLI -m ter: sacreBLEU's line, signature and number; its options; --sentence-level; --paired-bs against a baseline", () => {
  const d = ref.corpusData.commongen;
  const R = [file('r1.txt', d.refs[0]), file('r2.txt', d.refs[1])];
  const H = file('h.txt', d.hyps);
  const expected = (nrefs: number, o: TerOptions) =>
    ref.corpus.find((c) => c.data === 'commongen' && c.nrefs === nrefs && opts(c.options) === opts(o))!;
  const plain = expected(1, ref.optionSets[0]);
  const text = cli('--ref', R[0], '--hyp', H, '-m', 'ter', '--width', '1');
  assert.equal(text.status, 0, text.stderr);
  assert.equal(text.stdout, `TER|${plain.signature} = ${plain.score.toFixed(1)}\n`);
  const o = ref.optionSets[15]; // every option on
  const all = cli(
    '--ref',
    R[0],
    '--ref',
    R[1],
    '--hyp',
    H,
    '-m',
    'ter',
    '--ter-case-sensitive',
    '--ter-normalized',
    '--ter-no-punct',
    '--ter-asian-support',
    '--json',
  );
  const c = expected(2, o) ?? assert.fail('no fixture for 2 references with every option');
  const m = JSON.parse(all.stdout).metrics[0];
  assert.equal(m.signature, c.signature);
  assert.equal(m.systems[0].score, c.score);
  const sl = JSON.parse(
    cli('--ref', R[0], '--hyp', H, '-m', 'ter', '--sentence-level', '--json', '--limit', '20').stdout,
  );
  assert.deepEqual(
    sl.scores,
    d.hyps.slice(0, 20).map((h, i) => sentenceTer(h, [d.refs[0][i]]).score),
  );
  const sys = ref.significanceData;
  const S = (['A', 'B', 'C'] as const).map((k) => file(`${k}.txt`, sys.systems[k]));
  const bs = ref.significance.find((t) => t.test === 'bs' && t.nrefs === 1)!;
  const paired = JSON.parse(
    cli('--ref', file('s1.txt', sys.refs[0]), ...S.flatMap((f) => ['--hyp', f]), '-m', 'ter', '--paired-bs', '--json')
      .stdout,
  );
  assert.equal(paired.metrics[0].signature, bs.signature);
  paired.metrics[0].systems.forEach((s: Row, i: number) => assert.equal(s.pValue, bs.systems[i].pValue ?? undefined));
});
