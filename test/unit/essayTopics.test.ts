// How a selection becomes topic words, and how an essay's coverage of them is judged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coveredTopics, parseTopics } from '../../extension/engine/systems/essay';

test('topic words split at commas when there are any, else at spaces', () => {
  assert.deepEqual(parseTopics('bee, swallow, geese, flower, frog'), ['bee', 'swallow', 'geese', 'flower', 'frog']);
  assert.deepEqual(parseTopics('bee swallow geese'), ['bee', 'swallow', 'geese']);
  assert.deepEqual(parseTopics('ice cream; summer holiday\nbeach'), ['ice cream', 'summer holiday', 'beach']);
  assert.deepEqual(parseTopics('蜜蜂，燕子，青蛙'), ['蜜蜂', '燕子', '青蛙']);
});

test('punctuation around words is dropped, repeats kept once, punctuation-only selections give nothing', () => {
  assert.deepEqual(parseTopics('"Bee", (swallow), bee!'), ['Bee', 'swallow']);
  assert.deepEqual(parseTopics(' ,;.!?  '), []);
  assert.deepEqual(parseTopics(''), []);
});

test('an essay covers a topic word when it uses the word or an inflection of it', () => {
  const essay = 'The bees were buzzing over the flowers while a frog sat by the pond.';
  assert.deepEqual(coveredTopics(essay, ['bee', 'swallow', 'flower', 'frog', 'pond life']), ['bee', 'flower', 'frog']);
  assert.deepEqual(coveredTopics('We ate ice cream.', ['ice cream', 'cream', 'ice age']), ['ice cream', 'cream']);
  assert.deepEqual(coveredTopics('', ['bee']), []);
});
