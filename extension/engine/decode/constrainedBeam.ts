/**
 * Lexically constrained beam search with dynamic beam allocation (Post & Vilar 2018, "Fast
 * Lexically Constrained Decoding with Dynamic Beam Allocation"; Sockeye's reference
 * implementation). Every constraint is a word that must appear in the output, given as one or more
 * token spellings (e.g. "frog" and "Frog"). Hypotheses are grouped into banks by how many
 * constraint tokens they have produced, the beam is shared out between the banks, and a
 * hypothesis may end only once every constraint is met. The model scores every token; the search
 * only makes sure that hypotheses which have written the words stay in the beam.
 */
import { applyConstraints, maskDisallowed, topK } from './constraints';
import { assignRows, BeamOptions, normalised, reorderBeams, stepBeams } from './beam';
import { DecodeHooks, Hypothesis, StepModel, yieldToEventLoop } from './types';

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

interface Beam { tokens: number[]; logProb: number; progress: Progress }

/** Constraint tokens produced so far: the bank a hypothesis belongs to (paper §3). */
function bankOf(p: Progress, constraints: readonly Constraint[]): number {
  let n = 0;
  p.met.forEach((m, c) => { if (m) n += Math.min(...constraints[c].map((s) => s.length)); });
  return n + (p.current?.pos ?? 0);
}

const meet = (met: readonly boolean[], c: number) => met.map((m, i) => m || i === c);

/**
 * The progress after writing `token`. A spelling abandoned half-way, or followed by a piece that
 * continues the word, leaves its word unmet. `endsWord(token)`: the token starts a new word or is
 * punctuation (or the end of the text).
 */
export function advance(p: Progress, token: number, constraints: readonly Constraint[], endsWord: (token: number) => boolean): Progress {
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
  constraints.forEach((spellings, c) => { if (!p.met[c]) for (const s of spellings) out.push(s[0]); });
  return out;
}

export interface ConstrainedOptions extends BeamOptions {
  /** Whether a token ends the word before it (a word start or punctuation); the end token always does. */
  endsWord: (token: number) => boolean;
}

/** `state` must already hold `beamSize` rows (the source tiled), all at the start position. */
export async function constrainedBeamSearch<S>(model: StepModel<S>, state: S, constraints: readonly Constraint[], opts: ConstrainedOptions,
  hooks: DecodeHooks = {}): Promise<ConstrainedHypothesis[]> {
  const K = opts.beamSize;
  const endsWord = (t: number) => t === opts.eos || opts.endsWord(t);
  const V = model.vocabSize;
  // A word with no spelling (nothing to write) counts as met, so it cannot forbid the end forever.
  const usable = constraints.map((c) => c.filter((s) => s.length > 0));
  /** The live beams in their rows of the model state, and the same in the order the allocation took them. */
  let beams: Beam[] = [{ tokens: [], logProb: 0, progress: { met: usable.map((c) => c.length === 0) } }];
  let ranked = beams;
  const finished: ConstrainedHypothesis[] = [];
  // ended: on the end token (scored with it, as beam.ts does); else cut off where it stands.
  const done = (progress: Progress, logProb: number, tokens: number[], ended: boolean, steps = tokens.length): ConstrainedHypothesis => ({
    tokens, logProb, score: normalised(logProb, tokens.length + (ended ? 1 : 0), opts.lengthPenalty), steps,
    hitMaxLength: !ended && tokens.length >= opts.maxLength,
    // The end of the text ends a word still being spelled.
    met: advance(progress, opts.eos, usable, endsWord).met.flatMap((m, i) => (m ? [i] : [])),
  });
  for (let step = 0; step < opts.maxLength; step++) {
    hooks.checkCancelled?.();
    const rows = beams.length;
    const out = await stepBeams(model, beams, K, opts.bos, state);
    state = out.state;
    // Candidates (paper §3, "candidate generation"): each beam's own best K tokens and the tokens
    // that advance its constraints.
    const byBank = new Map<number, { beam: number; token: number; logProb: number; progress: Progress }[]>();
    const seen = new Set<number>(); // beam * V + token
    for (let b = 0; b < rows; b++) {
      const row = out.logProbs.subarray(b * V, (b + 1) * V);
      const p = beams[b].progress;
      applyConstraints(row, beams[b].tokens, { eos: opts.eos, minLength: opts.minLength, noRepeatNgramSize: opts.noRepeatNgramSize, banned: opts.banned });
      if (!advance(p, opts.eos, usable, endsWord).met.every(Boolean)) row[opts.eos] = -Infinity;
      const allowed = opts.guard?.forRow(beams[b].tokens);
      if (allowed) maskDisallowed(row, K, allowed);
      for (const t of [...topK(row, K), ...wanted(p, usable)]) {
        if (row[t] === -Infinity || Number.isNaN(row[t]) || seen.has(b * V + t)) continue;
        if (allowed && !allowed(t)) continue;
        seen.add(b * V + t);
        const progress = advance(p, t, usable, endsWord);
        const bank = bankOf(progress, usable);
        if (!byBank.has(bank)) byBank.set(bank, []);
        byBank.get(bank)!.push({ beam: b, token: t, logProb: beams[b].logProb + row[t], progress });
      }
    }
    // Beam allocation (paper §3): the banks take turns, fullest first, each taking its best
    // remaining candidate, so that a bank left short gives its places to the others.
    const banks = [...byBank.keys()].sort((a, b) => b - a).map((k) => byBank.get(k)!.sort((x, y) => y.logProb - x.logProb));
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
    if (next.length === 0) break;
    ranked = next;
    const placed = assignRows(next, order);
    beams = placed.beams;
    state = reorderBeams(model, state, placed.order, K);
    const best = ranked.reduce((a, b) => (bankOf(b.progress, usable) > bankOf(a.progress, usable) ? b : a));
    hooks.onStep?.(step, best.tokens);
    // Stop when no live hypothesis can still beat the K-th best finished one (as in beam.ts).
    if (finished.length >= K) {
      const worst = [...finished].sort((a, b) => b.score - a.score)[K - 1].score;
      if (beams.every((b) => normalised(b.logProb, b.tokens.length, opts.lengthPenalty) < worst)) break;
    }
    await yieldToEventLoop();
  }
  // Out of length: the live hypotheses that met the most constraints stand in, best first.
  const live = ranked.map((b) => done(b.progress, b.logProb, b.tokens, false));
  const all = finished.length >= K ? finished : [...finished, ...live];
  return all.sort((a, b) => b.met.length - a.met.length || b.score - a.score);
}
