// TER, translation edit rate (Snover et al. 2006): the fewest edits (insertions, deletions,
// substitutions of one word, and shifts of a run of words) that turn the hypothesis into the
// reference, over the reference's length.
//
// Reference implementation matched: sacreBLEU 2.6.0, sacrebleu/metrics/ter.py (TER), lib_ter.py
// (translation_edit_rate, _shift, _find_shifted_pairs, _perform_shift, trace_to_alignment,
// BeamEditDistance) and tokenizers/tokenizer_ter.py (TercomTokenizer), itself a port of Tercom
// (src/ter/core/TERcalc.java, Normalizer.java). Everything that decides a number is reproduced:
//   - Tercom's greedy shifts: each round takes the shift that lowers the edit distance most, ranked
//     by (gain, longest run, earliest hypothesis position, earliest target); runs of at most 10 words
//     (_MAX_SHIFT_SIZE), at most 50 positions apart (_MAX_SHIFT_DIST); shifts stop when none helps
//     or after 1,000 candidates have been tried over the whole sentence (_MAX_SHIFT_CANDIDATES,
//     sacreBLEU's own limit; the round that reaches it is not applied);
//   - the edit distance's beam: only cells within 25 (_BEAM_WIDTH, wider for very unequal lengths) of
//     the length-scaled diagonal are filled, so in extreme cases the distance is above Levenshtein's,
//     exactly as sacreBLEU's; ties prefer match/substitution, then deletion, then insertion;
//   - several references: the fewest edits over the references, divided by their mean length;
//     corpus TER = Σ edits / Σ mean reference lengths (not a mean of sentence TERs);
//   - the tokenizer: lowercase unless case-sensitive, Tercom's normalisation (`normalized`), with
//     CJK split to characters (`asianSupport`), punctuation removed (`noPunct`).
// The caching of edit-distance rows by hypothesis prefix is sacreBLEU's too, but only for speed: a
// cached row is the row the computation would give.

import { checkReferenceStreams, type CorpusMetric } from './bleu';

/* eslint-disable no-control-regex -- the same characters as Python's str.isspace(), control ones included */
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const PY_TRAILING_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u;
/* eslint-enable no-control-regex */

/** Python's str.split(): on str.isspace() runs, no empty tokens. */
const pySplit = (s: string): string[] => s.split(PY_WHITESPACE).filter((t) => t.length > 0);

export interface TerOptions {
  /** Tercom's normalisation: XML entities, line joins, punctuation split off (default false). */
  normalized?: boolean;
  /** Remove punctuation `.,?:;!"()` (and CJK punctuation with asianSupport); default false. */
  noPunct?: boolean;
  /** With normalized: CJK characters one token each; with noPunct: CJK punctuation removed too. */
  asianSupport?: boolean;
  /** Keep case (default false: TER lowercases, as Tercom does). */
  caseSensitive?: boolean;
}

export interface TerScore {
  /** 0–100 and beyond: edits per 100 reference words (lower is better). */
  score: number;
  /** Σ of each segment's fewest edits. */
  numEdits: number;
  /** Σ of each segment's mean reference length. */
  refLength: number;
}

// --- TercomTokenizer (sacrebleu/tokenizers/tokenizer_ter.py) ---

const ASIAN_PUNCT = /([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])/g;
const FULL_WIDTH_PUNCT = /([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])/g;

