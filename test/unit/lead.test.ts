// Lead-3 on the kinds of text a news article or a draft contains (its sentences: reader.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lead3, leadSentences } from '../../extension/engine/metrics/lead';
import { rougeLsum } from '../../extension/engine/metrics/rouge';

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
