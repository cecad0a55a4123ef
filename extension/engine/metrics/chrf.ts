// chrF (Popović 2015) and chrF++ (Popović 2017), corpus and sentence level.
//
// Reference implementation matched: sacreBLEU 2.6.0, `sacrebleu.metrics.CHRF` (sacrebleu/metrics/chrf.py)
// with its defaults: character n-grams up to 6 (CHAR_ORDER), no word n-grams (WORD_ORDER 0; 2 makes
// it chrF++), beta 2, case-sensitive, whitespace removed before character n-grams are taken
// (helpers.extract_all_char_ngrams with include_whitespace=False), and sacreBLEU 2.x's default
// averaging: precision and recall averaged over the orders that both sides have ("effective order",
// eps_smoothing=False); eps_smoothing=True gives the chrF++.py / NLTK / Moses epsilon smoothing.
//
//   per order n:  P_n = matches / hypothesis n-grams,  R_n = matches / reference n-grams
//   default:      P, R = means of P_n, R_n over the orders with both counts > 0;
//                 chrF = 100 · (1 + β²) P R / (β² P + R)
//   eps:          chrF = 100 · mean over ALL orders of F_n (P_n or R_n = 1e-16 when undefined)
//
// Statistics are summed over segments before the score (corpus chrF is not a mean of sentence
// chrFs), and with several references each segment keeps the statistics of the reference with the
// best chrF (CHRF._compute_segment_statistics).

import { checkReferenceStreams, type CorpusMetric } from './bleu';

export interface ChrfOptions {
  /** Character n-gram order; default 6. */
  charOrder?: number;
  /** Word n-gram order; default 0 (chrF), 2 for chrF++. */
  wordOrder?: number;
  /** Recall weight; default 2. */
  beta?: number;
  lowercase?: boolean;
  /** Keep whitespace inside character n-grams (sacreBLEU's whitespace=True); default false. */
  whitespace?: boolean;
  /** chrF++.py-style epsilon smoothing instead of effective-order averaging; default false. */
  epsSmoothing?: boolean;
}

export interface ChrfScore {
  /** 0–100. */
  score: number;
  /** sacreBLEU's name: chrF2, chrF2++ (β and one '+' per word order). */
  name: string;
  /** Summed [hyp, ref, match] counts per order (char orders, then word orders), flattened. */
  stats: number[];
}

// Python's str.split() separators (str.isspace), as in bleu.ts.
// eslint-disable-next-line no-control-regex -- Python's str.isspace() includes \x1c-\x1f
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;
// CHRF._PUNCTS: string.punctuation.
const PUNCTS = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

const pySplit = (s: string): string[] => s.split(PY_WHITESPACE).filter((t) => t.length > 0);

/** helpers.extract_all_char_ngrams: counts of character n-grams, n = 1..maxOrder, over code points
 * (Python's characters), after removing whitespace unless asked to keep it. */
function charNgrams(line: string, maxOrder: number, whitespace: boolean): Map<string, number>[] {
  const chars = Array.from(whitespace ? line : line.replace(PY_WHITESPACE, ''));
  const out: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= chars.length; i++) {
      let g = chars[i];
      for (let k = 1; k < n; k++) g += chars[i + k];
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
    out.push(counts);
  }
  return out;
}

