// ROUGE (Lin, 2004, "ROUGE: A Package for Automatic Evaluation of Summaries").
//
// Reference implementations matched:
//   - ROUGE-N, ROUGE-L, ROUGE-Lsum and the tokenizer: Google's `rouge-score` 0.1.2
//     (rouge_scorer.RougeScorer, DefaultTokenizer), the scorer most summarization papers
//     report with. Stemming is NLTK's PorterStemmer, ported in ./porterStemmer.ts.
//   - ROUGE-W: the weighted LCS of ROUGE-1.5.5 (-w 1.2). rouge-score has no ROUGE-W.
//
// Argument order: every function here takes (prediction, reference). rouge-score's
// `scorer.score(target, prediction)` takes them the other way round.
//
// Tokens: lowercase, every character outside [a-z0-9] becomes a space, split on whitespace;
// with `stem`, tokens longer than 3 characters are Porter-stemmed. Nothing else is dropped.
//
// Equations (|x| counts tokens or n-grams; F1 = 2PR / (P + R), and 0 when P + R = 0):
//   ROUGE-N:    overlap = sum over n-grams g of min(count_pred(g), count_ref(g))
//               P = overlap / |pred n-grams|,  R = overlap / |ref n-grams|
//   ROUGE-L:    P = LCS(pred, ref) / |pred|,  R = LCS(pred, ref) / |ref|  (whole texts as one sequence)
//   ROUGE-Lsum: texts split into sentences on '\n'; for each reference sentence r, the union of the
//               reference positions on one LCS of r with each prediction sentence; each token in that
//               union is a hit while both texts still have an unused occurrence of it (counts are
//               spent as hits are made).  P = hits / |pred|,  R = hits / |ref|
//   ROUGE-W:    WLCS by dynamic programming with weight f(k) = k^w (w = 1.2): a match extending a run
//               of k consecutive matches adds f(k+1) - f(k), so runs score more than scattered hits.
//               Lin (2004), Eq. 10-12:  P = f^-1(WLCS / f(|pred|)),  R = f^-1(WLCS / f(|ref|)),
//               f^-1(x) = x^(1/w). The `variant: 'rouge155'` option reproduces the Perl script's own
//               arithmetic instead, documented at rougeW155 below.

import { porterStem } from './porterStemmer';

export interface Score {
  precision: number;
  recall: number;
  f1: number;
}

export interface RougeOptions {
  /** Porter-stem tokens longer than 3 characters (rouge-score's use_stemmer). Default false. */
  stem?: boolean;
}

export interface RougeWOptions extends RougeOptions {
  /** The weight w in f(k) = k^w. Default 1.2, as in ROUGE-1.5.5's usual `-w 1.2`. */
  weight?: number;
  /** 'lin2004' (default): the paper's equations, so identical texts score 1.
   * 'rouge155': the numbers ROUGE-1.5.5.pl prints, for comparing with tables made with it. */
  variant?: 'lin2004' | 'rouge155';
}

export interface RougeScores {
  rouge1: Score;
  rouge2: Score;
  rougeL: Score;
  rougeLsum: Score;
  rougeW: Score;
}

const ZERO: Readonly<Score> = Object.freeze({ precision: 0, recall: 0, f1: 0 });

function score(precision: number, recall: number): Score {
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

// Stems are cached: corpora repeat words, and the stemmer walks each word several times.
const stemCache = new Map<string, string>();
function cachedStem(token: string): string {
  let s = stemCache.get(token);
  if (s === undefined) {
    if (stemCache.size >= 100_000) stemCache.clear();
    s = porterStem(token);
    stemCache.set(token, s);
  }
  return s;
}

/** rouge-score's tokenizer: lowercase, non-[a-z0-9] to spaces, split, optionally stem. */
export function tokenize(text: string, stem = false): string[] {
  // The maximal runs of [a-z0-9]: what replacing everything else by spaces and splitting leaves.
  const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return stem ? tokens.map((t) => (t.length > 3 ? cachedStem(t) : t)) : tokens;
}

/** Sentences for ROUGE-Lsum: split on '\n' only, dropping empty lines (as rouge-score does). */
function sentenceTokens(text: string, stem: boolean): string[][] {
  return text
    .split('\n')
    .filter((s) => s.length > 0)
    .map((s) => tokenize(s, stem));
}

/** A token: its text, or (rougeMulti) its id in the texts' own vocabulary, which compares faster. */
type Tok = string | number;

function counts<T extends Tok>(items: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const it of items) m.set(it, (m.get(it) ?? 0) + 1);
  return m;
}

