// BLEU (Papineni et al., 2002), corpus and sentence level.
//
// Reference implementation matched: sacreBLEU 2.6.0 (Post, 2018), `sacrebleu.metrics.BLEU`
// (sacrebleu/metrics/bleu.py): the tokenizers 13a (default; sacrebleu/tokenizers/tokenizer_13a.py),
// intl (tokenizer_intl.py), char (tokenizer_char.py), zh (tokenizer_zh.py) and none
// (tokenizer_none.py); 4-grams by default (`max_ngram_order`); closest reference length (the
// shorter on a tie, BLEU._get_closest_ref_len); n-gram counts clipped by the maximum over
// references (BLEU._extract_reference_info); its four smoothing methods (Chen & Cherry 2014,
// BLEU.compute_bleu): none, floor (method 1), add-k (method 2), exp (method 3, the default);
// effective order; lowercase. test/fixtures/bleu-sacrebleu.json and sacrebleu-options.json hold
// sacreBLEU's own outputs; the unit tests require agreement to 1e-9 BLEU or better.
//
//   p_n  = 100 · Σ clipped matches of n-grams / Σ n-grams of the hypotheses
//   BP   = 1 if c ≥ r, else exp(1 − r/c)            (c: hypothesis tokens, r: closest reference tokens)
//   BLEU = BP · exp( (1/N) Σ_{n ≤ N} log p_n )        on a 0–100 scale, as sacreBLEU prints it.

export type BleuSmoothing = 'none' | 'floor' | 'add-k' | 'exp';
export type BleuTokenizer = '13a' | 'intl' | 'char' | 'zh' | 'none';
/** sacreBLEU's names, in its --tokenize order (the MeCab and SentencePiece ones are not here). */
export const BLEU_TOKENIZERS: readonly BleuTokenizer[] = ['none', 'zh', '13a', 'intl', 'char'];
export const BLEU_SMOOTHINGS: readonly BleuSmoothing[] = ['none', 'floor', 'add-k', 'exp'];
/** BLEU.SMOOTH_DEFAULTS: the value floor and add-k use when none is given. */
export const SMOOTH_DEFAULTS: Readonly<Record<BleuSmoothing, number | null>> = {
  none: null,
  floor: 0.1,
  'add-k': 1,
  exp: null,
};

