import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beamSearch } from '../../extension/engine/decode/beam';
import { advance, constrainedBeamSearch } from '../../extension/engine/decode/constrainedBeam';
import { tableModel } from './toyModel';

// FR OG spells "frog"; ESE continues a word ("frogese"); the others start words.
const BOS = 0,
  EOS = 1,
  THE = 2,
  DOG = 3,
  RAN = 4,
  FR = 5,
  OG = 6,
  CAP_FROG = 7,
  ESE = 8;
const V = 9;
const endsWord = (t: number) => t !== OG && t !== ESE;
const opts = {
  bos: BOS,
  eos: EOS,
  beamSize: 3,
  maxLength: 8,
  minLength: 0,
  lengthPenalty: 1,
  noRepeatNgramSize: 0,
  endsWord,
};
const FROG = [[FR, OG], [CAP_FROG]];

/** A model that would rather write "the dog ran" and end; "frog" is unlikely everywhere, and after it "-ese" is likely. */
const dogModel = tableModel(V, (p): Record<number, number> => {
  const last = p[p.length - 1];
  if (last === FR) return { [OG]: 0.9, [RAN]: 0.1 };
  if (last === OG) return { [ESE]: 0.6, [RAN]: 0.2, [EOS]: 0.2 };
  if (p.length >= 3) return { [EOS]: 0.9, [THE]: 0.05, [FR]: 0.03, [CAP_FROG]: 0.02 };
  return { [[THE, DOG, RAN][p.length]]: 0.9, [FR]: 0.05, [CAP_FROG]: 0.01, [EOS]: 0.04 };
});

const hasFrog = (tokens: number[]) =>
  tokens.includes(CAP_FROG) ||
  tokens.some((t, i) => t === FR && tokens[i + 1] === OG && endsWord(tokens[i + 2] ?? EOS));

test('plain beam search leaves out a word the model finds unlikely; the constrained search writes it as a whole word', async () => {
  const plain = await beamSearch(dogModel, [[], [], []], opts);
  assert.deepEqual(plain[0].tokens, [THE, DOG, RAN]);
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [FROG], opts);
  assert.ok(hasFrog(hyps[0].tokens), `no whole word "frog" in ${hyps[0].tokens}`);
  assert.deepEqual(hyps[0].met, [0]);
  assert.equal(hyps[0].hitMaxLength, false, 'it still ends on the end token');
});

test('an essay may end only once every required word is in it, however much the model wants to stop', async () => {
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [FROG, [[RAN]]], opts);
  for (const h of hyps.filter((x) => !x.hitMaxLength)) {
    assert.ok(hasFrog(h.tokens) && h.tokens.includes(RAN), `ended without both words: ${h.tokens}`);
  }
});

test('a word spelled half-way and abandoned, or run on into a longer word ("frogese"), does not count', () => {
  const constraints = [[[FR, OG]]];
  const half = advance({ met: [false] }, FR, constraints, endsWord);
  assert.deepEqual(advance(half, RAN, constraints, endsWord).met, [false]);
  const spelled = advance(half, OG, constraints, endsWord);
  assert.deepEqual(spelled.met, [false], 'not met before the word has ended');
  assert.deepEqual(advance(spelled, ESE, constraints, endsWord).met, [false]);
  assert.deepEqual(advance(spelled, THE, constraints, endsWord).met, [true]);
});

test('when the length runs out first, the hypotheses with the most required words come first', async () => {
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [FROG, [[THE]], [[DOG]]], { ...opts, maxLength: 3 });
  assert.ok(hyps.every((h, i) => i === 0 || hyps[i - 1].met.length >= h.met.length));
  assert.ok(hyps[0].met.length >= 2, `the best of a 3-token budget holds ${hyps[0].met.length} of 3 words`);
});

test('a required word with no spelling does not stop the search from ending', async () => {
  const hyps = await constrainedBeamSearch(dogModel, [[], [], []], [[]], opts);
  assert.deepEqual(hyps[0].tokens, [THE, DOG, RAN]);
});
