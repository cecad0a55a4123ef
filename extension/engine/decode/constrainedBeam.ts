/**
 * Lexically constrained beam search with dynamic beam allocation (Post & Vilar 2018, "Fast
 * Lexically Constrained Decoding with Dynamic Beam Allocation"; Sockeye's reference
 * implementation). Every constraint is a word that must appear in the output, given as one or more
 * token spellings (e.g. "frog" and "Frog"). Hypotheses are grouped into banks by how many
 * constraint tokens they have produced, the beam is shared out between the banks, and a
 * hypothesis may end only once every constraint is met. The model scores every token; the search
 * only makes sure that hypotheses which have written the words stay in the beam.
 *
 * A strategy of beam.ts's loop (searchLoop): the same processors (processors.ts) and the same TopK
 * fast path, where a graph's ranked candidates hold the tokens the constraints want; the "end only
 * once every word is met" rule is one more processor.
 */
import { BeamOptions, normalised, searchLoop, type SearchStrategy } from './beam';
import { ProcessorList, standardProcessors, wordGuard, type ScoreProcessor } from './processors';
import { DecodeHooks, Hypothesis, StepModel } from './types';

/** One required word: its alternative spellings as token sequences. */
export type Constraint = number[][];

export interface ConstrainedHypothesis extends Hypothesis {
  /** Indices of the constraints the hypothesis contains. */
  met: number[];
}

/** Progress through the constraints: which are met, and the one being spelled (if any). */
export interface Progress {
  met: readonly boolean[];
  /** The constraint being spelled, the spelling, and how many of its tokens are written; when all
   * are, the word still waits for a token that ends it (else "frog" would be met by "frogese"). */
  current?: { c: number; alt: number; pos: number };
}

interface Beam {
  tokens: number[];
  logProb: number;
  progress: Progress;
}
interface Candidate {
  beam: number;
  token: number;
  logProb: number;
  progress: Progress;
}

/** Constraint tokens produced so far: the bank a hypothesis belongs to (paper §3). */
function bankOf(p: Progress, constraints: readonly Constraint[]): number {
  let n = 0;
  p.met.forEach((m, c) => {
    if (m) n += Math.min(...constraints[c].map((s) => s.length));
  });
  return n + (p.current?.pos ?? 0);
}

const meet = (met: readonly boolean[], c: number) => met.map((m, i) => m || i === c);

/**
 * The progress after writing `token`. A spelling abandoned half-way, or followed by a piece that
 * continues the word, leaves its word unmet. `endsWord(token)`: the token starts a new word or is
 * punctuation (or the end of the text).
 */
export function advance(
  p: Progress,
  token: number,
  constraints: readonly Constraint[],
  endsWord: (token: number) => boolean,
): Progress {
  let met = p.met;
  if (p.current) {
    const { c, alt, pos } = p.current;
    const spelling = constraints[c][alt];
    if (pos === spelling.length) {
      if (endsWord(token)) met = meet(met, c);
    } else if (spelling[pos] === token) {
      return { met, current: { c, alt, pos: pos + 1 } };
    }
  }
  for (let c = 0; c < constraints.length; c++) {
    if (met[c]) continue;
    for (let alt = 0; alt < constraints[c].length; alt++) {
      if (constraints[c][alt][0] === token) return { met, current: { c, alt, pos: 1 } };
    }
  }
  return { met };
}

/** The tokens that would make progress: the next token of the word being spelled, else the first of each unmet word. */
function wanted(p: Progress, constraints: readonly Constraint[]): number[] {
  if (p.current) {
    const spelling = constraints[p.current.c][p.current.alt];
    return p.current.pos < spelling.length ? [spelling[p.current.pos]] : [];
  }
  const out: number[] = [];
  constraints.forEach((spellings, c) => {
    if (!p.met[c]) for (const s of spellings) out.push(s[0]);
  });
  return out;
}

export interface ConstrainedOptions extends BeamOptions {
  /** Whether a token ends the word before it (a word start or punctuation); the end token always does. */
  endsWord: (token: number) => boolean;
}

/** The end token waits until every constraint is met (the end of the text ends a word still being spelled). */
export function lexicalConstraints(
  constraints: readonly Constraint[],
  eos: number,
  endsWord: (token: number) => boolean,
): ScoreProcessor<{ tokens: readonly number[]; progress: Progress }> {
  return {
    name: 'lexical-constraints',
    ban: (row, out) => {
      if (!advance(row.progress, eos, constraints, endsWord).met.every(Boolean)) out.add(eos);
    },
  };
}