/** _normalize_general_and_western. */
function normalizeGeneralAndWestern(s: string): string {
  // Strip end-of-line hyphenation, join lines, XML entities.
  s = s.replace(/\n-/g, '').replace(/\n/g, ' ');
  s = s
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
  s = ` ${s} `;
  // Punctuation: sacreBLEU's class [{-~[-` -&(-+:-@/], as code ranges.
  s = s.replace(/([\x7b-\x7e\x5b-\x60\x20-\x26\x28-\x2b\x3a-\x40/])/g, ' $1 ');
  // Possessives.
  s = s.replace(/'s /g, " 's ").replace(/'s$/, " 's");
  // Period and comma unless preceded, then unless followed, by a digit; dash after a digit.
  s = s.replace(/([^0-9])([.,])/gu, '$1 $2 ');
  s = s.replace(/([.,])([^0-9])/gu, ' $1 $2');
  s = s.replace(/([0-9])(-)/g, '$1 $2 ');
  return s;
}

/** _normalize_asian: CJK ideographs and the like one token each, CJK punctuation split off. */
function normalizeAsian(s: string): string {
  s = s.replace(/([\u4e00-\u9fff\u3400-\u4dbf])/g, ' $1 ');
  s = s.replace(/([\u31c0-\u31ef\u2e80-\u2eff])/g, ' $1 ');
  s = s.replace(/([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])/g, ' $1 ');
  s = s.replace(/([\u3200-\u3f22])/g, ' $1 ');
  // sacreBLEU's kana rules, anchored as written there (so they only apply to a whole kana string;
  // after normalisation's leading space they never do, in sacreBLEU as here).
  s = s.replace(/(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])/g, '$1 $2 ');
  s = s.replace(/(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])/g, '$1 $2 ');
  s = s.replace(/(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])/g, '$1 $2 ');
  s = s.replace(ASIAN_PUNCT, ' $1 ').replace(FULL_WIDTH_PUNCT, ' $1 ');
  return s;
}

