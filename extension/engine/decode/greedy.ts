/** Greedy decoding: the most probable token at every step (the paragraph autoencoder's paper decodes so). */
import { topK } from './constraints';
import type { RowGuard } from './guards';
import { ProcessorList, standardProcessors } from './processors';
import { DecodeHooks, Hypothesis, StepModel, YieldClock } from './types';

export interface GreedyOptions {
  bos: number;
  eos: number;
  maxLength: number;
  minLength?: number;
  noRepeatNgramSize?: number;
  banned?: number[];
  /** The decoding guards (guards.ts); none when absent. */
  guard?: RowGuard;
}

/** `state` holds one row. */
export async function greedy<S>(
  model: StepModel<S>,
  state: S,
  opts: GreedyOptions,
  hooks: DecodeHooks = {},
): Promise<Hypothesis> {
  const tokens: number[] = [];
  const processors = new ProcessorList(standardProcessors(opts));
  const clock = hooks.clock ?? new YieldClock();
  let logProb = 0;
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const out = await model.step([tokens.length ? tokens[tokens.length - 1] : opts.bos], state);
    state = out.state;
    const row = out.logProbs.subarray(0, model.vocabSize);
    processors.apply(row, { tokens }, 1);
    const [t] = topK(row, 1);
    if (t === undefined) break;
    logProb += row[t];
    if (t === opts.eos) break;
    tokens.push(t);
    hooks.onStep?.(step, tokens);
    await clock.yield();
  }
  // Every step added a token, none was the end token: cut off at the limit.
  return { tokens, logProb, score: logProb, steps: tokens.length, hitMaxLength: tokens.length >= opts.maxLength };
}
