// Coherence L (Li et al. 2015, Eq. 18) on small paragraphs whose alignment is clear by construction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coherence, coherenceL, setF1 } from '../../extension/engine/metrics/coherence';
import { analyse } from '../../extension/engine/text/nlp';

const SOURCE = 'The cat sat on the mat. The dog chased the ball. A bird sang in the tree. The sun rose over the hills.';
const sentences = SOURCE.split(/(?<=\.) /);

test('a paragraph reproduced in order has L = 0 and aligns every sentence to itself', () => {
  const c = coherence(analyse(SOURCE), analyse(SOURCE));
  assert.equal(c.L, 0);
  assert.equal(c.pairs, 6);
  assert.deepEqual(
    c.alignment.map((a) => a.input),
    [0, 1, 2, 3],
  );
});

test('reversed sentence order: L computed by hand from Eq. 18', () => {
  // Alignment i' → i: 0→3, 1→2, 2→1, 3→0. Each pair (i', j') has |(j − i) − (j' − i')| = 2(j' − i'):
  // pairs at distance 1 (three of them) give 2, distance 2 (two) give 4, distance 3 (one) gives 6.
  // L = (3·2 + 2·4 + 6) / 6 = 20 / 6.
  const c = coherence(analyse(SOURCE), analyse([...sentences].reverse().join(' ')));
  assert.deepEqual(
    c.alignment.map((a) => a.input),
    [3, 2, 1, 0],
  );
  assert.ok(Math.abs((c.L ?? NaN) - 20 / 6) < 1e-12, String(c.L));
});

test('one swap of two neighbours costs less than reversing everything', () => {
  const swapped = [sentences[1], sentences[0], sentences[2], sentences[3]].join(' ');
  const reversed = [...sentences].reverse().join(' ');
  const ls = coherence(analyse(SOURCE), analyse(swapped)).L ?? NaN;
  const lr = coherence(analyse(SOURCE), analyse(reversed)).L ?? NaN;
  assert.ok(ls > 0 && ls < lr, `swap ${ls}, reverse ${lr}`);
});

test('sentences align by shared nouns and verbs, through inflection ("chased" ~ "chases")', () => {
  const c = coherence(analyse(SOURCE), analyse('Birds sing in trees. The dog chases a ball.'));
  assert.deepEqual(
    c.alignment.map((a) => a.input),
    [2, 1],
  );
});

test('an output sentence sharing no noun or verb stays unaligned and out of the average', () => {
  const c = coherence(
    analyse(SOURCE),
    analyse('The cat sat on the mat. Quite so, indeed. The sun rose over the hills.'),
  );
  assert.equal(c.alignment[1].input, null);
  assert.equal(c.pairs, 1);
  assert.equal(c.L, 1); // aligned: 0→0 and 2→3: |(3 − 0) − (2 − 0)| = 1
});

test('fewer than two aligned output sentences leaves L undefined, not 0', () => {
  assert.equal(coherence(analyse(SOURCE), analyse('The cat sat on the mat.')).L, null);
  assert.equal(coherence(analyse(SOURCE), analyse('')).L, null);
  assert.equal(coherenceL([]).L, null);
});

test('set F1 is 2|a∩b| / (|a| + |b|) and 0 for an empty set', () => {
  assert.equal(setF1(new Set(['a', 'b']), new Set(['b', 'c', 'd'])), 2 / 5);
  assert.equal(setF1(new Set(), new Set(['a'])), 0);
});

test('Unicode and symbols do not break the sentence analysis', () => {
  const c = coherence(analyse('Café prices rose 👍. 東京は日本の首都です。'), analyse('Café prices rose 👍.'));
  assert.equal(c.alignment[0].input, 0);
});