/** TER._preprocess_segment: trailing whitespace stripped, then TercomTokenizer; the words. */
export function terTokens(segment: string, opts: TerOptions = {}): string[] {
  let s = segment.replace(PY_TRAILING_WHITESPACE, '');
  if (s.length === 0) return [];
  if (!opts.caseSensitive) s = s.toLowerCase();
  if (opts.normalized) {
    s = normalizeGeneralAndWestern(s);
    if (opts.asianSupport) s = normalizeAsian(s);
  }
  if (opts.noPunct) {
    s = s.replace(/[.,?:;!"()]/g, '');
    if (opts.asianSupport) s = s.replace(ASIAN_PUNCT, '').replace(FULL_WIDTH_PUNCT, '');
  }
  return pySplit(s);
}

// --- lib_ter.py ---

const MAX_SHIFT_SIZE = 10;
const MAX_SHIFT_DIST = 50;
const BEAM_WIDTH = 25;
const MAX_CACHE_SIZE = 10000;
const MAX_SHIFT_CANDIDATES = 1000;
/** sacreBLEU's _INT_INFINITY stands in for a cell outside the beam; it is never added to and kept. */
const INF = 2 ** 30;

// Edit operations as the trace records them (rewriting the hypothesis into the reference). 0 is
// "undefined" (a cell outside the beam), so a fresh zeroed row needs no filling.
const OP_UNDEF = 0;
const OP_NOP = 1;
const OP_SUB = 2;
const OP_INS = 3;
const OP_DEL = 4;

const NO_TRACE = new Uint8Array(0);

/** A row of the edit-distance matrix. `gap[j]` holds INF − cost, so a fresh zeroed row is all INF
 * (sacreBLEU's empty row) without a fill: the rows are the hot allocation of the shift search. */
interface Row {
  gap: Int32Array;
  op: Uint8Array;
}
interface CacheNode {
  next: Map<number, CacheNode>;
  row: Row;
}

/**
 * BeamEditDistance: the edit distance from a hypothesis (word ids) to the reference, with the trace
 * of operations, over the beam around the diagonal. Rows are cached by hypothesis prefix.
 */
class BeamEditDistance {
  private readonly n: number;
  private readonly initial: Row;
  private readonly cache = new Map<number, CacheNode>();
  private cacheSize = 0;

  constructor(private readonly ref: Int32Array) {
    this.n = ref.length;
    const gap = new Int32Array(this.n + 1);
    for (let j = 0; j <= this.n; j++) gap[j] = INF - j;
    this.initial = { gap, op: new Uint8Array(this.n + 1).fill(OP_INS) };
  }

  /** The distance, and the trace (one op per step, from the start) when asked for. */
  run(hyp: Int32Array, withTrace = true): { distance: number; trace: Uint8Array } {
    const nH = hyp.length;
    const rows: Row[] = [this.initial];
    // The prefix already computed.
    let node: Map<number, CacheNode> | undefined = this.cache;
    for (let i = 0; i < nH && node; i++) {
      const hit: CacheNode | undefined = node.get(hyp[i]);
      if (!hit) break;
      rows.push(hit.row);
      node = hit.next;
    }
    const start = rows.length - 1;
    const m = this.n;
    const ref = this.ref;
    const lengthRatio = nH > 0 ? m / nH : 1;
    const beam = BEAM_WIDTH < lengthRatio / 2 ? Math.ceil(lengthRatio / 2 + BEAM_WIDTH) : BEAM_WIDTH;
    for (let i = start + 1; i <= nH; i++) {
      const gap = new Int32Array(m + 1);
      const op = new Uint8Array(m + 1);
      const prev = rows[i - 1].gap;
      const diag = Math.floor(i * lengthRatio);
      const minJ = Math.max(0, diag - beam);
      const maxJ = i === nH ? m + 1 : Math.min(m + 1, diag + beam);
      const w = hyp[i - 1];
      for (let j = minJ; j < maxJ; j++) {
        if (j === 0) {
          gap[0] = prev[0] - 1;
          op[0] = OP_DEL;
          continue;
        }
        const match = w === ref[j - 1];
        // Tercom prefers a match or substitution, then (the trace being flipped later) deletion,
        // then insertion: each replaces the cell only when strictly cheaper (a larger gap). A cost
        // from a cell outside the beam (gap 0) is INF + 1 and never replaces anything.
        let best = 0;
        let bestOp = OP_UNDEF;
        const sub = prev[j - 1] - (match ? 0 : 1);
        if (sub > best) {
          best = sub;
          bestOp = match ? OP_NOP : OP_SUB;
        }
        const del = prev[j] - 1;
        if (del > best) {
          best = del;
          bestOp = OP_DEL;
        }
        const ins = gap[j - 1] - 1;
        if (ins > best) {
          best = ins;
          bestOp = OP_INS;
        }
        gap[j] = best;
        op[j] = bestOp;
      }
      rows.push({ gap, op });
    }
    this.addCache(hyp, rows, start);
    if (!withTrace) return { distance: INF - rows[nH].gap[m], trace: NO_TRACE };
    // The trace, back from the last cell.
    const ops: number[] = [];
    let i = nH;
    let j = m;
    while (i > 0 || j > 0) {
      const o = rows[i].op[j];
      ops.push(o);
      if (o === OP_SUB || o === OP_NOP) {
        i--;
        j--;
      } else if (o === OP_INS) j--;
      else if (o === OP_DEL) i--;
      else throw new Error('TER: the edit distance left a cell outside its beam on the path');
    }
    ops.reverse();
    return { distance: INF - rows[nH].gap[m], trace: Uint8Array.from(ops) };
  }

  private addCache(hyp: Int32Array, rows: Row[], start: number): void {
    if (this.cacheSize >= MAX_CACHE_SIZE) return;
    let node = this.cache;
    for (let i = 0; i < start; i++) node = (node.get(hyp[i]) as CacheNode).next;
    for (let i = start; i < hyp.length; i++) {
      let hit = node.get(hyp[i]);
      if (!hit) {
        hit = { next: new Map(), row: rows[i + 1] };
        node.set(hyp[i], hit);
        this.cacheSize++;
      }
      node = hit.next;
    }
  }
}

/** trace_to_alignment on the flipped trace: each reference position's hypothesis position, and
 * which positions of each side are in error. */
function traceToAlignment(trace: Uint8Array, nRef: number, nHyp: number) {
  const align = new Int32Array(nRef);
  const refErr = new Uint8Array(nRef);
  const hypErr = new Uint8Array(nHyp);
  let posHyp = -1;
  let posRef = -1;
  for (const o of trace) {
    // The trace rewrote the hypothesis into the reference; flipped, an insertion consumes a
    // hypothesis word and a deletion a reference word (sacreBLEU's _flip_trace).
    if (o === OP_NOP || o === OP_SUB) {
      posHyp++;
      posRef++;
      align[posRef] = posHyp;
      if (o === OP_SUB) {
        hypErr[posHyp] = 1;
        refErr[posRef] = 1;
      }
    } else if (o === OP_DEL) {
      posHyp++;
      hypErr[posHyp] = 1;
    } else {
      posRef++;
      align[posRef] = posHyp;
      refErr[posRef] = 1;
    }
  }
  return { align, refErr, hypErr };
}

/** _perform_shift: the run words[start, start + length) moved before position target. */
function performShift(words: Int32Array, start: number, length: number, target: number): Int32Array {
  const out = new Int32Array(words.length);
  // Python's slices, clamped to the array as Python clamps them.
  const parts = (...ranges: [number, number][]) => {
    let at = 0;
    for (const [a, b] of ranges) {
      const piece = words.subarray(Math.min(a, words.length), Math.min(Math.max(a, b), words.length));
      out.set(piece, at);
      at += piece.length;
    }
  };
  const end = start + length;
  if (target < start) parts([0, target], [start, end], [target, start], [end, words.length]);
  else if (target > end) parts([0, start], [end, target], [start, end], [target, words.length]);
  else parts([0, start], [end, length + target], [start, end], [length + target, words.length]);
  return out;
}

/** _shift: the best shift of one round, and the candidates tried so far. */
function bestShift(
  hyp: Int32Array,
  ref: Int32Array,
  ed: BeamEditDistance,
  checked: number,
): { gain: number; words: Int32Array; checked: number } {
  const { distance: preScore, trace } = ed.run(hyp);
  const { align, refErr, hypErr } = traceToAlignment(trace, ref.length, hyp.length);
  const nH = hyp.length;
  const nR = ref.length;
  let best: { gain: number; length: number; startH: number; idx: number; words: Int32Array } | undefined;
  const better = (g: number, len: number, sh: number, idx: number) =>
    best === undefined ||
    g > best.gain ||
    (g === best.gain &&
      (len > best.length || (len === best.length && (sh < best.startH || (sh === best.startH && idx < best.idx)))));
  // _find_shifted_pairs: every common run (start_h, start_r, length), shortest first at each start.
  outer: for (let startH = 0; startH < nH; startH++) {
    for (let startR = 0; startR < nR; startR++) {
      if (Math.abs(startR - startH) > MAX_SHIFT_DIST) continue;
      let length = 0;
      while (hyp[startH + length] === ref[startR + length] && length < MAX_SHIFT_SIZE) {
        length++;
        // Only a run that is wrong where it is and that would fill a wrong place is worth moving,
        // and not within itself.
        let hypWrong = false;
        for (let k = startH; k < startH + length; k++) if (hypErr[k]) hypWrong = true;
        let refWrong = false;
        for (let k = startR; k < startR + length; k++) if (refErr[k]) refWrong = true;
        const within = startH <= align[startR] && align[startR] < startH + length;
        if (hypWrong && refWrong && !within) {
          let prevIdx = -1;
          for (let offset = -1; offset < length; offset++) {
            let idx: number;
            if (startR + offset === -1) idx = 0;
            else if (startR + offset < nR) idx = align[startR + offset] + 1;
            else break;
            if (idx === prevIdx) continue;
            prevIdx = idx;
            const shifted = performShift(hyp, startH, length, idx);
            const gain = preScore - ed.run(shifted, false).distance;
            checked++;
            if (better(gain, length, startH, idx)) best = { gain, length, startH, idx, words: shifted };
          }
          if (checked >= MAX_SHIFT_CANDIDATES) break outer;
        }
        if (nH === startH + length || nR === startR + length) break;
      }
    }
  }
  return best === undefined ? { gain: 0, words: hyp, checked } : { gain: best.gain, words: best.words, checked };
}

/** translation_edit_rate: the fewest edits (shifts included) from hypothesis to reference words,
 * and the reference's length. */
export function translationEditRate(hypWords: readonly string[], refWords: readonly string[]): [number, number] {
  if (refWords.length === 0) return [hypWords.length, 0];
  // Words as ids: the reference's own, and -1 for any word it lacks (only equality with reference
  // words matters to the edit distance and to the shifts' runs).
  const vocab = new Map<string, number>();
  const ref = Int32Array.from(refWords, (w) => {
    let id = vocab.get(w);
    if (id === undefined) vocab.set(w, (id = vocab.size));
    return id;
  });
  let hyp: Int32Array = Int32Array.from(hypWords, (w) => vocab.get(w) ?? -1);
  const ed = new BeamEditDistance(ref);
  let shifts = 0;
  let checked = 0;
  for (;;) {
    const r = bestShift(hyp, ref, ed, checked);
    checked = r.checked;
    if (checked >= MAX_SHIFT_CANDIDATES || r.gain <= 0) break;
    shifts++;
    hyp = r.words;
  }
  return [shifts + ed.run(hyp, false).distance, refWords.length];
}

/**
 * A reference's words. sacreBLEU tokenizes a reference twice: Metric._cache_references
 * (sacrebleu/metrics/base.py) preprocesses each reference, then TER._extract_reference_info
 * preprocesses it again. Only Tercom's normalisation is not idempotent (`Bill's, who` becomes
 * `bill's , who` in one pass, `bill 's , who` in two; `&amp;lt;` becomes `<`), so with `normalized`
 * the reference's words differ from the hypothesis's for the same text, in sacreBLEU as here.
 */
export function terReferenceTokens(reference: string, opts: TerOptions = {}): string[] {
  return terTokens(terTokens(reference, opts).join(' '), opts);
}

/** TER._compute_segment_statistics: [fewest edits over the references, mean reference length]. */
export function terSegmentStats(hyp: string, refs: readonly string[], opts: TerOptions = {}): [number, number] {
  const h = terTokens(hyp, opts);
  let best = Infinity;
  let lengths = 0;
  for (const r of refs) {
    const [edits, len] = translationEditRate(h, terReferenceTokens(r, opts));
    lengths += len;
    if (edits < best) best = edits;
  }
  return [best, lengths / refs.length];
}

/** TER._compute_score_from_stats: 100 · edits / reference length; an empty reference gives 100 if
 * the hypothesis has words, else 0. */
export function terFromStats(stats: ArrayLike<number>): TerScore {
  const edits = stats[0];
  const refLength = stats[1];
  const score = refLength > 0 ? edits / refLength : edits > 0 ? 1 : 0;
  return { score: 100 * score, numEdits: edits, refLength };
}

/** The score as sacreBLEU computes it from float32 statistics under NumPy ≥ 2 (NEP 50: float32
 * division and the product with 100 stay float32); the empty-reference cases are Python floats. */
export function terScoreNumpyFloat32(stats: ArrayLike<number>): { v: number; f: boolean } {
  const e = Math.fround(stats[0]);
  const r = Math.fround(stats[1]);
  if (r > 0) return { v: Math.fround(100 * Math.fround(e / r)), f: true };
  return { v: e > 0 ? 100 : 0, f: false };
}

/** Corpus TER: segment statistics summed in order, then one score (sacreBLEU's corpus_score).
 * `refs[j][i]` is the j-th reference of segment i. */
export const corpusTer: CorpusMetric<TerOptions, TerScore> = (hyps, refs, opts = {}) => {
  checkReferenceStreams('TER', hyps, refs);
  if (refs.length === 0) throw new RangeError('TER needs at least one reference stream');
  let edits = 0;
  let length = 0;
  hyps.forEach((h, i) => {
    const [e, l] = terSegmentStats(
      h,
      refs.map((s) => s[i]),
      opts,
    );
    edits += e;
    length += l;
  });
  return terFromStats([edits, length]);
};

/** One segment's TER (sacreBLEU's sentence_score). */
export function sentenceTer(hyp: string, refs: readonly string[], opts: TerOptions = {}): TerScore {
  return terFromStats(terSegmentStats(hyp, refs, opts));
}
