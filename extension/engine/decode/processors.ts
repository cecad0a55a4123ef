/**
 * The steps that change a row's scores before a strategy picks from it, as one ordered list
 * (transformers.js's LogitsProcessorList; fairseq folds the same rules into its Search classes).
 * Every decoding loop (greedy, top-k, beam, constrained beam) applies the same list, so a rule is
 * written once and a strategy never re-implements one.
 *
 * A processor does one or both of:
 * - ban: name the tokens a row may not take next (banned ids, min length, n-gram blocking, an end
 *   held back until the lexical constraints are met). A set, so the beam's TopK fast path can
 *   skip them among a graph's ranked candidates without the whole row.
 * - allow: a predicate asked only about the candidates a strategy reads (the word-level guards,
 *   guards.ts): asking it about 8,000 tokens per row would cost more than the model step.
 * The bans are applied first, in list order, then the predicates: a predicate is asked only about
 * tokens that no ban removed.
 */
import { bannedByNgram, maskDisallowed, topKOfCandidates } from './constraints';
import type { RowGuard } from './guards';

/** What a processor sees of a row: its tokens so far (without BOS); strategies may carry more (constrainedBeam.ts). */
export interface Row {
  readonly tokens: readonly number[];
}

export interface ScoreProcessor<R extends Row = Row> {
  /** For messages and tests. */
  readonly name: string;
  /** Adds to `out` the tokens the row may not take next. */
  ban?(row: R, out: Set<number>): void;
  /** Whether the row may take a token, asked about candidates only; undefined: every token. */
  allow?(row: R): ((token: number) => boolean) | undefined;
}

/** Never written (pad, unk, BOS, the mask): the same ids at every step. */
export function bannedIds(ids: readonly number[]): ScoreProcessor {
  return {
    name: 'banned-ids',
    ban: (_row, out) => {
      for (const t of ids) out.add(t);
    },
  };
}

/** The end token waits until the row holds `minLength` tokens (fairseq/HF min_len). */
export function minLength(eos: number, length: number): ScoreProcessor {
  return {
    name: 'min-length',
    ban: (row, out) => {
      if (row.tokens.length < length) out.add(eos);
    },
  };
}

/** The end token waits until the caller's own rule says the text may end (a length in words; HF min_new_tokens). */
export function mayEnd(eos: number, may: (tokens: readonly number[]) => boolean): ScoreProcessor {
  return {
    name: 'may-end',
    ban: (row, out) => {
      if (!may(row.tokens)) out.add(eos);
    },
  };
}

/** No n-gram written twice (fairseq/HF no_repeat_ngram_size). */
export function noRepeatNgram(n: number): ScoreProcessor {
  return {
    name: 'no-repeat-ngram',
    ban: (row, out) => {
      for (const t of bannedByNgram(row.tokens as number[], n)) out.add(t);
    },
  };
}

/** The word-level guards (guards.ts), asked about candidates only. */
export function wordGuard(guard: RowGuard): ScoreProcessor {
  return { name: 'word-guard', allow: (row) => guard.forRow(row.tokens) };
}

/** The options every strategy shares that become processors. */
export interface ProcessorOptions {
  eos: number;
  minLength?: number;
  noRepeatNgramSize?: number;
  banned?: readonly number[];
  mayEnd?: (tokens: readonly number[]) => boolean;
  guard?: RowGuard;
}

/** The standard list, in the order it is applied; only the rules the options turn on. */
export function standardProcessors(o: ProcessorOptions): ScoreProcessor[] {
  const list: ScoreProcessor[] = [];
  if (o.banned && o.banned.length > 0) list.push(bannedIds(o.banned));
  if ((o.minLength ?? 0) > 0) list.push(minLength(o.eos, o.minLength ?? 0));
  if (o.mayEnd) list.push(mayEnd(o.eos, o.mayEnd));
  if ((o.noRepeatNgramSize ?? 0) > 0) list.push(noRepeatNgram(o.noRepeatNgramSize ?? 0));
  if (o.guard) list.push(wordGuard(o.guard));
  return list;
}

/** The processors of one decoding run, applied in order. */
export class ProcessorList<R extends Row = Row> {
  private readonly banners: ScoreProcessor<R>[];
  private readonly allowers: ScoreProcessor<R>[];

  constructor(readonly processors: readonly ScoreProcessor<R>[]) {
    this.banners = processors.filter((p) => p.ban);
    this.allowers = processors.filter((p) => p.allow);
  }

  /** Whether any processor asks about candidates (then a strategy cannot take a row's entries unasked). */
  get filters(): boolean {
    return this.allowers.length > 0;
  }

  /** The tokens the row may not take next: every processor's bans, in list order. */
  banned(row: R): Set<number> {
    const out = new Set<number>();
    for (const p of this.banners) p.ban!(row, out);
    return out;
  }

  /** Every predicate's answer together (all must allow), or undefined when none asks. */
  allowed(row: R): ((token: number) => boolean) | undefined {
    let all: ((token: number) => boolean) | undefined;
    for (const p of this.allowers) {
      const one = p.allow!(row);
      if (!one) continue;
      const before = all;
      all = before ? (t) => before(t) && one(t) : one;
    }
    return all;
  }

  /**
   * Applies the list to a whole row of log-probs in place: the bans to -Infinity, then the
   * predicates over the row's best entries until `k` are allowed (constraints.ts maskDisallowed).
   * Returns the predicate used, if any. `yieldWhenNone`: as maskDisallowed's (false: a row whose
   * every candidate is refused comes back all -Infinity).
   */
  apply(logProbs: Float32Array, row: R, k: number, yieldWhenNone = true): ((token: number) => boolean) | undefined {
    for (const t of this.banned(row)) logProbs[t] = -Infinity;
    const allowed = this.allowed(row);
    if (allowed) maskDisallowed(logProbs, k, allowed, yieldWhenNone);
    return allowed;
  }

  /**
   * The same from a graph's ranked candidates (ids[from..from+count), best first): the positions of
   * the row's `k` best allowed tokens, or null when the candidates run out first and the whole row
   * is needed (constraints.ts topKOfCandidates). `enough`: fewer will do where a predicate asks.
   */
  fromCandidates(
    row: R,
    ids: ArrayLike<number>,
    logProbs: ArrayLike<number>,
    from: number,
    count: number,
    k: number,
    vocabSize: number,
    enough: number,
    banned = this.banned(row),
    allowed = this.allowed(row),
  ): number[] | null {
    return topKOfCandidates(ids, logProbs, from, count, k, banned, vocabSize, allowed, allowed ? enough : k);
  }
}