export interface BleuOptions {
  /** Default 'exp' (sacreBLEU's default for both corpus and sentence BLEU). */
  smooth?: BleuSmoothing;
  /** ε for 'floor' (default 0.1) and k for 'add-k' (default 1). */
  smoothValue?: number;
  lowercase?: boolean;
  /** Default '13a'. 'none' splits on whitespace only; 'intl', 'char', 'zh' as sacreBLEU's. */
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

/** A score's reported numbers (the protocol's BleuSummary): everything but the raw n-gram counts. */
export function bleuSummary(b: BleuScore): Omit<BleuScore, 'counts' | 'totals'> {
  return {
    score: b.score,
    precisions: b.precisions,
    brevityPenalty: b.brevityPenalty,
    ratio: b.ratio,
    hypLength: b.hypLength,
    refLength: b.refLength,
  };
}

/* eslint-disable no-control-regex -- the same characters as Python's str.isspace(), control ones included */
// Python's str.split() splits on these (str.isspace); JavaScript's \s differs (\x1c-\x1f, \x85, \ufeff).
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const PY_TRAILING_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u;
/* eslint-enable no-control-regex */

function pySplit(s: string): string[] {
  return s.split(PY_WHITESPACE).filter((t) => t.length > 0);
}

// sacrebleu/tokenizers/tokenizer_re.py, in order. No 'u' flag (it is ~2x slower here): the rules
// only insert spaces next to ASCII characters, so a surrogate pair is never split.
const RULES_13A: ReadonlyArray<readonly [RegExp, string]> = [
  // eslint-disable-next-line no-useless-escape -- written as sacrebleu's tokenizer_re.py writes it
  [/([\{-~\[-` -&\(-\+:-@\/])/g, ' $1 '], // symbols and punctuation other than . , -
  [/([^0-9])([.,])/g, '$1 $2 '], // period and comma unless preceded by a digit
  [/([.,])([^0-9])/g, ' $1 $2'], // period and comma unless followed by a digit
  [/([0-9])(-)/g, '$1 $2 '], // dash when preceded by a digit
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

// sacrebleu/tokenizers/tokenizer_intl.py, TokenizerV14International (mteval-v14.pl's international
// tokenization): punctuation not between digits and every symbol become tokens. Python's `regex`
// module and JavaScript's \p{...} both follow the Unicode general categories.
const RULES_INTL: ReadonlyArray<readonly [RegExp, string]> = [
  [/(\P{N})(\p{P})/gu, '$1 $2 '],
  [/(\p{P})(\P{N})/gu, ' $1 $2'],
  [/(\p{S})/gu, ' $1 '],
];

export function tokenizeIntl(line: string): string[] {
  let s = line;
  for (const [re, replacement] of RULES_INTL) s = s.replace(re, replacement);
  return pySplit(s);
}

/** sacrebleu/tokenizers/tokenizer_char.py: every character a token (" ".join(line), then split, so
 * whitespace characters vanish). Characters are code points, as in Python. */
export function tokenizeChar(line: string): string[] {
  return Array.from(line).filter((c) => !PY_WHITESPACE.test(c));
}

// sacrebleu/tokenizers/tokenizer_zh.py, _UCODE_RANGES, compared as Python compares strings. Two of
// its entries are written '\u20000'..'\u2a6d6' and '\u2f800'..'\u2fa1d', which Python reads as a
// 4-digit escape plus a digit or letter: a one-character string c then lies in them when
// U+2001 <= c <= U+2A6D and U+2F81 <= c <= U+2FA1. sacreBLEU therefore treats general punctuation
// (U+2018 quotes, U+2014 dashes, U+2026 ...), currency signs, arrows, math symbols etc. as Chinese
// characters; we reproduce that, since matching its numbers is the point.
const ZH_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x3400, 0x4db5],
  [0x4e00, 0x9fa5],
  [0x9fa6, 0x9fbb],
  [0xf900, 0xfa2d],
  [0xfa30, 0xfa6a],
  [0xfa70, 0xfad9],
  [0x2001, 0x2a6d],
  [0x2f81, 0x2fa1],
  [0xff00, 0xffef],
  [0x2e80, 0x2eff],
  [0x3000, 0x303f],
  [0x31c0, 0x31ef],
  [0x2f00, 0x2fdf],
  [0x2ff0, 0x2fff],
  [0x3100, 0x312f],
  [0x31a0, 0x31bf],
  [0xfe10, 0xfe1f],
  [0xfe30, 0xfe4f],
  [0x2600, 0x26ff],
  [0x2700, 0x27bf],
  [0x3200, 0x32ff],
  [0x3300, 0x33ff],
];

function isChineseChar(c: string): boolean {
  const cp = c.codePointAt(0) ?? 0;
  return ZH_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
}

const PY_LEADING_WHITESPACE = new RegExp('^' + PY_WHITESPACE.source, 'u');

/** TokenizerZh: Chinese characters spaced out, then the 13a rules (TokenizerRegexp) on the line
 * WITHOUT the padding spaces Tokenizer13a adds, so e.g. a final "3." stays one token as there. */
export function tokenizeZh(line: string): string[] {
  let s = '';
  for (const c of line.replace(PY_LEADING_WHITESPACE, '').replace(PY_TRAILING_WHITESPACE, ''))
    s += isChineseChar(c) ? ` ${c} ` : c;
  for (const [re, replacement] of RULES_13A) s = s.replace(re, replacement);
  return pySplit(s);
}

/** The tokens BLEU counts for a segment under a tokenizer (BLEU._preprocess_segment then
 * extract_all_word_ngrams' split). */
export function bleuTokens(line: string, tokenizer: BleuTokenizer = '13a'): string[] {
  switch (tokenizer) {
    case '13a':
      return tokenize13a(line);
    case 'intl':
      return tokenizeIntl(line);
    case 'char':
      return tokenizeChar(line);
    case 'zh':
      return tokenizeZh(line);
    case 'none':
      return pySplit(line);
    default:
      throw new RangeError(
        `unknown BLEU tokenizer "${String(tokenizer)}" (sacreBLEU's are ${BLEU_TOKENIZERS.join(', ')})`,
      );
  }
}

/** BLEU._preprocess_segment: lowercase (optionally), strip trailing whitespace, tokenize. */
function preprocess(segment: string, opts: BleuOptions): string[] {
  let s = opts.lowercase ? segment.toLowerCase() : segment;
  s = s.replace(PY_TRAILING_WHITESPACE, '');
  return bleuTokens(s, opts.tokenize ?? '13a');
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
    score,
    precisions,
    brevityPenalty,
    ratio: refLength > 0 ? hypLength / refLength : 0,
    hypLength,
    refLength,
    counts: correct,
    totals: total,
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

/** Throws unless every reference stream has one reference per hypothesis (sacreBLEU's corpus scores check it too). */
export function checkReferenceStreams(
  what: string,
  hyps: readonly string[],
  refs: readonly (readonly string[])[],
): void {
  for (const stream of refs) {
    if (stream.length !== hyps.length)
      throw new RangeError(
        `${what} needs one reference per hypothesis in every reference stream, got ${hyps.length} and ${stream.length}`,
      );
  }
}

/**
 * A sacreBLEU corpus metric: hypotheses, reference streams (`refs[j][i]`: the j-th reference of segment i), options.
 */
export type CorpusMetric<O, S> = (hyps: readonly string[], refs: readonly (readonly string[])[], opts?: O) => S;

/** Corpus BLEU: statistics summed over segments, then one score (not a mean of sentence scores).
 * `refs[j][i]` is the j-th reference of segment i, as sacrebleu.corpus_bleu takes them. */
export const corpusBleu: CorpusMetric<BleuOptions, BleuScore> = (hyps, refs, opts = {}) => {
  checkReferenceStreams('corpusBleu', hyps, refs);
  const maxOrder = opts.maxOrder ?? 4;
  const sum: BleuStats = {
    hypLength: 0,
    refLength: 0,
    correct: new Array(maxOrder).fill(0),
    total: new Array(maxOrder).fill(0),
  };
  for (let i = 0; i < hyps.length; i++) {
    const s = segmentStats(
      hyps[i],
      refs.map((stream) => stream[i]),
      opts,
    );
    sum.hypLength += s.hypLength;
    sum.refLength += s.refLength;
    for (let n = 0; n < maxOrder; n++) {
      sum.correct[n] += s.correct[n];
      sum.total[n] += s.total[n];
    }
  }
  return bleuFromStats(sum, opts);
};

/** Sentence BLEU as sacrebleu.sentence_bleu: exp smoothing and effective order unless overridden. */
export function sentenceBleu(hyp: string, refs: readonly string[], opts: BleuOptions = {}): BleuScore {
  const o: BleuOptions = { ...opts, smooth: opts.smooth ?? 'exp', effectiveOrder: opts.effectiveOrder ?? true };
  return bleuFromStats(segmentStats(hyp, refs, o), o);
}

/** Summed statistics flattened as sacreBLEU keeps them: [hypLen, refLen, correct_1..N, total_1..N]. */
export function flattenBleuStats(s: BleuStats): number[] {
  return [s.hypLength, s.refLength, ...s.correct, ...s.total];
}

export function unflattenBleuStats(flat: ArrayLike<number>, maxOrder: number): BleuStats {
  const correct: number[] = [];
  const total: number[] = [];
  for (let n = 0; n < maxOrder; n++) {
    correct.push(flat[2 + n]);
    total.push(flat[2 + maxOrder + n]);
  }
  return { hypLength: flat[0], refLength: flat[1], correct, total };
}

const f32 = Math.fround;

/** BLEU.compute_bleu as sacreBLEU runs it on a bootstrap resample (significance.py converts the
 * statistics to a float32 array): under NumPy ≥ 2 (NEP 50) every precision is then a float32
 * (a Python float meeting a float32 is rounded to float32 first), while the brevity penalty and the
 * final exp/log stay in double. Only the resampled scores of a paired bootstrap use this; the
 * score itself is always bleuFromStats. Returns the score (0–100). */
export function bleuScoreNumpyFloat32(flat: ArrayLike<number>, opts: BleuOptions = {}): number {
  const method = opts.smooth ?? 'exp';
  const maxOrder = (flat.length - 2) / 2;
  const k = opts.smoothValue ?? (method === 'floor' ? 0.1 : 1);
  const correct: number[] = [];
  const total: number[] = [];
  for (let n = 0; n < maxOrder; n++) {
    correct.push(f32(flat[2 + n]));
    total.push(f32(flat[2 + maxOrder + n]));
  }
  const hypLength = Math.trunc(flat[0]);
  const refLength = Math.trunc(flat[1]);
  const bp = hypLength < refLength ? (hypLength > 0 ? Math.exp(1 - refLength / hypLength) : 0) : 1;
  if (!correct.some((c) => c > 0)) return 0;
  const precisions = new Array<number>(maxOrder).fill(0);
  let smoothMteval = 1;
  let order = maxOrder;
  for (let n = 1; n <= maxOrder; n++) {
    if (method === 'add-k' && n > 1) {
      correct[n - 1] = f32(correct[n - 1] + f32(k));
      total[n - 1] = f32(total[n - 1] + f32(k));
    }
    if (total[n - 1] === 0) break;
    if (opts.effectiveOrder) order = n;
    if (correct[n - 1] === 0) {
      if (method === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = f32(100 / f32(smoothMteval * total[n - 1]));
      } else if (method === 'floor') {
        precisions[n - 1] = f32(f32(100 * k) / total[n - 1]);
      }
    } else {
      precisions[n - 1] = f32(f32(100 * correct[n - 1]) / total[n - 1]);
    }
  }
  let logSum = 0;
  for (let n = 0; n < order; n++) logSum += floorLog(precisions[n]);
  return bp * Math.exp(logSum / order);
}
