import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topPhrases, wordsOf } from '../../extension/engine/systems/topicAwareAttention';
import type { AttendedToken } from '../../extension/protocol';

/** Tokens for "new bridge over the Alder River ." with "Al"+"der" as two pieces. */
const source = 'new bridge over the Alder River.';
const tok = (text: string, start: number, weight: number): AttendedToken => ({
  text,
  start,
  end: start + text.length,
  weight,
});
const tokens = [
  tok('new', 0, 0.05),
  tok('bridge', 4, 0.3),
  tok('over', 11, 0.02),
  tok('the', 16, 0.01),
  tok('Al', 20, 0.1),
  tok('der', 22, 0.12),
  tok('River', 26, 0.3),
  tok('.', 31, 0.1),
];

test('sub-word pieces are joined into words and punctuation is not a word', () => {
  const words = wordsOf(tokens).map((w) => source.slice(w.start, w.end));
  assert.deepEqual(words, ['new', 'bridge', 'over', 'the', 'Alder', 'River']);
});

test('the most attended words grow into phrases with their strongly attended neighbours', () => {
  const phrases = topPhrases(source, tokens, 2);
  assert.deepEqual(
    phrases.map((p) => p.text),
    ['Alder River', 'bridge'],
  );
  for (const p of phrases) assert.equal(source.slice(p.start, p.end), p.text);
});

test('never more phrases than asked for, and no word in two phrases', () => {
  const phrases = topPhrases(source, tokens, 5);
  assert.ok(phrases.length <= 5);
  const covered = phrases.flatMap((p) => [p.start, p.end]);
  for (let i = 0; i < phrases.length; i++)
    for (let j = i + 1; j < phrases.length; j++) {
      assert.ok(phrases[i].end <= phrases[j].start || phrases[j].end <= phrases[i].start, `${covered}`);
    }
});

test('function words are never listed as phrases however much attention they get, and a phrase is listed once', () => {
  const text = 'the bridge and the river and the bridge';
  let at = 0;
  const weights: Record<string, number> = { the: 0.2, and: 0.25, bridge: 0.05, river: 0.04 };
  const toks = text.split(' ').map((w) => {
    const t = tok(w, at, weights[w]);
    at += w.length + 1;
    return t;
  });
  const phrases = topPhrases(text, toks, 5);
  assert.deepEqual(
    phrases.map((p) => p.text),
    ['bridge', 'river'],
  );
});
