// BLEU (Papineni et al., 2002), corpus and sentence level.
//
// Reference implementation matched: sacreBLEU 2.6.0 (Post, 2018), `sacrebleu.metrics.BLEU` with its
// defaults: the "13a" tokenizer of mteval-v13a.pl, 4-grams, closest reference length (the shorter on
// a tie), n-gram counts clipped by the maximum over references, and its four smoothing methods
// (Chen & Cherry 2014): none, floor (method 1), add-k (method 2), exp (method 3, the default).
// test/fixtures/bleu-sacrebleu.json holds sacreBLEU's own outputs; the unit tests require agreement
// to 0.01 BLEU (they agree to ~1e-12).
//
//   p_n  = 100 · Σ clipped matches of n-grams / Σ n-grams of the hypotheses
//   BP   = 1 if c ≥ r, else exp(1 − r/c)            (c: hypothesis tokens, r: closest reference tokens)
//   BLEU = BP · exp( (1/N) Σ_{n ≤ N} log p_n )        on a 0–100 scale, as sacreBLEU prints it.

export type BleuSmoothing = 'none' | 'floor' | 'add-k' | 'exp';
export type BleuTokenizer = '13a' | 'none';

export interface BleuOptions {
  /** Default 'exp' (sacreBLEU's default for both corpus and sentence BLEU). */
  smooth?: BleuSmoothing;
  /** ε for 'floor' (default 0.1) and k for 'add-k' (default 1). */
  smoothValue?: number;
  lowercase?: boolean;
  /** Default '13a'. 'none' splits on whitespace only. */
  tokenize?: BleuTokenizer;
  /** Average only over the n-gram orders the hypothesis has (sentence BLEU turns this on). */
  effectiveOrder?: boolean;
  maxOrder?: number;
}

export interface BleuScore {
  /** 0–100. */
  score: number;
  /** Modified n-gram precisions p_1..p_N, 0–100 (after smoothing). */
  precisions: number[];
  brevityPenalty: number;
  /** Hypothesis length / reference length. */
  ratio: number;
  hypLength: number;
  refLength: number;
  counts: number[];
  totals: number[];
}

// Python's str.split() splits on these (str.isspace); JavaScript's \s differs (\x1c-\x1f, \x85, \ufeff).
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const PY_TRAILING_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u;

function pySplit(s: string): string[] {
  return s.split(PY_WHITESPACE).filter((t) => t.length > 0);
}

