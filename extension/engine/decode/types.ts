/**
 * What every decoding strategy drives: a model that, given the last token of each row, returns
 * log-probabilities over the vocabulary for every row, and can reorder its cached state when beams
 * are re-ranked. Systems implement this over their ONNX decoders; strategies never see tensors.
 */
export interface StepModel<S> {
  readonly vocabSize: number;
  /**
   * tokens: one per row. Returns log-probs [rows * vocabSize] and the advanced state. The log-probs are
   * the caller's: strategies write their constraints into them in place.
   */
  step(tokens: number[], state: S): Promise<{ logProbs: Float32Array; state: S }>;
  /** New state whose row j is old row rows[j]; the old state is not used again (it may be changed in place). */
  reorder(state: S, rows: number[]): S;
  /**
   * The same step, returning each row's best `perRow` tokens (best first, the lower id first among
   * equals) instead of the whole vocabulary, where the graph computes them (a TopK node): beam
   * search then reads a few dozen entries per row, not 8,000. `step` must still work on the same
   * state: beam search falls back to it when constraints ban too many of a row's candidates.
   */
  stepTop?(tokens: number[], state: S): Promise<{ top: TopCandidates; state: S }>;
  /**
   * Each row's best candidates (at least `want`, best first, the lower id first among equals) where
   * the runtime ranks them itself (llama.cpp's top-k sampler): the log-probs are exact up to a
   * constant per row (normalised over the candidates, not the vocabulary), which is all that a
   * strategy picking within one row needs (greedy, top-k sampling), not one that compares rows (beam
   * search reads stepTop). No token outside a row's candidates ranks above any of them. `step` must
   * still work on the same state: the loop falls back to it when the candidates cannot answer.
   */
  stepRanked?(tokens: number[], state: S, want: number): Promise<{ top: TopCandidates; state: S }>;
}

export interface TopCandidates {
  perRow: number;
  /** [rows * perRow] */
  ids: ArrayLike<number>;
  /** [rows * perRow] */
  logProbs: Float32Array;
  /**
   * [rows] Where a row's end token is not among its candidates because the runtime could not tell its
   * log-prob (other end tokens are folded into it), the most it can be; -Infinity elsewhere. A strategy
   * that may end the row trusts the candidates only above it.
   */
  endAtMost?: Float32Array;
}

export interface DecodeHooks {
  /** Called after every step with the best hypothesis so far (ids without BOS). */
  onStep?: (step: number, best: number[]) => void;
  /** Checked between steps; throwing (e.g. CancelledError) stops decoding. */
  checkCancelled?: () => void;
  /**
   * The run's yield clock (its owner: the engine's run context), so that consecutive loops of one
   * run share the turns; a loop given none keeps its own.
   */
  clock?: YieldClock;
}

export interface Hypothesis {
  tokens: number[];
  /** Sum of log-probabilities. */
  logProb: number;
  /** The score the strategy ranked by (length-normalised for beam search). */
  score: number;
  /**
   * Decoding steps that produced it: one per token, plus the step that chose the end token where beam
   * search (beam.ts, constrainedBeam.ts) saw it end; greedy and top-k count the tokens only. A count,
   * not a per-token alignment; no system or metric reads it.
   */
  steps: number;
  /**
   * Decoding stopped because the hypothesis reached maxLength, not at an end-of-sequence token: the
   * text may stop mid-sentence, and the user is told which setting limits it.
   */
  hitMaxLength: boolean;
}

/** How long a decoding loop may run without giving the event loop a turn (a cancel waits at most this, plus a step). */
const YIELD_EVERY_MS = 8;

/**
 * Gives the event loop a turn so that a cancel message posted to the worker is seen mid-generation,
 * once per YIELD_EVERY_MS: a turn per step cost the small decoders a tenth of their step time. An
 * object its caller owns (one per run), not module state, so two runs never share a clock.
 */
export class YieldClock {
  private last = 0;

  constructor(private readonly everyMs = YIELD_EVERY_MS) {}

  /** A promise to await when a turn is due, else undefined (awaiting undefined costs a microtask only). */
  yield(): Promise<void> | undefined {
    const now = performance.now();
    if (now - this.last < this.everyMs) return undefined;
    this.last = now;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
