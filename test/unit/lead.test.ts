// Lead-3 and its sentence splitter, on the kinds of text a news article or a draft contains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lead3, leadSentences, splitSentences } from '../../extension/engine/metrics/lead';
import { rougeLsum } from '../../extension/engine/metrics/rouge';

test('splits on . ! ? followed by a capital letter', () => {
  assert.deepEqual(splitSentences('It rained all day. Was it cold? Yes! The end.'),
    ['It rained all day.', 'Was it cold?', 'Yes!', 'The end.']);
});

test('does not split after titles, initialisms or initials', () => {
  assert.deepEqual(splitSentences('Mr. Smith met Dr. Jones in the U.S. Congress. J. K. Rowling was there.'),
    ['Mr. Smith met Dr. Jones in the U.S. Congress.', 'J. K. Rowling was there.']);
});

test('does not split inside numbers or before a lowercase word', () => {
  assert.deepEqual(splitSentences('Prices rose 3.5 percent. analysts said so. Markets fell.'),
    ['Prices rose 3.5 percent. analysts said so.', 'Markets fell.']);
});

test('keeps closing quotes with their sentence and splits before an opening quote', () => {
  assert.deepEqual(splitSentences('He said "Stop." Then he left. "Why?" she asked.'),
    ['He said "Stop."', 'Then he left.', '"Why?" she asked.']);
});

test('a blank line ends a sentence; a single line break is a soft wrap', () => {
  assert.deepEqual(splitSentences('Title without a period\n\nThe first line\nwraps here. Next one.\r\n\r\nLast'),
    ['Title without a period', 'The first line wraps here.', 'Next one.', 'Last']);
});

test('Lead-3 is the first three sentences, one per line, or fewer for short documents', () => {
  const doc = 'One is here. Two is here. Three is here. Four is here.';
  assert.equal(lead3(doc), 'One is here.\nTwo is here.\nThree is here.');
  assert.deepEqual(leadSentences('Only one.'), ['Only one.']);
  assert.equal(lead3(''), '');
});

test('Lead-3 output is scored sentence by sentence by ROUGE-Lsum', () => {
  // The reference lists the same sentences in another order; one line per sentence lets
  // ROUGE-Lsum match each, so the score is 1.
  const doc = 'Storms hit the coast. Power was cut. Schools closed. Rebuilding began.';
  assert.equal(rougeLsum(lead3(doc), 'Schools closed.\nStorms hit the coast.\nPower was cut.').f1, 1);
});
