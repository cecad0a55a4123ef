/**
 * One token at a time, one row: the loop that greedy decoding (the paragraph autoencoder's and the
 * reply model's paper decode so) and top-k random sampling (the story paper samples with k = 10)
 * share. They differ only in how a token is picked from a row the processors have been applied to,
 * so that is all a strategy here supplies (a Picker); the stopping rules, the scores and the hooks
 * are the loop's, written once.
 *
 * A hypothesis's log-prob includes the end token's when the model chose to end, as beam search's
 * does (beam.ts): the score of "this text, then the end" rather than of an unfinished prefix.
 *
 * A model that ranks its own candidates (StepModel.stepRanked: llama.cpp) is read through them: the
 * same tokens are picked as from the whole row (the draws differ only by float rounding), and a
 * hypothesis's log-prob is then relative to each step's candidates rather than the vocabulary.
 */
import { topK, topKOfRanked } from './constraints';
import type { RowGuard } from './guards';
import { ProcessorList, standardProcessors } from './processors';
import { DecodeHooks, Hypothesis, StepModel, YieldClock } from './types';

/** Picks the next token from a row of log-probs (processors already applied); -1 when none is left. */
export interface Picker {
  /** How many of the row's best tokens the word guards must leave allowed (the picker reads no more). */
  readonly width: number;
  pick(row: Float32Array): number;
  /** The same from the row's `width` best allowed log-probs, best first: the index of the one taken, -1 when none. */
  pickRanked(values: ArrayLike<number>): number;
}

export interface SamplingOptions {
  bos: number;
  eos: number;
  maxLength: number;
  minLength?: number;
  noRepeatNgramSize?: number;
  banned?: number[];
  /** The decoding guards (guards.ts); none when absent. */
  guard?: RowGuard;
  /**
   * False while the text may not end yet (the caller's minimum, e.g. a length in words): the end
   * token is never picked before (as generate() libraries' min_new_tokens).
   */
  mayEnd?: (tokens: readonly number[]) => boolean;
  /**
   * The caller's own end, checked after each token: true when the text was complete WITHOUT that
   * token (a length in words reached, and the token starts the next word). The token is dropped
   * and decoding stops, as at the end token.
   */
  endsBefore?: (tokens: readonly number[]) => boolean;
}

export type GreedyOptions = SamplingOptions;

export interface TopKOptions extends SamplingOptions {
  k: number;
  temperature: number;
  seed: number;
}

/** The most probable token (the lower id among equals). */
export const greedyPicker: Picker = {
  width: 1,
  pick: (row) => topK(row, 1)[0] ?? -1,
  pickRanked: (values) => (values.length > 0 ? 0 : -1),
};

/** A draw from the k best tokens at temperature T; a seed makes the draws repeatable. */
export function topKPicker(k: number, temperature: number, seed: number): Picker {
  const random = seededRandom(seed);
  return {
    width: k,
    pick: (row) => sampleTopK(row, k, temperature, random),
    pickRanked: (values) => drawFrom(values, temperature, random),
  };
}

/** mulberry32: a small, well-known seeded PRNG, so a sample can be reproduced from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws one index from the k best of `row` (log-probs) at temperature T: their logits rescaled by 1/T. */
export function sampleTopK(row: Float32Array, k: number, temperature: number, random: () => number): number {
  const idx = topK(row, k);
  const j = drawFrom(
    idx.map((i) => row[i]),
    temperature,
    random,
  );
  return j < 0 ? -1 : idx[j];
}

/** Draws an index of `values` (log-probs, best first) at temperature T; -1 when there are none. */
function drawFrom(values: ArrayLike<number>, temperature: number, random: () => number): number {
  if (values.length === 0) return -1;
  const t = Math.max(temperature, 1e-4);
  const top = values[0];
  const weights = Array.from(values, (v) => Math.exp((v - top) / t));
  const total = weights.reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (let j = 0; j < weights.length; j++) {
    r -= weights[j];
    if (r <= 0) return j;
  }
  return weights.length - 1;
}

/** The loop: `state` holds one row. */
export async function sample<S>(
  model: StepModel<S>,
  state: S,
  opts: SamplingOptions,
  picker: Picker,
  hooks: DecodeHooks = {},
): Promise<Hypothesis> {
  const tokens: number[] = [];
  const processors = new ProcessorList(standardProcessors(opts));
  const clock = hooks.clock ?? new YieldClock();
  let logProb = 0;
  /** The token the row takes next and its log-prob; from the model's own ranking where it gives one. */
  const next = async (last: number): Promise<{ t: number; logProb: number }> => {
    if (model.stepRanked) {
      const out = await model.stepRanked([last], state, picker.width);
      const { ids, logProbs, perRow, endAtMost } = out.top;
      const row = { tokens };
      const banned = processors.banned(row);
      // An end token the runtime could not place: the candidates rank for sure only above its most,
      // unless it is banned now.
      let count = perRow;
      const end = endAtMost?.[0] ?? -Infinity;
      if (end > -Infinity && !banned.has(opts.eos)) for (count = 0; count < perRow && logProbs[count] > end;) count++;
      const at = topKOfRanked(ids, logProbs, count, picker.width, banned, processors.allowed(row), false);
      if (at) {
        state = out.state;
        const j = picker.pickRanked(at.map((i) => logProbs[i]));
        return j < 0 ? { t: -1, logProb: 0 } : { t: ids[at[j]], logProb: logProbs[at[j]] };
      }
      // Too few candidates pass the processors: the whole row, from the same state.
    }
    const out = await model.step([last], state);
    state = out.state;
    const row = out.logProbs.subarray(0, model.vocabSize);
    processors.apply(row, { tokens }, picker.width);
    const t = picker.pick(row);
    return { t, logProb: t < 0 ? 0 : row[t] };
  };
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const { t, logProb: lp } = await next(tokens.length ? tokens[tokens.length - 1] : opts.bos);
    if (t < 0) break;
    if (t === opts.eos) {
      logProb += lp;
      break;
    }
    tokens.push(t);
    if (opts.endsBefore?.(tokens)) {
      tokens.pop();
      break;
    }
    logProb += lp;
    hooks.onStep?.(step, tokens);
    await clock.yield();
  }
  // Every step added a token, none was the end token (nor the caller's end): cut off at the limit.
  return { tokens, logProb, score: logProb, steps: tokens.length, hitMaxLength: tokens.length >= opts.maxLength };
}

/** Greedy decoding: the most probable token at every step. */
export function greedy<S>(
  model: StepModel<S>,
  state: S,
  opts: GreedyOptions,
  hooks: DecodeHooks = {},
): Promise<Hypothesis> {
  return sample(model, state, opts, greedyPicker, hooks);
}

/** Top-k random sampling with temperature: the guards leave k allowed, the k best are drawn from. */
export function topKSample<S>(
  model: StepModel<S>,
  state: S,
  opts: TopKOptions,
  hooks: DecodeHooks = {},
): Promise<Hypothesis> {
  return sample(model, state, opts, topKPicker(opts.k, opts.temperature, opts.seed), hooks);
}
