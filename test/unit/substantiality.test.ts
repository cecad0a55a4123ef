// Substantiality: entity words per sentence, from wink-nlp entities, proper nouns and WordNet compounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityWordCount, substantiality } from '../../extension/engine/metrics/substantiality';
import { analyse } from '../../extension/engine/text/nlp';
import { nounCompounds } from '../../extension/engine/text/wordnet';

test('WordNet supplies multi-word nouns such as "ice cream" and "sports car"', () => {
  const { set } = nounCompounds();
  assert.ok(set.has('ice cream') && set.has('sports car') && set.has('new york'));
  assert.ok(!set.has('cat'), 'single words are not compounds');
});

test('a concrete reply has more entity words than a generic one', () => {
  const concrete = substantiality([analyse('We bought ice cream in Paris on May 5th for $12.')]);
  const generic = substantiality([analyse('I do not know what you mean.')]);
  assert.equal(generic.entityWords, 0);
  // ice cream (2) + Paris (1) + May 5th (2) + $12 ($ and 12: 2) = 7
  assert.equal(concrete.entityWords, 7);
  assert.deepEqual(concrete.examples.sort(), ['$12', 'May 5th', 'Paris', 'ice cream'].sort());
});

test('the score is entity words per sentence over all sentences of all outputs', () => {
  const s = substantiality([analyse('I love Paris. It is nice.'), analyse('See you in London.')]);
  assert.equal(s.sentences, 3);
  assert.equal(s.entityWords, 2);
  assert.equal(s.perSentence, 2 / 3);
});

test('emoji and punctuation are not entity words; empty input scores 0', () => {
  assert.equal(entityWordCount(analyse('That was great 👍 !')[0]), 0);
  assert.deepEqual(substantiality([analyse('')]), { perSentence: 0, entityWords: 0, sentences: 0, examples: [] });
});
