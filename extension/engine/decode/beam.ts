/**
 * Beam search with a length penalty (score = log P / |y|^α, as fairseq and HF rank hypotheses),
 * a minimum length, and n-gram blocking. Rows of the model state are beams; after each step the
 * model's caches are reordered to follow the surviving beams. A model whose graph ranks each row's
 * best tokens (StepModel.stepTop) is read through those; otherwise every row is scanned.
 */
import { applyConstraints, bannedTokens, maskDisallowed, topK, topKOfCandidates } from './constraints';
import type { RowGuard } from './guards';
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
  /** The decoding guards (guards.ts); none when absent. */
  guard?: RowGuard;
}

interface Beam { tokens: number[]; logProb: number }

/** The length-normalised score that ranks hypotheses. */
export const normalised = (logProb: number, length: number, alpha: number) => logProb / Math.pow(Math.max(1, length), alpha);

/** The token each row feeds next; the model always runs K rows (at step 0 only the first beam exists, the others are padding). */
function lastTokens(beams: readonly { tokens: number[] }[], K: number, bos: number): number[] {
  const last = beams.map((b) => (b.tokens.length ? b.tokens[b.tokens.length - 1] : bos));
  while (last.length < K) last.push(bos);
  return last;
}

/** One step for every live beam, as full rows of log-probs. */
export function stepBeams<S>(model: StepModel<S>, beams: readonly { tokens: number[] }[], K: number, bos: number, state: S) {
  return model.step(lastTokens(beams, K, bos), state);
}

/** The cached state follows the surviving beams; rows beyond them repeat the first. */
export function reorderBeams<S>(model: StepModel<S>, state: S, order: number[], K: number): S {
  const rows = [...order];
  while (rows.length < K) rows.push(rows[0]);
  return model.reorder(state, rows);
}

/**
 * The rows the next beams take in the model state, given best first with their parents' rows: a
 * parent's best child keeps the parent's row and its other children take the rows of parents that
 * have none, so the caches mostly stay where they are (the reorder then copies only forks, in
 * place). Returns the beams in row order and each row's parent row.
 */
export function assignRows<B>(next: readonly B[], parents: readonly number[]): { beams: B[]; order: number[] } {
  const n = next.length;
  const slot = new Array<number>(n).fill(-1);
  const taken = new Array<boolean>(n).fill(false);
  parents.forEach((p, j) => {
    if (p < n && !taken[p]) { slot[j] = p; taken[p] = true; }
  });
  const beams = new Array<B>(n);
  const order = new Array<number>(n);
  let free = 0;
  for (let j = 0; j < n; j++) {
    if (slot[j] < 0) {
      while (taken[free]) free++;
      slot[j] = free;
      taken[free] = true;
    }
    beams[slot[j]] = next[j];
    order[slot[j]] = parents[j];
  }
  return { beams, order };
}

/** `state` must already hold `beamSize` rows (the source tiled), all at the start position. */
export async function beamSearch<S>(model: StepModel<S>, state: S, opts: BeamOptions, hooks: DecodeHooks = {}): Promise<Hypothesis[]> {
  const K = opts.beamSize;
  const V = model.vocabSize;
  /** The live beams in their rows of the model state, and the same best first. */
  let beams: Beam[] = [{ tokens: [], logProb: 0 }];
  let ranked = beams;
  const finished: Hypothesis[] = [];
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const rows = beams.length;
    const constraints = { eos: opts.eos, minLength: opts.minLength, noRepeatNgramSize: opts.noRepeatNgramSize, banned: opts.banned, guard: opts.guard };
    /** Each live row's 2K best allowed next tokens, in row order (which breaks ties in the sort below). */
    const perBeam: { beam: number; token: number; logProb: number }[][] = beams.map(() => []);
    const fromRows = (logProbs: Float32Array, which: number[]) => {
      for (const b of which) {
        const row = logProbs.subarray(b * V, (b + 1) * V);
        applyConstraints(row, beams[b].tokens, constraints);
        if (opts.guard) maskDisallowed(row, 2 * K, opts.guard.forRow(beams[b].tokens));
        for (const t of topK(row, 2 * K)) perBeam[b].push({ beam: b, token: t, logProb: beams[b].logProb + row[t] });
      }
    };
    if (model.stepTop) {
      const last = lastTokens(beams, K, opts.bos);
      const out = await model.stepTop(last, state);
      const { ids, logProbs, perRow } = out.top;
      const short: number[] = [];
      for (let b = 0; b < rows; b++) {
        // With a guard, K allowed of the row's ranked candidates will do: the beam needs K in all.
        const at = topKOfCandidates(ids, logProbs, b * perRow, perRow, 2 * K, bannedTokens(beams[b].tokens, constraints), V, opts.guard?.forRow(beams[b].tokens), opts.guard ? K : 2 * K);
        if (at === null) short.push(b);
        else for (const i of at) perBeam[b].push({ beam: b, token: ids[i], logProb: beams[b].logProb + logProbs[i] });
      }
      // Constraints (or the guards) banned too many of a row's candidates: its whole row, from the same state.
      if (short.length > 0) fromRows((await model.step(last, state)).logProbs, short);
      state = out.state;
    } else {
      const out = await stepBeams(model, beams, K, opts.bos, state);
      fromRows(out.logProbs, beams.map((_, b) => b));
      state = out.state;
    }
    const candidates = perBeam.flat();
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
    ranked = next;
    const placed = assignRows(next, order);
    beams = placed.beams;
    state = reorderBeams(model, state, placed.order, K);
    const best = ranked[0];
    hooks.onStep?.(step, best.tokens);
    // Stop when no live beam can still beat the K-th best finished one (HF's early_stopping=False rule).
    if (finished.length >= K) {
      const worst = [...finished].sort((a, b) => b.score - a.score)[K - 1].score;
      if (normalised(best.logProb, best.tokens.length, opts.lengthPenalty) < worst) break;
    }
    await yieldToEventLoop();
  }
  // Live beams only make up the numbers when too few ended; one as long as maxLength was cut off there.
  for (const b of ranked) {
    if (finished.length >= K) break;
    finished.push({
      tokens: b.tokens, logProb: b.logProb, score: normalised(b.logProb, b.tokens.length, opts.lengthPenalty), steps: b.tokens.length,
      hitMaxLength: b.tokens.length >= opts.maxLength,
    });
  }
  return finished.sort((a, b) => b.score - a.score);
}