/** helpers.extract_word_ngrams: n-grams of tokens joined by a space. */
function wordNgrams(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const g = tokens.slice(i, i + n).join(' ');
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/** CHRF._remove_punctuation: split on whitespace, then one punctuation mark is split off the end of
 * a word, or else off its start ('(hi)' gives '(hi' and ')', sacreBLEU issue #124, kept). */
export function chrfWords(sent: string): string[] {
  const out: string[] = [];
  for (const w of pySplit(sent)) {
    const chars = Array.from(w);
    if (chars.length === 1) out.push(w);
    else if (PUNCTS.has(chars[chars.length - 1])) out.push(chars.slice(0, -1).join(''), chars[chars.length - 1]);
    else if (PUNCTS.has(chars[0])) out.push(chars[0], chars.slice(1).join(''));
    else out.push(w);
  }
  return out;
}

interface Resolved {
  charOrder: number;
  wordOrder: number;
  beta: number;
  lowercase: boolean;
  whitespace: boolean;
  epsSmoothing: boolean;
}

function resolve(opts: ChrfOptions): Resolved {
  const r = {
    charOrder: opts.charOrder ?? 6,
    wordOrder: opts.wordOrder ?? 0,
    beta: opts.beta ?? 2,
    lowercase: opts.lowercase ?? false,
    whitespace: opts.whitespace ?? false,
    epsSmoothing: opts.epsSmoothing ?? false,
  };
  if (!Number.isInteger(r.charOrder) || r.charOrder < 0)
    throw new RangeError(`chrF character order must be a whole number ≥ 0, not ${r.charOrder}`);
  if (!Number.isInteger(r.wordOrder) || r.wordOrder < 0)
    throw new RangeError(`chrF word order must be a whole number ≥ 0, not ${r.wordOrder}`);
  if (r.charOrder + r.wordOrder === 0) throw new RangeError('chrF needs a character or a word order above 0');
  return r;
}

/** All n-gram counters of a segment: char orders 1..charOrder, then word orders 1..wordOrder. */
function ngramsOf(segment: string, o: Resolved): Map<string, number>[] {
  const s = o.lowercase ? segment.toLowerCase() : segment; // CHRF._preprocess_segment
  const all = charNgrams(s, o.charOrder, o.whitespace);
  if (o.wordOrder > 0) {
    const words = chrfWords(s);
    for (let n = 1; n <= o.wordOrder; n++) all.push(wordNgrams(words, n));
  }
  return all;
}

/** CHRF._compute_f_score: the score (0–100) from flattened [hyp, ref, match] counts per order. */
export function chrfFromStats(stats: readonly number[], opts: ChrfOptions = {}): number {
  const o = resolve(opts);
  const order = o.charOrder + o.wordOrder;
  const eps = 1e-16;
  const factor = o.beta ** 2;
  let score = 0;
  let effectiveOrder = 0;
  let avgPrec = 0;
  let avgRec = 0;
  for (let i = 0; i < order; i++) {
    const nHyp = stats[3 * i];
    const nRef = stats[3 * i + 1];
    const nMatch = stats[3 * i + 2];
    const prec = nHyp > 0 ? nMatch / nHyp : eps;
    const rec = nRef > 0 ? nMatch / nRef : eps;
    const denom = factor * prec + rec;
    score += denom > 0 ? ((1 + factor) * prec * rec) / denom : eps;
    if (nHyp > 0 && nRef > 0) {
      avgPrec += prec;
      avgRec += rec;
      effectiveOrder += 1;
    }
  }
  if (o.epsSmoothing) return (100 * score) / order;
  if (effectiveOrder === 0) {
    avgPrec = 0;
    avgRec = 0;
  } else {
    avgPrec /= effectiveOrder;
    avgRec /= effectiveOrder;
  }
  // score = (1 + β²)·P·R; score /= β²·P + R; return 100 · score — in that order, for the same rounding.
  if (avgPrec + avgRec) return 100 * (((1 + factor) * avgPrec * avgRec) / (factor * avgPrec + avgRec));
  return 0;
}

/** CHRF._get_match_statistics for one order. */
function matchStats(hyp: Map<string, number>, ref: Map<string, number>, out: number[]): void {
  let match = 0;
  let hypCount = 0;
  for (const [g, c] of hyp) {
    hypCount += c;
    const r = ref.get(g);
    if (r !== undefined) match += Math.min(c, r);
  }
  let refCount = 0;
  for (const c of ref.values()) refCount += c;
  // "Don't count hits if no reference exists for that n-gram": an empty reference order counts no hypothesis n-grams.
  out.push(ref.size > 0 ? hypCount : 0, refCount, match);
}

/** Statistics of one hypothesis against its references: those of the reference with the best chrF
 * (the first on a tie). */
export function chrfSegmentStats(hyp: string, refs: readonly string[], opts: ChrfOptions = {}): number[] {
  const o = resolve(opts);
  const h = ngramsOf(hyp, o);
  let best: number[] = [];
  let bestF = -1;
  for (const ref of refs) {
    const r = ngramsOf(ref, o);
    const stats: number[] = [];
    h.forEach((counts, i) => matchStats(counts, r[i], stats));
    const f = chrfFromStats(stats, o);
    if (f > bestF) {
      bestF = f;
      best = stats;
    }
  }
  return best;
}

export const chrfName = (opts: ChrfOptions = {}): string => `chrF${opts.beta ?? 2}${'+'.repeat(opts.wordOrder ?? 0)}`;

/** Corpus chrF: statistics summed over segments. `refs[j][i]` is the j-th reference of segment i. */
export const corpusChrf: CorpusMetric<ChrfOptions, ChrfScore> = (hyps, refs, opts = {}) => {
  checkReferenceStreams('corpusChrf', hyps, refs);
  const o = resolve(opts);
  const sum = new Array<number>(3 * (o.charOrder + o.wordOrder)).fill(0);
  for (let i = 0; i < hyps.length; i++) {
    const s = chrfSegmentStats(
      hyps[i],
      refs.map((stream) => stream[i]),
      o,
    );
    for (let k = 0; k < s.length; k++) sum[k] += s[k];
  }
  return { score: chrfFromStats(sum, o), name: chrfName(o), stats: sum };
};

/** Sentence chrF (sacrebleu.sentence_chrf): the corpus score of one segment. */
export function sentenceChrf(hyp: string, refs: readonly string[], opts: ChrfOptions = {}): ChrfScore {
  const o = resolve(opts);
  const stats = chrfSegmentStats(hyp, refs, o);
  return { score: chrfFromStats(stats, o), name: chrfName(o), stats };
}

/** A value as NumPy ≥ 2 types it inside CHRF._compute_f_score on a float32 resample: `f` when it
 * is an np.float32, else a Python float or int. */
interface NpValue {
  v: number;
  f: boolean;
}
const py = (v: number): NpValue => ({ v, f: false });
/** A binary operation under NEP 50: a Python number meeting a float32 becomes float32 first. */
function npOp(a: NpValue, b: NpValue, fn: (x: number, y: number) => number): NpValue {
  if (a.f || b.f) return { v: Math.fround(fn(Math.fround(a.v), Math.fround(b.v))), f: true };
  return { v: fn(a.v, b.v), f: false };
}
const add = (x: number, y: number) => x + y;
const mul = (x: number, y: number) => x * y;
const div = (x: number, y: number) => x / y;

/** CHRF._compute_f_score as sacreBLEU runs it on a paired-bootstrap resample (statistics in a
 * float32 array, NumPy ≥ 2): every step in float32. Returns the score and whether NumPy would hold
 * it as a float32 (it does unless no order matched at all). */
export function chrfScoreNumpyFloat32(stats: ArrayLike<number>, opts: ChrfOptions = {}): NpValue {
  const o = resolve(opts);
  const order = o.charOrder + o.wordOrder;
  const eps = py(1e-16);
  const factor = py(o.beta ** 2);
  const onePlus = py(1 + o.beta ** 2);
  let score = py(0);
  let effectiveOrder = 0;
  let avgPrec = py(0);
  let avgRec = py(0);
  for (let i = 0; i < order; i++) {
    const nHyp: NpValue = { v: Math.fround(stats[3 * i]), f: true };
    const nRef: NpValue = { v: Math.fround(stats[3 * i + 1]), f: true };
    const nMatch: NpValue = { v: Math.fround(stats[3 * i + 2]), f: true };
    const prec = nHyp.v > 0 ? npOp(nMatch, nHyp, div) : eps;
    const rec = nRef.v > 0 ? npOp(nMatch, nRef, div) : eps;
    const denom = npOp(npOp(factor, prec, mul), rec, add);
    score = npOp(score, denom.v > 0 ? npOp(npOp(npOp(onePlus, prec, mul), rec, mul), denom, div) : eps, add);
    if (nHyp.v > 0 && nRef.v > 0) {
      avgPrec = npOp(avgPrec, prec, add);
      avgRec = npOp(avgRec, rec, add);
      effectiveOrder += 1;
    }
  }
  if (o.epsSmoothing) return npOp(npOp(py(100), score, mul), py(order), div);
  if (effectiveOrder === 0) {
    avgPrec = py(0);
    avgRec = py(0);
  } else {
    avgPrec = npOp(avgPrec, py(effectiveOrder), div);
    avgRec = npOp(avgRec, py(effectiveOrder), div);
  }
  if (npOp(avgPrec, avgRec, add).v) {
    const num = npOp(npOp(onePlus, avgPrec, mul), avgRec, mul);
    return npOp(py(100), npOp(num, npOp(npOp(factor, avgPrec, mul), avgRec, add), div), mul);
  }
  return py(0);
}
