// Diversity (unique tokens / tokens) and distinct-n, computed by hand on small sets of outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { distinctN, diversity, diversityTokens } from '../../extension/engine/metrics/diversity';
import { assertLinearGrowth } from './growth';

test('diversity counts unique tokens over all outputs together, ignoring case and punctuation', () => {
  // tokens: the cat sat | the cat ran  → 6 tokens, unique {the, cat, sat, ran} = 4
  const d = diversity(['The cat sat.', 'the cat ran!']);
  assert.equal(d.tokens, 6);
  assert.equal(d.diversity, 4 / 6);
  assert.equal(d.distinct1, 4 / 6);
  // bigrams: the-cat, cat-sat, the-cat, cat-ran → 4, unique 3
  assert.equal(d.distinct2, 3 / 4);
});

test('a set of identical outputs is less diverse than a set of different ones', () => {
  const same = diversity(['i do not know', 'i do not know', 'i do not know']);
  const varied = diversity(['i do not know', 'tennis is fun', 'paris in spring']);
  assert.ok(same.diversity < varied.diversity);
  assert.equal(same.distinct2, 3 / 9);
  assert.equal(varied.distinct1, 1);
});

test('no outputs, empty outputs or a single token never give NaN', () => {
  assert.deepEqual(diversity([]), { diversity: 0, distinct1: 0, distinct2: 0, tokens: 0 });
  assert.deepEqual(diversity(['', '  ', '...']), { diversity: 0, distinct1: 0, distinct2: 0, tokens: 0 });
  const one = diversity(['word']);
  assert.equal(one.diversity, 1);
  assert.equal(one.distinct2, 0);
});

test('CJK, accented words and emoji are tokens like any other', () => {
  assert.deepEqual(diversityTokens('Café naïve 👍 東京'), ['café', 'naïve', '👍', '東京']);
  assert.equal(distinctN([['東京', '東京'], ['👍']], 1), 2 / 3);
});

test('very long outputs are handled in linear time', () => {
  const output = (tokens: number) => Array.from({ length: tokens }, (_, i) => `w${i % 1000}`).join(' ');
  const d = diversity([output(200_000)]);
  assert.equal(d.tokens, 200_000);
  assert.equal(d.distinct1, 1000 / 200_000);
  const texts = new Map([12_500, 100_000].map((n) => [n, output(n)]));
  assertLinearGrowth((n) => diversity([texts.get(n) ?? '']), 12_500);
});
