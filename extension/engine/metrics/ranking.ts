// Prompt-ranking accuracy (Fan, Lewis & Dauphin 2018, "Hierarchical Neural Story Generation",
// section 5.2): each story is scored under its true prompt and under 9 prompts drawn at random from
// the other stories; the model is right when the true prompt gives the story the highest
// likelihood. Accuracy = right / stories. A tie with a distractor counts as wrong, so a model that
// ignores its prompt scores 0 rather than 100%; chance for a model that does use it is 1/10.
import { seededRandom } from '../decode/sampling';
import type { LikelihoodModel } from './perplexity';

export interface RankingOptions {
  distractors?: number;
  seed?: number;
}

export interface RankingResult {
  accuracy: number;
  stories: number;
  /** Mean rank of the true prompt (1 = best) among the 1 + distractors candidates. */
  meanRank: number;
}

/** Distinct indices other than `self`, drawn uniformly (partial Fisher–Yates over the others). */
export function drawDistractors(count: number, self: number, k: number, random: () => number): number[] {
  const others = Array.from({ length: count }, (_, i) => i).filter((i) => i !== self);
  const take = Math.min(k, others.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (others.length - i));
    [others[i], others[j]] = [others[j], others[i]];
  }
  return others.slice(0, take);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export async function promptRankingAccuracy(
  pairs: readonly { prompt: string; story: string }[],
  model: LikelihoodModel,
  opts: RankingOptions = {},
): Promise<RankingResult> {
  if (pairs.length < 2) throw new RangeError('prompt ranking needs at least two prompt–story pairs');
  const random = seededRandom(opts.seed ?? 1);
  const k = opts.distractors ?? 9;
  let right = 0;
  let ranks = 0;
  for (let s = 0; s < pairs.length; s++) {
    const truth = sum(await model.tokenLogProbs(pairs[s].prompt, pairs[s].story));
    let better = 0;
    let tied = 0;
    for (const d of drawDistractors(pairs.length, s, k, random)) {
      const score = sum(await model.tokenLogProbs(pairs[d].prompt, pairs[s].story));
      if (score > truth) better++;
      else if (score === truth) tied++;
    }
    if (better === 0 && tied === 0) right++;
    ranks += 1 + better + tied;
  }
  return { accuracy: right / pairs.length, stories: pairs.length, meanRank: ranks / pairs.length };
}