/** Ids below this make a bigram one exact number (id1 · ID_BASE + id2 < 2^53). */
const ID_BASE = 2 ** 22;

function ngrams<T extends Tok>(tokens: readonly T[], n: number): readonly Tok[] {
  if (n === 1) return tokens;
  const out: Tok[] = [];
  if (n === 2 && tokens.every((t) => typeof t === 'number' && t < ID_BASE)) {
    for (let i = 0; i + 1 < tokens.length; i++) out.push((tokens[i] as number) * ID_BASE + (tokens[i + 1] as number));
    return out;
  }
  // Tokens are [a-z0-9]+ (or ids), so a space cannot collide inside an n-gram key.
  for (let i = 0; i + n <= tokens.length; i++) out.push(tokens.slice(i, i + n).join(' '));
  return out;
}

function scoreNgrams<T extends Tok>(pred: readonly T[], ref: readonly T[], n: number): Score {
  const p = counts(ngrams(pred, n));
  const r = counts(ngrams(ref, n));
  let overlap = 0;
  for (const [g, c] of r) overlap += Math.min(c, p.get(g) ?? 0);
  const predTotal = Math.max(pred.length - n + 1, 0);
  const refTotal = Math.max(ref.length - n + 1, 0);
  // rouge-score divides by max(count, 1), so no n-grams at all gives 0, not NaN.
  return score(overlap / Math.max(predTotal, 1), overlap / Math.max(refTotal, 1));
}

/** ROUGE-N for n >= 1: clipped n-gram overlap. */
export function rougeN(pred: string, ref: string, n: number, opts: RougeOptions = {}): Score {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`ROUGE-N needs a positive integer n, got ${n}`);
  const stem = opts.stem ?? false;
  return scoreNgrams(tokenize(pred, stem), tokenize(ref, stem), n);
}

/** LCS length table, (ref.length + 1) x (can.length + 1), row-major. */
function lcsTable<T extends Tok>(ref: readonly T[], can: readonly T[]): Int32Array {
  const cols = can.length + 1;
  const t = new Int32Array((ref.length + 1) * cols);
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= can.length; j++) {
      t[i * cols + j] =
        ref[i - 1] === can[j - 1]
          ? t[(i - 1) * cols + j - 1] + 1
          : Math.max(t[(i - 1) * cols + j], t[i * cols + j - 1]);
    }
  }
  return t;
}

/** The LCS's length only: the table's last row, two rows at a time. */
function lcsLength<T extends Tok>(ref: readonly T[], can: readonly T[]): number {
  let prev = new Int32Array(can.length + 1);
  let row = new Int32Array(can.length + 1);
  for (let i = 1; i <= ref.length; i++) {
    const r = ref[i - 1];
    for (let j = 1; j <= can.length; j++) {
      row[j] = r === can[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    }
    [prev, row] = [row, prev];
  }
  return prev[can.length];
}

function scoreLcs<T extends Tok>(pred: readonly T[], ref: readonly T[]): Score {
  if (pred.length === 0 || ref.length === 0) return { ...ZERO };
  const lcs = lcsLength(ref, pred);
  return score(lcs / pred.length, lcs / ref.length);
}

/** ROUGE-L: LCS over the whole token sequences. */
export function rougeL(pred: string, ref: string, opts: RougeOptions = {}): Score {
  const stem = opts.stem ?? false;
  return scoreLcs(tokenize(pred, stem), tokenize(ref, stem));
}

/** Reference indices of one LCS, read back the way rouge-score's _backtrack_norec does (on a tie
 * it moves up in the reference), since which LCS is chosen changes the union in ROUGE-Lsum. */
function lcsIndices<T extends Tok>(ref: readonly T[], can: readonly T[]): number[] {
  const t = lcsTable(ref, can);
  const cols = can.length + 1;
  const out: number[] = [];
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.push(i - 1);
      i--;
      j--;
    } else if (t[i * cols + j - 1] > t[(i - 1) * cols + j]) {
      j--;
    } else {
      i--;
    }
  }
  return out;
}

