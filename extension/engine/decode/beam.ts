/**
 * Beam search with a length penalty (score = log P / |y|^α, as fairseq and HF rank hypotheses),
 * a minimum length, and n-gram blocking. Rows of the model state are beams; after each step the
 * model's caches are reordered to follow the surviving beams.
 */
import { applyConstraints, topK } from './constraints';
import { DecodeHooks, Hypothesis, StepModel, yieldToEventLoop } from './types';

export interface BeamOptions {
  bos: number;
  eos: number;
  beamSize: number;
  maxLength: number;
  minLength: number;
  lengthPenalty: number;
  noRepeatNgramSize: number;
  /** Never generated (e.g. pad, unk, mask). */
  banned?: number[];
}

interface Beam { tokens: number[]; logProb: number }

/** The length-normalised score that ranks hypotheses. */
export const normalised = (logProb: number, length: number, alpha: number) => logProb / Math.pow(Math.max(1, length), alpha);

/** One step for every live beam; the model always runs K rows (at step 0 only the first beam exists, the others are padding). */
export function stepBeams<S>(model: StepModel<S>, beams: readonly { tokens: number[] }[], K: number, bos: number, state: S) {
  const last = beams.map((b) => (b.tokens.length ? b.tokens[b.tokens.length - 1] : bos));
  while (last.length < K) last.push(bos);
  return model.step(last, state);
}

/** The cached state follows the surviving beams; rows beyond them repeat the first. */
export function reorderBeams<S>(model: StepModel<S>, state: S, order: number[], K: number): S {
  const rows = [...order];
  while (rows.length < K) rows.push(rows[0]);
  return model.reorder(state, rows);
}

/** `state` must already hold `beamSize` rows (the source tiled), all at the start position. */
export async function beamSearch<S>(model: StepModel<S>, state: S, opts: BeamOptions, hooks: DecodeHooks = {}): Promise<Hypothesis[]> {
  const K = opts.beamSize;
  const V = model.vocabSize;
  let beams: Beam[] = [{ tokens: [], logProb: 0 }];
  const finished: Hypothesis[] = [];
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const rows = beams.length;
    const out = await stepBeams(model, beams, K, opts.bos, state);
    state = out.state;
    const candidates: { beam: number; token: number; logProb: number }[] = [];
    for (let b = 0; b < rows; b++) {
      const row = out.logProbs.subarray(b * V, (b + 1) * V);
      applyConstraints(row, beams[b].tokens, { eos: opts.eos, minLength: opts.minLength, noRepeatNgramSize: opts.noRepeatNgramSize, banned: opts.banned });
      for (const t of topK(row, 2 * K)) candidates.push({ beam: b, token: t, logProb: beams[b].logProb + row[t] });
    }
    candidates.sort((a, b) => b.logProb - a.logProb);
    const next: Beam[] = [];
    const order: number[] = [];
    for (const c of candidates) {
      const tokens = [...beams[c.beam].tokens, c.token];
      if (c.token === opts.eos) {
        finished.push({ tokens: tokens.slice(0, -1), logProb: c.logProb, score: normalised(c.logProb, tokens.length, opts.lengthPenalty), steps: step + 1, hitMaxLength: false });
      } else {
        next.push({ tokens, logProb: c.logProb });
        order.push(c.beam);
      }
      if (next.length === K) break;
    }
    if (next.length === 0) break;
    beams = next;
    state = reorderBeams(model, state, order, K);
    hooks.onStep?.(step, beams[0].tokens);
    // Stop when no live beam can still beat the K-th best finished one (HF's early_stopping=False rule).
    if (finished.length >= K) {
      const worst = [...finished].sort((a, b) => b.score - a.score)[K - 1].score;
      if (normalised(beams[0].logProb, beams[0].tokens.length, opts.lengthPenalty) < worst) break;
    }
    await yieldToEventLoop();
  }
  // Live beams only make up the numbers when too few ended; one as long as maxLength was cut off there.
  for (const b of beams) {
    if (finished.length >= K) break;
    finished.push({
      tokens: b.tokens, logProb: b.logProb, score: normalised(b.logProb, b.tokens.length, opts.lengthPenalty), steps: b.tokens.length,
      hitMaxLength: b.tokens.length >= opts.maxLength,
    });
  }
  return finished.sort((a, b) => b.score - a.score);
}
