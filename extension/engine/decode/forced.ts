/**
 * Teacher forcing: feed a given target through a StepModel and read off the log-probability the
 * model gave each of its tokens (and the end token). This is how a system fills in the
 * LikelihoodModel of metrics/perplexity.ts, for perplexity and prompt ranking.
 */
import { YieldClock, type DecodeHooks, type StepModel } from './types';

/**
 * `state` holds one row. Returns log p(target_t | target_<t, context) for every target token, then for
 * `eos`; with `eos` null (a target cut at the model's length) the last token is scored but not fed,
 * so the model needs one position fewer.
 */
export async function forcedLogProbs<S>(
  model: StepModel<S>,
  state: S,
  bos: number,
  target: readonly number[],
  eos: number | null,
  hooks: DecodeHooks = {},
): Promise<number[]> {
  const out: number[] = [];
  let previous = bos;
  // A turn of the event loop now and then, so that a worker sees a cancel between steps.
  const clock = hooks.clock ?? new YieldClock();
  for (const next of eos === null ? target : [...target, eos]) {
    await clock.yield();
    hooks.checkCancelled?.();
    const r = await model.step([previous], state);
    state = r.state;
    out.push(r.logProbs[next]);
    previous = next;
  }
  return out;
}