/**
 * What both summary-level scores (ROUGE-Lsum, ROUGE-1.5.5's W) count against: each text's length and
 * the tokens each has left to match, so that a token is matched at most as often as it occurs in
 * either text. Null when either text has no token.
 */
function summaryTokens<T extends Tok>(predSents: readonly (readonly T[])[], refSents: readonly (readonly T[])[]) {
  const predLen = predSents.reduce((a, s) => a + s.length, 0);
  const refLen = refSents.reduce((a, s) => a + s.length, 0);
  if (predLen === 0 || refLen === 0) return null;
  const predLeft = counts(predSents.flat());
  const refLeft = counts(refSents.flat());
  /** Uses one `tok` of each text, if both have one left. */
  const take = (tok: T): boolean => {
    const p = predLeft.get(tok) ?? 0;
    const q = refLeft.get(tok) ?? 0;
    if (p === 0 || q === 0) return false;
    predLeft.set(tok, p - 1);
    refLeft.set(tok, q - 1);
    return true;
  };
  return { predLen, refLen, take };
}

function summaryLevelLcs<T extends Tok>(
  predSents: readonly (readonly T[])[],
  refSents: readonly (readonly T[])[],
): Score {
  const tokens = summaryTokens(predSents, refSents);
  if (tokens === null) return { ...ZERO };
  let hits = 0;
  for (const r of refSents) {
    // The union of the LCS positions, walked in order (rouge-score sorts the union).
    const union = new Uint8Array(r.length);
    for (const c of predSents) for (const i of lcsIndices(r, c)) union[i] = 1;
    for (let i = 0; i < r.length; i++) if (union[i] && tokens.take(r[i])) hits++;
  }
  return score(hits / tokens.predLen, hits / tokens.refLen);
}

/** ROUGE-Lsum: summary-level union LCS over newline-separated sentences. */
export function rougeLsum(pred: string, ref: string, opts: RougeOptions = {}): Score {
  const stem = opts.stem ?? false;
  return summaryLevelLcs(sentenceTokens(pred, stem), sentenceTokens(ref, stem));
}

/** Lin's WLCS dynamic programme of ref (rows) against can (columns). Returns the WLCS value and
 * the reference positions on the path read back as ROUGE-1.5.5's markLCS does (a match goes
 * diagonal; otherwise up when c[i-1][j] >= c[i][j-1], else left). */
function wlcs(ref: readonly string[], can: readonly string[], weight: number): { value: number; refHits: number[] } {
  const m = ref.length;
  const n = can.length;
  const cols = n + 1;
  const c = new Float64Array((m + 1) * cols); // weighted score
  const run = new Int32Array((m + 1) * cols); // length of the consecutive match ending here
  const move = new Uint8Array((m + 1) * cols); // 1 diagonal, 2 up, 3 left
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const at = i * cols + j;
      if (ref[i - 1] === can[j - 1]) {
        const k = run[at - cols - 1];
        c[at] = c[at - cols - 1] + (k + 1) ** weight - k ** weight;
        run[at] = k + 1;
        move[at] = 1;
      } else if (c[at - cols] >= c[at - 1]) {
        c[at] = c[at - cols];
        move[at] = 2;
      } else {
        c[at] = c[at - 1];
        move[at] = 3;
      }
    }
  }
  const refHits: number[] = [];
  let i = m;
  let j = n;
  while (i > 0 && j > 0) {
    const mv = move[i * cols + j];
    if (mv === 1) {
      i--;
      j--;
      refHits.push(i);
    } else if (mv === 2) i--;
    else j--;
  }
  return { value: c[m * cols + n], refHits };
}

