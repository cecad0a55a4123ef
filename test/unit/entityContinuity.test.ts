// Entity continuity (Barzilay & Lapata's entity grid, its share of adjacent sentences that share an
// entity) on short stories whose answer is clear by construction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entitiesOf, entityContinuity } from '../../extension/engine/metrics/entityContinuity';
import { analyse } from '../../extension/engine/text/nlp';

test('a story that stays on its characters scores every adjacent pair', () => {
  const s = analyse('Tom found a red ball. The ball rolled under the bed. Tom crawled after the ball.');
  const c = entityContinuity([s]);
  assert.equal(c.pairs, 2);
  assert.equal(c.continuity, 1);
});

test('sentences about unrelated things share no entity', () => {
  const s = analyse('The cat sat on the mat. A storm hit the coast. Prices rose in March.');
  assert.equal(entityContinuity([s]).continuity, 0);
});

test('a pronoun carries its character on: "she" after "her" counts, a noun after a pronoun does not', () => {
  assert.ok(entitiesOf(analyse('Anna lost her hat.')[0]).has('pronoun:she'));
  const kept = analyse('Anna lost her hat. She looked everywhere.');
  assert.equal(entityContinuity([kept]).continuity, 1);
  const lost = analyse('Anna lost her hat. The river was cold.');
  assert.equal(entityContinuity([lost]).continuity, 0);
});

test('pooled over texts: pairs are counted across them, one-sentence texts are left out', () => {
  const c = entityContinuity([
    analyse('The dog barked. The dog ran.'),
    analyse('The dog barked. Rain fell on the town.'),
    analyse('Only one sentence here.'),
  ]);
  assert.equal(c.texts, 2);
  assert.equal(c.pairs, 2);
  assert.equal(c.continuity, 0.5);
  assert.equal(entityContinuity([analyse('Just one.')]).continuity, null);
});