/** Constrained beam search as a strategy of the shared loop. */
export function constrainedStrategy(
  constraints: readonly Constraint[],
  opts: ConstrainedOptions,
): SearchStrategy<Beam, Candidate, ConstrainedHypothesis> {
  const K = opts.beamSize;
  const endsWord = (t: number) => t === opts.eos || opts.endsWord(t);
  // A word with no spelling (nothing to write) counts as met, so it cannot forbid the end forever.
  const usable = constraints.map((c) => c.filter((s) => s.length > 0));
  // ended: on the end token (scored with it, as beam.ts does); else cut off where it stands.
  const done = (
    progress: Progress,
    logProb: number,
    tokens: number[],
    ended: boolean,
    steps = tokens.length,
  ): ConstrainedHypothesis => ({
    tokens,
    logProb,
    score: normalised(logProb, tokens.length + (ended ? 1 : 0), opts.lengthPenalty),
    steps,
    hitMaxLength: !ended && tokens.length >= opts.maxLength,
    // The end of the text ends a word still being spelled.
    met: advance(progress, opts.eos, usable, endsWord).met.flatMap((m, i) => (m ? [i] : [])),
  });
  // The word-level guard comes last, as in every list: it is asked only about what the bans leave.
  const processors: ScoreProcessor<Beam>[] = [
    ...standardProcessors({ ...opts, guard: undefined }),
    lexicalConstraints(usable, opts.eos, endsWord),
    ...(opts.guard ? [wordGuard(opts.guard)] : []),
  ];
  return {
    processors: new ProcessorList(processors),
    width: K,
    enough: K,
    start: { tokens: [], logProb: 0, progress: { met: usable.map((c) => c.length === 0) } },
    // Candidates (paper §3, "candidate generation"): each beam's own best K tokens and the tokens
    // that advance its constraints.
    candidates(beam, b, scores) {
      const out: Candidate[] = [];
      const seen = new Set<number>();
      const p = beam.progress;
      const take = (t: number, logProb: number) => {
        if (logProb === -Infinity || Number.isNaN(logProb) || seen.has(t)) return;
        if (scores.allowed && !scores.allowed(t)) return;
        seen.add(t);
        out.push({ beam: b, token: t, logProb: beam.logProb + logProb, progress: advance(p, t, usable, endsWord) });
      };
      for (const c of scores.best) take(c.token, c.logProb);
      for (const t of wanted(p, usable)) {
        const logProb = scores.logProb(t);
        if (logProb === undefined) return null;
        take(t, logProb);
      }
      return out;
    },
    // Beam allocation (paper §3): the banks take turns, fullest first, each taking its best
    // remaining candidate, so that a bank left short gives its places to the others.
    select(perRow, beams, step, finished) {
      const byBank = new Map<number, Candidate[]>();
      for (const row of perRow) {
        for (const c of row) {
          const bank = bankOf(c.progress, usable);
          if (!byBank.has(bank)) byBank.set(bank, []);
          byBank.get(bank)!.push(c);
        }
      }
      const banks = [...byBank.keys()]
        .sort((a, b) => b - a)
        .map((k) => byBank.get(k)!.sort((x, y) => y.logProb - x.logProb));
      const next: Beam[] = [];
      const order: number[] = [];
      const cursor = banks.map(() => 0);
      for (let taken = true; next.length < K && taken;) {
        taken = false;
        for (let i = 0; i < banks.length && next.length < K; i++) {
          const c = banks[i][cursor[i]++];
          if (!c) continue;
          taken = true;
          const tokens = [...beams[c.beam].tokens, c.token];
          if (c.token === opts.eos) {
            finished.push(done(c.progress, c.logProb, tokens.slice(0, -1), true, step + 1));
            continue;
          }
          next.push({ tokens, logProb: c.logProb, progress: c.progress });
          order.push(c.beam);
        }
      }
      return { next, order };
    },
    shown: (ranked) => ranked.reduce((a, b) => (bankOf(b.progress, usable) > bankOf(a.progress, usable) ? b : a)),
    // No live hypothesis can still beat the K-th best finished one (as in beam.ts).
    settled(beams, _ranked, finished) {
      if (finished.length < K) return false;
      const worst = [...finished].sort((a, b) => b.score - a.score)[K - 1].score;
      return beams.every((b) => normalised(b.logProb, b.tokens.length, opts.lengthPenalty) < worst);
    },
    // Out of length: the live hypotheses that met the most constraints stand in, best first.
    finish(ranked, finished) {
      const live = ranked.map((b) => done(b.progress, b.logProb, b.tokens, false));
      const all = finished.length >= K ? finished : [...finished, ...live];
      return all.sort((a, b) => b.met.length - a.met.length || b.score - a.score);
    },
  };
}

/** `state` must already hold `beamSize` rows (the source tiled), all at the start position. */
export function constrainedBeamSearch<S>(
  model: StepModel<S>,
  state: S,
  constraints: readonly Constraint[],
  opts: ConstrainedOptions,
  hooks: DecodeHooks = {},
): Promise<ConstrainedHypothesis[]> {
  return searchLoop(model, state, constrainedStrategy(constraints, opts), opts, hooks);
}