/** ROUGE-1.5.5.pl's ROUGE-W, step for step (subs wlcs, wlcs_inner, markLCS, computeWLCSScore):
 *  - per reference sentence, WLCS paths against every prediction sentence mark reference positions;
 *  - marked positions are walked left to right, clipped by unigram counts as in ROUGE-Lsum, and each
 *    run of consecutive marked positions adds f(run length) to the hit;
 *  - R = f^-1(hit / f(sum_i f(|ref sentence i|))): the script weights the reference length twice,
 *    so identical one-sentence texts of k tokens get R = k^(1 - w), not 1;
 *  - P = f^-1(hit / f(|pred|)).
 * One quirk kept on purpose: a marked position that fails the clip neither extends nor ends the
 * current run, exactly as in the script. */
function rougeW155(predSents: readonly string[][], refSents: readonly string[][], w: number): Score {
  const tokens = summaryTokens(predSents, refSents);
  if (tokens === null) return { ...ZERO };
  let hit = 0;
  let base = 0;
  for (const r of refSents) {
    base += r.length ** w;
    const marked = new Uint8Array(r.length);
    for (const c of predSents) for (const i of wlcs(r, c, w).refHits) marked[i] = 1;
    let runLen = 0;
    for (let j = 0; j < r.length; j++) {
      if (!marked[j] || !tokens.take(r[j])) continue;
      runLen++;
      if (j + 1 === r.length || !marked[j + 1]) {
        hit += runLen ** w;
        runLen = 0;
      }
    }
  }
  return score((hit / tokens.predLen ** w) ** (1 / w), (hit / base ** w) ** (1 / w));
}

/** ROUGE-W: weighted LCS, rewarding consecutive matches. See the header for the two variants. */
export function rougeW(pred: string, ref: string, opts: RougeWOptions = {}): Score {
  const stem = opts.stem ?? false;
  const w = opts.weight ?? 1.2;
  if (!(w >= 1)) throw new RangeError(`ROUGE-W weight must be >= 1, got ${w}`);
  if (opts.variant === 'rouge155') return rougeW155(sentenceTokens(pred, stem), sentenceTokens(ref, stem), w);
  const p = tokenize(pred, stem);
  const r = tokenize(ref, stem);
  if (p.length === 0 || r.length === 0) return { ...ZERO };
  const value = wlcs(r, p, w).value;
  return score((value / p.length ** w) ** (1 / w), (value / r.length ** w) ** (1 / w));
}

/** All of ROUGE-1, -2, -L, -Lsum and -W for one prediction, tokenizing each text once. */
export function rougeScores(pred: string, ref: string, opts: RougeWOptions = {}): RougeScores {
  const stem = opts.stem ?? false;
  const p = tokenize(pred, stem);
  const r = tokenize(ref, stem);
  return {
    rouge1: scoreNgrams(p, r, 1),
    rouge2: scoreNgrams(p, r, 2),
    rougeL: scoreLcs(p, r),
    rougeLsum: summaryLevelLcs(sentenceTokens(pred, stem), sentenceTokens(ref, stem)),
    rougeW: rougeW(pred, ref, opts),
  };
}

/** Corpus ROUGE: the mean over documents of each per-document precision, recall and F1 (the mean
 * of F1s, not the F1 of mean P and R), which is what rouge-score's aggregator centres on and what
 * papers report. No documents gives all zeros. */
