/**
 * Beam search with a length penalty (score = log P / |y|^α, as fairseq and HF rank hypotheses),
 * a minimum length, and n-gram blocking. Rows of the model state are beams; after each step the
 * model's caches are reordered to follow the surviving beams. A model whose graph ranks each row's
 * best tokens (StepModel.stepTop) is read through those; otherwise every row is scanned.
 *
 * The loop (searchLoop) is shared by every beam strategy (fairseq's Search classes): plain beam
 * search here, lexically constrained beam search in constrainedBeam.ts. The loop steps the model,
 * runs the rows through the processor list (processors.ts) and hands each row's scores to the
 * strategy, which picks the candidates and the next beams.
 */
import { topK } from './constraints';
import { trimUnfinishedWord, type RowGuard } from './guards';
import { ProcessorList, standardProcessors, type Row } from './processors';
import { DecodeHooks, Hypothesis, StepModel, YieldClock } from './types';

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

interface Beam {
  tokens: number[];
  logProb: number;
}

/** The length-normalised score that ranks hypotheses. */
export const normalised = (logProb: number, length: number, alpha: number) =>
  logProb / Math.pow(Math.max(1, length), alpha);

/**
 * The token each row feeds next; the model always runs K rows (at step 0 only the first beam exists,
 * the others are padding).
 */
function lastTokens(beams: readonly { tokens: number[] }[], K: number, bos: number): number[] {
  const last = beams.map((b) => (b.tokens.length ? b.tokens[b.tokens.length - 1] : bos));
  while (last.length < K) last.push(bos);
  return last;
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
    if (p < n && !taken[p]) {
      slot[j] = p;
      taken[p] = true;
    }
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

/** One row's scores as the processors left them, as a strategy reads them. */
export interface RowScores {
  /** The row's best tokens (as many as the strategy's width, fewer where none are left), best first. */
  best: readonly { token: number; logProb: number }[];
  /**
   * Any token's log-probability after the processors; undefined where a graph's ranked candidates
   * do not hold it (the loop then reads the row whole).
   */
  logProb(token: number): number | undefined;
  /** The processors' predicate for this row (the guards), undefined when none asks. */
  allowed: ((token: number) => boolean) | undefined;
}

/** A live beam: its tokens and their summed log-probability; strategies may carry more. */
export interface BeamRow extends Row {
  readonly tokens: number[];
  readonly logProb: number;
}

/** A search strategy of the shared loop (fairseq's Search): what it reads of each row and how it picks. */
export interface SearchStrategy<B extends BeamRow, C, H extends Hypothesis> {
  readonly processors: ProcessorList<B>;
  /** How many of each row's best tokens it reads: the guard leaves that many allowed. */
  readonly width: number;
  /** With a guard, this many allowed among a graph's ranked candidates will do before the row is read whole. */
  readonly enough: number;
  /**
   * A row whose every candidate the guard refuses is dropped (the other rows go on), never written
   * unconstrained: a refused name or number would otherwise be the model's own choice there.
   */
  readonly dropRefused?: boolean;
  readonly start: B;
  /** Row b's candidates, or null when its scores cannot answer (a token it wants is not among a graph's candidates). */
  candidates(beam: B, b: number, scores: RowScores): C[] | null;
  /** The next live beams, best first, and their parents' rows; hypotheses that ended go to `finished`. */
  select(perRow: C[][], beams: readonly B[], step: number, finished: H[]): { next: B[]; order: number[] };
  /** The beam shown as the best so far (onStep). */
  shown(ranked: readonly B[]): B;
  /** No live beam can still beat the finished ones: stop. */
  settled(beams: readonly B[], ranked: readonly B[], finished: readonly H[]): boolean;
  /** The result, best first: the finished, and the live where too few ended. */
  finish(ranked: readonly B[], finished: H[]): H[];
}

/**
 * The one beam loop. `state` must already hold `beamSize` rows (the source tiled), all at the
 * start position.
 */
export async function searchLoop<S, B extends BeamRow, C, H extends Hypothesis>(
  model: StepModel<S>,
  state: S,
  strategy: SearchStrategy<B, C, H>,
  opts: { bos: number; beamSize: number; maxLength: number },
  hooks: DecodeHooks = {},
): Promise<H[]> {
  const K = opts.beamSize;
  const V = model.vocabSize;
  const { processors, width } = strategy;
  const clock = hooks.clock ?? new YieldClock();
  /** The live beams in their rows of the model state, and the same in the order the strategy ranked them. */
  let beams: B[] = [strategy.start];
  let ranked: readonly B[] = beams;
  const finished: H[] = [];
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const rows = beams.length;
    const perRow: C[][] = new Array(rows);
    const fromRows = (logProbs: Float32Array, which: number[]) => {
      for (const b of which) {
        const row = logProbs.subarray(b * V, (b + 1) * V);
        const allowed = processors.apply(row, beams[b], width, !strategy.dropRefused);
        const best = topK(row, width).map((t) => ({ token: t, logProb: row[t] }));
        // A whole row answers every token: never null.
        perRow[b] = strategy.candidates(beams[b], b, { best, logProb: (t) => row[t], allowed }) ?? [];
      }
    };
    const last = lastTokens(beams, K, opts.bos);
    if (model.stepTop) {
      const out = await model.stepTop(last, state);
      const { ids, logProbs, perRow: count } = out.top;
      const short: number[] = [];
      for (let b = 0; b < rows; b++) {
        const banned = processors.banned(beams[b]);
        const allowed = processors.allowed(beams[b]);
        const from = b * count;
        const at = processors.fromCandidates(
          beams[b],
          ids,
          logProbs,
          from,
          count,
          width,
          V,
          strategy.enough,
          banned,
          allowed,
        );
        const logProb = (t: number): number | undefined => {
          if (banned.has(t)) return -Infinity;
          for (let i = from; i < from + count; i++) if (ids[i] === t) return logProbs[i];
          // Outside the candidates: known only when they are the whole vocabulary (and then it is missing: -Infinity).
          return count >= V ? -Infinity : undefined;
        };
        const c =
          at &&
          strategy.candidates(beams[b], b, {
            best: at.map((i) => ({ token: ids[i], logProb: logProbs[i] })),
            logProb,
            allowed,
          });
        if (c) perRow[b] = c;
        else short.push(b);
      }
      // The processors banned too many of a row's candidates, or the strategy wants a token beyond
      // them: its whole row, from the same state.
      if (short.length > 0) fromRows((await model.step(last, state)).logProbs, short);
      state = out.state;
    } else {
      const out = await model.step(last, state);
      fromRows(
        out.logProbs,
        beams.map((_, b) => b),
      );
      state = out.state;
    }
    const { next, order } = strategy.select(perRow, beams, step, finished);
    if (next.length === 0) break;
    ranked = next;
    const placed = assignRows(next, order);
    beams = placed.beams;
    state = reorderBeams(model, state, placed.order, K);
    hooks.onStep?.(step, strategy.shown(ranked).tokens);
    if (strategy.settled(beams, ranked, finished)) break;
    await clock.yield();
  }
  return strategy.finish(ranked, finished);
}