// sacrebleu/tokenizers/tokenizer_re.py, in order. No 'u' flag (it is ~2x slower here): the rules
// only insert spaces next to ASCII characters, so a surrogate pair is never split.
const RULES_13A: ReadonlyArray<readonly [RegExp, string]> = [
  [/([\{-~\[-` -&\(-\+:-@\/])/g, ' $1 '], // symbols and punctuation other than . , -
  [/([^0-9])([.,])/g, '$1 $2 '],            // period and comma unless preceded by a digit
  [/([.,])([^0-9])/g, ' $1 $2'],            // period and comma unless followed by a digit
  [/([0-9])(-)/g, '$1 $2 '],                 // dash when preceded by a digit
];

/** mteval-v13a tokenization as sacreBLEU's Tokenizer13a does it; returns the tokens. */
export function tokenize13a(line: string): string[] {
  let s = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (s.includes('&')) {
    s = s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  s = ` ${s} `;
  for (const [re, replacement] of RULES_13A) s = s.replace(re, replacement);
  return pySplit(s);
}

function preprocess(segment: string, opts: BleuOptions): string[] {
  let s = segment.replace(PY_TRAILING_WHITESPACE, '');
  if (opts.lowercase) s = s.toLowerCase();
  return (opts.tokenize ?? '13a') === '13a' ? tokenize13a(s) : pySplit(s);
}

function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, number>[] {
  const byOrder: Map<string, number>[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= tokens.length; i++) {
      let key = tokens[i];
      for (let k = 1; k < n; k++) key += ' ' + tokens[i + k];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    byOrder.push(counts);
  }
  return byOrder;
}

/** Sufficient statistics of one segment: [hypLen, refLen, correct_1..N, total_1..N]. */
export interface BleuStats {
  hypLength: number;
  refLength: number;
  correct: number[];
  total: number[];
}

function closestRefLength(hypLength: number, refLengths: readonly number[]): number {
  let bestDiff = -1;
  let best = -1;
  for (const len of refLengths) {
    const diff = Math.abs(hypLength - len);
    if (bestDiff === -1 || diff < bestDiff) {
      bestDiff = diff;
      best = len;
    } else if (diff === bestDiff && len < best) {
      best = len;
    }
  }
  return best;
}

/** Counts of the reference's n-grams, but only those the hypothesis has: the only ones clipping
 * needs. An n-gram is extended only while its prefix is a hypothesis n-gram, so a long reference
 * costs little more than one pass over its tokens. */
function refCountsOfHypNgrams(ref: readonly string[], hyp: readonly Map<string, number>[]): Map<string, number>[] {
  const counts: Map<string, number>[] = hyp.map(() => new Map());
  for (let i = 0; i < ref.length; i++) {
    let key = ref[i];
    for (let n = 0; n < hyp.length && i + n < ref.length; n++) {
      if (n > 0) key += ' ' + ref[i + n];
      if (!hyp[n].has(key)) break;
      counts[n].set(key, (counts[n].get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** Statistics of one hypothesis against its references (one or more). */
export function segmentStats(hyp: string, refs: readonly string[], opts: BleuOptions = {}): BleuStats {
  const maxOrder = opts.maxOrder ?? 4;
  const hypTokens = preprocess(hyp, opts);
  const hypCounts = ngramCounts(hypTokens, maxOrder);
  // Clipping uses, per n-gram, the largest count in any one reference (sacreBLEU's merge).
  const refMax: Map<string, number>[] = hypCounts.map(() => new Map());
  const refLengths: number[] = [];
  for (const ref of refs) {
    const tokens = preprocess(ref, opts);
    refLengths.push(tokens.length);
    refCountsOfHypNgrams(tokens, hypCounts).forEach((counts, n) => {
      for (const [g, c] of counts) if (c > (refMax[n].get(g) ?? 0)) refMax[n].set(g, c);
    });
  }
  const correct = new Array<number>(maxOrder).fill(0);
  const total = new Array<number>(maxOrder).fill(0);
  hypCounts.forEach((counts, n) => {
    for (const [g, c] of counts) {
      total[n] += c;
      correct[n] += Math.min(c, refMax[n].get(g) ?? 0);
    }
  });
  return { hypLength: hypTokens.length, refLength: closestRefLength(hypTokens.length, refLengths), correct, total };
}

/** sacreBLEU's my_log: log, floored for zero. */
function floorLog(x: number): number {
  return x === 0 ? -9999999999 : Math.log(x);
}

/** BLEU from summed statistics; sacreBLEU's BLEU.compute_bleu, step for step. */
export function bleuFromStats(stats: BleuStats, opts: BleuOptions = {}): BleuScore {
  const method = opts.smooth ?? 'exp';
  const maxOrder = stats.correct.length;
  const k = opts.smoothValue ?? (method === 'floor' ? 0.1 : 1);
  const correct = [...stats.correct];
  const total = [...stats.total];
  const { hypLength, refLength } = stats;
  const brevityPenalty = hypLength < refLength ? (hypLength > 0 ? Math.exp(1 - refLength / hypLength) : 0) : 1;
  const precisions = new Array<number>(maxOrder).fill(0);
  const result = (score: number): BleuScore => ({
    score, precisions, brevityPenalty, ratio: refLength > 0 ? hypLength / refLength : 0,
    hypLength, refLength, counts: correct, totals: total,
  });
  if (!correct.some((c) => c > 0)) return result(0);

  let expDivisor = 1;
  let order = maxOrder;
  for (let n = 1; n <= maxOrder; n++) {
    if (method === 'add-k' && n > 1) {
      correct[n - 1] += k;
      total[n - 1] += k;
    }
    if (total[n - 1] === 0) break;
    if (opts.effectiveOrder) order = n;
    if (correct[n - 1] === 0) {
      if (method === 'exp') {
        expDivisor *= 2;
        precisions[n - 1] = 100 / (expDivisor * total[n - 1]);
      } else if (method === 'floor') {
        precisions[n - 1] = (100 * k) / total[n - 1];
      }
    } else {
      precisions[n - 1] = (100 * correct[n - 1]) / total[n - 1];
    }
  }
  let logSum = 0;
  for (let n = 0; n < order; n++) logSum += floorLog(precisions[n]);
  return result(brevityPenalty * Math.exp(logSum / order));
}

/** Corpus BLEU: statistics summed over segments, then one score (not a mean of sentence scores).
 * `refs[j][i]` is the j-th reference of segment i, as sacrebleu.corpus_bleu takes them. */
export function corpusBleu(hyps: readonly string[], refs: readonly (readonly string[])[], opts: BleuOptions = {}): BleuScore {
  for (const stream of refs) {
    if (stream.length !== hyps.length) {
      throw new RangeError(`corpusBleu needs one reference per hypothesis in every reference stream, got ${hyps.length} and ${stream.length}`);
    }
  }
  const maxOrder = opts.maxOrder ?? 4;
  const sum: BleuStats = { hypLength: 0, refLength: 0, correct: new Array(maxOrder).fill(0), total: new Array(maxOrder).fill(0) };
  for (let i = 0; i < hyps.length; i++) {
    const s = segmentStats(hyps[i], refs.map((stream) => stream[i]), opts);
    sum.hypLength += s.hypLength;
    sum.refLength += s.refLength;
    for (let n = 0; n < maxOrder; n++) {
      sum.correct[n] += s.correct[n];
      sum.total[n] += s.total[n];
    }
  }
  return bleuFromStats(sum, opts);
}

/** Sentence BLEU as sacrebleu.sentence_bleu: exp smoothing and effective order unless overridden. */
export function sentenceBleu(hyp: string, refs: readonly string[], opts: BleuOptions = {}): BleuScore {
  const o: BleuOptions = { smooth: 'exp', effectiveOrder: true, ...opts };
  return bleuFromStats(segmentStats(hyp, refs, o), o);
}