export function corpusRouge(preds: readonly string[], refs: readonly string[], opts: RougeWOptions = {}): RougeScores {
  if (preds.length !== refs.length) {
    throw new RangeError(`corpusRouge needs one reference per prediction, got ${preds.length} and ${refs.length}`);
  }
  const keys = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'rougeW'] as const;
  const sum: RougeScores = {
    rouge1: { ...ZERO },
    rouge2: { ...ZERO },
    rougeL: { ...ZERO },
    rougeLsum: { ...ZERO },
    rougeW: { ...ZERO },
  };
  for (let d = 0; d < preds.length; d++) {
    const s = rougeScores(preds[d], refs[d], opts);
    for (const k of keys) {
      sum[k].precision += s[k].precision;
      sum[k].recall += s[k].recall;
      sum[k].f1 += s[k].f1;
    }
  }
  const n = Math.max(preds.length, 1);
  for (const k of keys) sum[k] = { precision: sum[k].precision / n, recall: sum[k].recall / n, f1: sum[k].f1 / n };
  return sum;
}

/** The four ROUGE scores rouge-score computes (ROUGE-W is ours and single-reference). */
export const ROUGE_TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const;
export type RougeType = (typeof ROUGE_TYPES)[number];
export type RougeMultiScores = Record<RougeType, Score>;

export interface RougeMultiOptions extends RougeOptions {
  /** ROUGE-1.5.5's jackknifing over several references (see rougeMulti). Default false. */
  jackknife?: boolean;
}

function rougeTypesOf(
  p: readonly number[],
  r: readonly number[],
  pSents: readonly (readonly number[])[],
  rSents: readonly (readonly number[])[],
): RougeMultiScores {
  return {
    rouge1: scoreNgrams(p, r, 1),
    rouge2: scoreNgrams(p, r, 2),
    rougeL: scoreLcs(p, r),
    rougeLsum: summaryLevelLcs(pSents, rSents),
  };
}

/** Of several scores, the first with the highest F1 (np.argmax in rouge-score's score_multi). */
function bestByF1(scores: readonly Score[]): Score {
  let best = scores[0];
  for (const s of scores) if (s.f1 > best.f1) best = s;
  return best;
}

/**
 * ROUGE-1/2/L/Lsum of one prediction against several references.
 *  - default: for each type, the reference whose F1 is highest gives P, R and F1 (rouge-score
 *    0.1.2's RougeScorer.score_multi; on a tie the first reference, as np.argmax);
 *  - jackknife (Lin 2004, section 2.1; ROUGE-1.5.5's procedure with several references): with
 *    M ≥ 2 references, the best score (as above) over each of the M sets of M − 1 references,
 *    then P, R and F1 each averaged over the M sets. One reference: the plain score.
 * ROUGE-Lsum splits on '\n', as rouge-score does; split sentences before calling to use others.
 */
export function rougeMulti(pred: string, refs: readonly string[], opts: RougeMultiOptions = {}): RougeMultiScores {
  if (refs.length === 0) throw new RangeError('ROUGE needs at least one reference');
  const stem = opts.stem ?? false;
  // Tokens as ids of this call's own vocabulary: the same scores, compared and counted as numbers.
  const vocab = new Map<string, number>();
  const ids = (tokens: readonly string[]) =>
    tokens.map((t) => {
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(t, id);
      }
      return id;
    });
  // A text's tokens are its lines' tokens end to end ('\n' is a separator like any other
  // character outside [a-z0-9]), so each text is tokenized once, line by line.
  const pSents = sentenceTokens(pred, stem).map(ids);
  const p = pSents.flat();
  const each = refs.map((r) => {
    const rSents = sentenceTokens(r, stem).map(ids);
    return rougeTypesOf(p, rSents.flat(), pSents, rSents);
  });
  const out = {} as RougeMultiScores;
  for (const k of ROUGE_TYPES) {
    const scores = each.map((e) => e[k]);
    if (!opts.jackknife || scores.length < 2) {
      out[k] = { ...bestByF1(scores) };
      continue;
    }
    const sum = { precision: 0, recall: 0, f1: 0 };
    for (let leave = 0; leave < scores.length; leave++) {
      const b = bestByF1(scores.filter((_, i) => i !== leave));
      sum.precision += b.precision;
      sum.recall += b.recall;
      sum.f1 += b.f1;
    }
    const m = scores.length;
    out[k] = { precision: sum.precision / m, recall: sum.recall / m, f1: sum.f1 / m };
  }
  return out;
}