interface Candidate {
  beam: number;
  token: number;
  logProb: number;
}

/** Plain beam search as a strategy: each row's 2K best tokens, the K best of all live. */
export function beamStrategy(opts: BeamOptions): SearchStrategy<Beam, Candidate, Hypothesis> {
  const K = opts.beamSize;
  return {
    processors: new ProcessorList<Beam>(standardProcessors(opts)),
    width: 2 * K,
    // With a guard, K allowed of the row's ranked candidates will do: the beam needs K in all.
    enough: K,
    dropRefused: true,
    start: { tokens: [], logProb: 0 },
    candidates: (beam, b, scores) =>
      scores.best.map((c) => ({ beam: b, token: c.token, logProb: beam.logProb + c.logProb })),
    select(perRow, beams, step, finished) {
      // Row order breaks ties (a stable sort).
      const candidates = perRow.flat();
      candidates.sort((a, b) => b.logProb - a.logProb);
      const next: Beam[] = [];
      const order: number[] = [];
      for (const c of candidates) {
        const tokens = [...beams[c.beam].tokens, c.token];
        if (c.token === opts.eos) {
          finished.push({
            tokens: tokens.slice(0, -1),
            logProb: c.logProb,
            score: normalised(c.logProb, tokens.length, opts.lengthPenalty),
            steps: step + 1,
            hitMaxLength: false,
          });
        } else {
          next.push({ tokens, logProb: c.logProb });
          order.push(c.beam);
        }
        if (next.length === K) break;
      }
      return { next, order };
    },
    shown: (ranked) => ranked[0],
    // No live beam can still beat the K-th best finished one (HF's early_stopping=False rule).
    settled(_beams, ranked, finished) {
      if (finished.length < K) return false;
      const worst = [...finished].sort((a, b) => b.score - a.score)[K - 1].score;
      return normalised(ranked[0].logProb, ranked[0].tokens.length, opts.lengthPenalty) < worst;
    },
    finish(ranked, finished) {
      // Live beams only make up the numbers when too few ended; one as long as maxLength was cut off there.
      // Without the word it was in the middle of ("… bosto"): a beam whose rows were all refused stops mid-word.
      for (const b of ranked) {
        if (finished.length >= K) break;
        finished.push({
          tokens: opts.guard ? trimUnfinishedWord(b.tokens, opts.guard) : b.tokens,
          logProb: b.logProb,
          score: normalised(b.logProb, b.tokens.length, opts.lengthPenalty),
          steps: b.tokens.length,
          hitMaxLength: b.tokens.length >= opts.maxLength,
        });
      }
      return finished.sort((a, b) => b.score - a.score);
    },
  };
}

/** `state` must already hold `beamSize` rows (the source tiled), all at the start position. */
export function beamSearch<S>(
  model: StepModel<S>,
  state: S,
  opts: BeamOptions,
  hooks: DecodeHooks = {},
): Promise<Hypothesis[]> {
  return searchLoop(model, state, beamStrategy(opts), opts, hooks);
}
