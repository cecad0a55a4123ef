import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beamSearch } from '../../extension/engine/decode/beam';
import { advance, constrainedBeamSearch } from '../../extension/engine/decode/constrainedBeam';
import { tableModel } from './toyModel';

const BOS = 0, EOS = 1, THE = 2, DOG = 3, RAN = 4, FR = 5, OG = 6, CAP_FROG = 7;
const V = 8;
const opts = { bos: BOS, eos: EOS, beamSize: 3, maxLength: 8, minLength: 0, lengthPenalty: 1, noRepeatNgramSize: 0 };

/** A model that would rather write "the dog ran" and end; "frog" (FR OG, or CAP_FROG) is unlikely everywhere. */
const dogModel = tableModel(V, (p): Record<number, number> => {
  const last = p[p.length - 1];
  if (last === FR) return { [OG]: 0.9, [RAN]: 0.1 };
  if (p.length >= 3) return { [EOS]: 0.9, [THE]: 0.05, [FR]: 0.03, [CAP_FROG]: 0.02 };
  return { [[THE, DOG, RAN][p.length]]: 0.9, [FR]: 0.05, [CAP_FROG]: 0.01, [EOS]: 0.04 };
});

test('plain beam search leaves out a word the model finds unlikely; the constrained search writes it', async () => {
  const plain = await beamSearch(dogModel, [[], [], []], opts);
  assert.deepEqual(plain[0].tokens, [THE, DOG, RAN]);
  const frog = [[FR, OG], [CAP_FROG]];
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [frog], opts);
  const best = hyps[0].tokens.join(' ');
  assert.ok(best.includes(`${FR} ${OG}`) || best.includes(`${CAP_FROG}`), `no frog in ${best}`);
  assert.deepEqual(hyps[0].met, [0]);
  assert.equal(hyps[0].hitMaxLength, false, 'it still ends on the end token');
});

test('an essay may end only once every required word is in it, however much the model wants to stop', async () => {
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [[[FR, OG]], [[RAN]]], opts);
  for (const h of hyps.filter((x) => !x.hitMaxLength)) {
    const text = h.tokens.join(' ');
    assert.ok(text.includes(`${FR} ${OG}`) && h.tokens.includes(RAN), `ended without both words: ${text}`);
  }
});

test('a word spelled half-way and then abandoned does not count', () => {
  const start = { met: [false] };
  const half = advance(start, FR, [[[FR, OG]]]);
  assert.deepEqual(half.current, { c: 0, alt: 0, pos: 1 });
  assert.deepEqual(advance(half, RAN, [[[FR, OG]]]).met, [false]);
  assert.deepEqual(advance(half, OG, [[[FR, OG]]]).met, [true]);
});

test('when the length runs out first, the hypotheses with the most required words come first', async () => {
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [[[FR, OG]], [[CAP_FROG]], [[DOG]]], { ...opts, maxLength: 3 });
  assert.ok(hyps[0].met.length >= hyps[hyps.length - 1].met.length);
  assert.ok(hyps.every((h, i) => i === 0 || hyps[i - 1].met.length >= h.met.length));
});
