/**
 * Top-k random sampling with temperature (the story paper samples with k = 10): keep the k most
 * probable tokens, rescale their logits by 1/T, and draw. A seed makes a draw repeatable.
 */
import { topK } from './constraints';
import type { RowGuard } from './guards';
import { ProcessorList, standardProcessors } from './processors';
import { DecodeHooks, Hypothesis, StepModel, YieldClock } from './types';

export interface TopKOptions {
  bos: number;
  eos: number;
  maxLength: number;
  k: number;
  temperature: number;
  seed: number;
  minLength?: number;
  noRepeatNgramSize?: number;
  banned?: number[];
  /** The decoding guards (guards.ts): the k best tokens they allow are sampled from. */
  guard?: RowGuard;
  /**
   * False while the text may not end yet (the caller's minimum, e.g. a length in words): the end
   * token is never drawn before (as generate() libraries' min_new_tokens).
   */
  mayEnd?: (tokens: readonly number[]) => boolean;
  /**
   * The caller's own end, checked after each sampled token: true when the text was complete
   * WITHOUT that token (a length in words reached, and the token starts the next word). The token
   * is dropped and sampling stops, as at the end token.
   */
  endsBefore?: (tokens: readonly number[]) => boolean;
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

/** Draws one index from the k best of `row` (log-probs) at temperature T. */
export function sampleTopK(row: Float32Array, k: number, temperature: number, random: () => number): number {
  const idx = topK(row, k);
  if (idx.length === 0) return -1;
  const t = Math.max(temperature, 1e-4);
  const top = row[idx[0]];
  const weights = idx.map((i) => Math.exp((row[i] - top) / t));
  const total = weights.reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (let j = 0; j < idx.length; j++) {
    r -= weights[j];
    if (r <= 0) return idx[j];
  }
  return idx[idx.length - 1];
}

export async function topKSample<S>(
  model: StepModel<S>,
  state: S,
  opts: TopKOptions,
  hooks: DecodeHooks = {},
): Promise<Hypothesis> {
  const random = seededRandom(opts.seed);
  const tokens: number[] = [];
  // The guard leaves k allowed: the k best are sampled from.
  const processors = new ProcessorList(standardProcessors(opts));
  const clock = hooks.clock ?? new YieldClock();
  let logProb = 0;
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const out = await model.step([tokens.length ? tokens[tokens.length - 1] : opts.bos], state);
    state = out.state;
    const row = out.logProbs.subarray(0, model.vocabSize);
    processors.apply(row, { tokens }, opts.k);
    const t = sampleTopK(row, opts.k, opts.temperature, random);
    if (t < 0 || t === opts.eos) break;
    tokens.push(t);
    if (opts.endsBefore?.(tokens)) {
      tokens.pop();
      break;
    }
    logProb += row[t];
    hooks.onStep?.(step, tokens);
    await clock.yield();
  }
  // Every step added a token, none was the end token (nor the caller's end): cut off at the limit.
  return { tokens, logProb, score: logProb, steps: tokens.length, hitMaxLength: tokens.length >= opts.maxLength };
}
