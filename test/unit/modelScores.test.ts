// Perplexity and prompt-ranking accuracy over the LikelihoodModel interface the systems implement,
// checked with small models whose probabilities are known exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perplexity, perplexityFromLogProbs, type LikelihoodModel } from '../../extension/engine/metrics/perplexity';
import { drawDistractors, promptRankingAccuracy } from '../../extension/engine/metrics/ranking';
import { seededRandom } from '../../extension/engine/decode/sampling';

/** Every word has probability 1/4: perplexity 4 whatever the text. */
const uniform4: LikelihoodModel = {
  tokenLogProbs: async (_c, target) => target.split(' ').map(() => Math.log(1 / 4)),
};

/** Words shared with the context are likely (1/2), others unlikely (1/100): it reads its prompt. */
const readsPrompt: LikelihoodModel = {
  tokenLogProbs: async (context, target) => {
    const ctx = new Set(context.split(' '));
    return target.split(' ').map((w) => Math.log(ctx.has(w) ? 0.5 : 0.01));
  },
};

/** Ignores the prompt entirely. */
const ignoresPrompt: LikelihoodModel = {
  tokenLogProbs: async (_c, target) => target.split(' ').map(() => Math.log(0.1)),
};

test('perplexity of a uniform model over 4 choices is 4', async () => {
  const r = await perplexity(uniform4, [
    { context: 'x', target: 'a b c' },
    { context: 'y', target: 'd e' },
  ]);
  assert.ok(Math.abs(r.perplexity - 4) < 1e-12);
  assert.equal(r.tokens, 5);
});

test('perplexity pools tokens across documents rather than averaging per-document perplexities', () => {
  // doc 1: one token at p=1/2; doc 2: three tokens at p=1/8. Pooled: exp((ln2 + 3 ln8)/4) = 2^(10/4).
  const r = perplexityFromLogProbs([[Math.log(0.5)], [Math.log(1 / 8), Math.log(1 / 8), Math.log(1 / 8)]]);
  assert.ok(Math.abs(r.perplexity - 2 ** 2.5) < 1e-9);
});

test('perplexity of nothing is NaN with 0 tokens; a positive log-probability is rejected', () => {
  assert.equal(perplexityFromLogProbs([]).tokens, 0);
  assert.ok(Number.isNaN(perplexityFromLogProbs([[]]).perplexity));
  assert.throws(() => perplexityFromLogProbs([[0.5]]), /≤ 0/);
});

const stories = [
  { prompt: 'dragon castle', story: 'the dragon burned the castle' },
  { prompt: 'ocean ship', story: 'a ship sailed the ocean' },
  { prompt: 'robot city', story: 'the robot walked through the city' },
  { prompt: 'forest wolf', story: 'a wolf howled in the forest' },
  { prompt: 'space moon', story: 'they flew to the moon in space' },
  { prompt: 'king crown', story: 'the king lost his crown' },
  { prompt: 'train station', story: 'the train left the station' },
  { prompt: 'garden rose', story: 'a rose grew in the garden' },
  { prompt: 'storm village', story: 'the storm hit the village' },
  { prompt: 'piano concert', story: 'she played piano at the concert' },
  { prompt: 'desert camel', story: 'a camel crossed the desert' },
];

test('a model that reads its prompt ranks every true prompt first; one that ignores it never does', async () => {
  const good = await promptRankingAccuracy(stories, readsPrompt);
  assert.equal(good.accuracy, 1);
  assert.equal(good.meanRank, 1);
  const blind = await promptRankingAccuracy(stories, ignoresPrompt);
  assert.equal(blind.accuracy, 0); // all ten candidates tie: a tie is not a win
  assert.equal(blind.stories, 11);
});

test('distractors are 9 distinct other prompts, reproducible from the seed', () => {
  const a = drawDistractors(11, 4, 9, seededRandom(3));
  assert.equal(a.length, 9);
  assert.equal(new Set(a).size, 9);
  assert.ok(!a.includes(4));
  assert.deepEqual(drawDistractors(11, 4, 9, seededRandom(3)), a);
  assert.equal(drawDistractors(3, 0, 9, seededRandom(1)).length, 2, 'fewer stories than distractors: all others');
});

test('prompt ranking needs at least two stories', async () => {
  await assert.rejects(promptRankingAccuracy(stories.slice(0, 1), readsPrompt), /at least two/);
});
