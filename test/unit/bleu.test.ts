// BLEU against hand-computed cases and against sacreBLEU 2.6.0's own numbers
// (test/fixtures/bleu-sacrebleu.json, written by test/fixtures/generators/bleu_sacrebleu.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  corpusBleu,
  sentenceBleu,
  tokenize13a,
  type BleuOptions,
  type BleuScore,
} from '../../extension/engine/metrics/bleu';
import { fixture } from './helpers';
import { assertLinearGrowth } from './growth';

interface Expected {
  score: number;
  precisions: number[];
  bp: number;
  hypLength: number;
  refLength: number;
}
interface Fixture {
  tokenize13a: { text: string; tokens: string[] }[];
  sentence: ({ hyp: string; refs: string[]; smooth: BleuOptions['smooth'] } & Expected)[];
  corpus: ({ options: BleuOptions; streams: number } & Expected)[];
  corpusData: { hyps: string[]; refs: string[][] };
}
const ref: Fixture = JSON.parse(readFileSync(fixture('bleu-sacrebleu.json'), 'utf8'));

/** exp(mean log p) of four 100s is 100 only up to rounding (sacreBLEU prints 100.00000000000004 too). */
function assertNear(actual: number, expected: number, what = ''): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what} ${actual} vs ${expected}`);
}

/** The agreement the issue asks for: 0.01 BLEU. */
function agrees(actual: BleuScore, expected: Expected, what: string): void {
  assert.ok(
    Math.abs(actual.score - expected.score) < 0.01,
    `${what}: BLEU ${actual.score} vs sacreBLEU ${expected.score}`,
  );
  assert.equal(actual.hypLength, expected.hypLength, `${what}: hypothesis length`);
  assert.equal(actual.refLength, expected.refLength, `${what}: reference length`);
  assert.ok(Math.abs(actual.brevityPenalty - expected.bp) < 1e-9, `${what}: brevity penalty`);
  expected.precisions.forEach((p, i) => assert.ok(Math.abs(actual.precisions[i] - p) < 1e-6, `${what}: p${i + 1}`));
}

test('13a tokenization splits punctuation as mteval-v13a does, keeping decimals, thousands and emoji intact', () => {
  assert.deepEqual(tokenize13a('It costs $3,000.50, or 1-2 weeks.'), [
    'It',
    'costs',
    '$',
    '3,000.50',
    ',',
    'or',
    '1',
    '-',
    '2',
    'weeks',
    '.',
  ]);
  for (const c of ref.tokenize13a) assert.deepEqual(tokenize13a(c.text), c.tokens, JSON.stringify(c.text));
});

test('a perfect hypothesis scores 100 and an unrelated one scores 0', () => {
  const s = 'the quick brown fox jumps over the lazy dog';
  assertNear(sentenceBleu(s, [s]).score, 100);
  assertNear(corpusBleu([s], [[s]]).score, 100);
  assert.equal(sentenceBleu('completely different words here', [s]).score, 0);
});

test('hand-computed: "the cat sat" against "the cat sat on the mat" is 100 · exp(1 − 6/3) with effective order 3', () => {
  // 1-, 2-, 3-grams all match (p = 100); the 4-gram count is 0, so effective order stops at 3.
  // BP = exp(1 − 6/3) = e^-1.
  const s = sentenceBleu('the cat sat', ['the cat sat on the mat']);
  assert.ok(Math.abs(s.score - 100 * Math.exp(-1)) < 1e-9, String(s.score));
  assert.deepEqual(s.counts, [3, 2, 1, 0]);
});

test('clipping: a repeated word is credited at most as often as the reference has it', () => {
  const s = corpusBleu(['the the the the'], [['the cat']], { smooth: 'none' });
  assert.equal(s.counts[0], 1);
  assert.equal(s.precisions[0], 25);
});

test('with several references, the closest reference length sets the brevity penalty', () => {
  const s = sentenceBleu('a b c d e', ['a b c d e f g h i j', 'a b c d']);
  assert.equal(s.refLength, 4); // |5−4| = 1 beats |5−10| = 5
  assert.equal(s.brevityPenalty, 1);
});

test('empty hypothesis or reference gives 0, never NaN', () => {
  for (const [h, r] of [
    ['', 'a b'],
    ['a b', ''],
    ['', ''],
  ]) {
    const s = sentenceBleu(h, [r]);
    assert.equal(s.score, 0);
    assert.ok(Number.isFinite(s.ratio));
  }
});

test('Unicode: CJK, accents and emoji survive tokenization and match themselves', () => {
  for (const s of ['東京は日本の首都です。', 'café naïve façade', 'ok 👍🏽 🎉 done']) {
    assertNear(sentenceBleu(s, [s]).score, 100, s);
  }
});

test('a very long pair (20,000 words) scores in linear time', () => {
  const pair = (n: number) => {
    const words = Array.from({ length: n }, (_, i) => `w${i % 997}`);
    return { hyp: words.join(' '), ref: words.slice(0, Math.round(n * 0.95)).join(' ') };
  };
  const pairs = new Map([2_500, 20_000].map((n) => [n, pair(n)]));
  const score = (n: number) => {
    const p = pairs.get(n) ?? pair(n);
    return corpusBleu([p.hyp], [[p.ref]]);
  };
  const s = score(20_000);
  assert.ok(s.score > 90 && s.score <= 100, String(s.score));
  assertLinearGrowth(score, 2_500);
});

test('sentence BLEU agrees with sacrebleu.sentence_bleu on 292 cases and four smoothing methods', () => {
  for (const c of ref.sentence)
    agrees(sentenceBleu(c.hyp, c.refs, { smooth: c.smooth }), c, `${c.smooth}: ${c.hyp.slice(0, 40)}`);
});

test('corpus BLEU agrees with sacreBLEU for every smoothing, lowercase, no tokenization, and 1 or 2 reference streams', () => {
  for (const c of ref.corpus) {
    const refs = ref.corpusData.refs.slice(0, c.streams);
    agrees(corpusBleu(ref.corpusData.hyps, refs, c.options), c, JSON.stringify(c.options));
  }
});

test('corpus BLEU rejects a reference stream of the wrong length', () => {
  assert.throws(() => corpusBleu(['a', 'b'], [['a']]), /one reference per hypothesis/);
});
