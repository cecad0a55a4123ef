// Reproducibility signatures: the string printed beside a score that says how it was computed.
//
// BLEU and chrF: sacreBLEU 2.6.0's own format, field for field (sacrebleu/metrics/base.py
// Signature.format, bleu.py BLEUSignature, chrf.py CHRFSignature): key:value pairs joined by '|',
// in the order nrefs, bs, ar, seed, then the metric's own keys, and version last; booleans as yes/no.
// The version is the sacreBLEU release whose numbers ours reproduce (the unit tests check them
// against that release's output), so `version:2.6.0` means "the number sacreBLEU 2.6.0 prints".
//
// ROUGE: sacreBLEU has none; ours follows the same shape (see rougeSignature).

import { SMOOTH_DEFAULTS, type BleuOptions } from './bleu';
import type { ChrfOptions } from './chrf';
import type { TerOptions } from './ter';

/** The sacreBLEU release our BLEU and chrF match. */
export const SACREBLEU_VERSION = '2.6.0';
/** The rouge-score release our ROUGE-1/2/L/Lsum match. */
export const ROUGE_SCORE_VERSION = '0.1.2';
/** What a report names beside Draftsmith's own version: the releases whose numbers ours reproduce. */
export const REPORT_VERSIONS: Readonly<Record<string, string>> = {
  'sacreBLEU (BLEU, chrF, TER, the paired tests; numbers matched)': SACREBLEU_VERSION,
  'rouge-score (ROUGE; numbers matched)': ROUGE_SCORE_VERSION,
};

/** What a significance test adds to a signature (PairedTest.__init__ in sacrebleu/significance.py). */
export interface TestSignature {
  /** Bootstrap resamples (paired bootstrap, or the confidence interval of a single system). */
  bs?: number;
  /** Approximate-randomization trials. */
  ar?: number;
  seed?: number;
}

/** Python's f'{x:.2f}': round half to even on the exact binary value (toFixed rounds ties up). */
function pyFixed2(x: number): string {
  const scaled = x * 100;
  // An exact tie at the third decimal is only possible for multiples of 1/8 (see the note above).
  if (Number.isInteger(x * 8) && Math.abs(scaled - Math.trunc(scaled)) === 0.5) {
    const lo = Math.floor(scaled);
    return ((lo % 2 === 0 ? lo : lo + 1) / 100).toFixed(2);
  }
  return x.toFixed(2);
}

function join(pairs: [string, string | number | undefined][]): string {
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}:${v}`)
    .join('|');
}

function common(nrefs: number | 'var', test: TestSignature): [string, string | number | undefined][] {
  return [
    ['nrefs', nrefs],
    ['bs', test.bs],
    ['ar', test.ar],
    ['seed', test.seed],
  ];
}

/** BLEUSignature: e.g. `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`; floor and add-k
 * carry their value, `smooth:floor[0.10]`. */
export function bleuSignature(opts: BleuOptions, nrefs: number | 'var', test: TestSignature = {}): string {
  const method = opts.smooth ?? 'exp';
  const def = SMOOTH_DEFAULTS[method];
  const smooth = def === null ? method : `${method}[${pyFixed2(opts.smoothValue ?? def)}]`;
  return join([
    ...common(nrefs, test),
    ['case', opts.lowercase ? 'lc' : 'mixed'],
    ['eff', opts.effectiveOrder ? 'yes' : 'no'],
    ['tok', opts.tokenize ?? '13a'],
    ['smooth', smooth],
    ['version', SACREBLEU_VERSION],
  ]);
}

/** CHRFSignature: e.g. `nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0` (eff is "yes"
 * unless eps smoothing is on: sacreBLEU's effective-order averaging). */
export function chrfSignature(opts: ChrfOptions, nrefs: number | 'var', test: TestSignature = {}): string {
  return join([
    ...common(nrefs, test),
    ['case', opts.lowercase ? 'lc' : 'mixed'],
    ['eff', opts.epsSmoothing ? 'no' : 'yes'],
    ['nc', opts.charOrder ?? 6],
    ['nw', opts.wordOrder ?? 0],
    ['space', opts.whitespace ? 'yes' : 'no'],
    ['version', SACREBLEU_VERSION],
  ]);
}

/** TERSignature: e.g. `nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0` (case
 * is "lc" unless case-sensitive; punct is "yes" unless punctuation is removed). */
export function terSignature(opts: TerOptions, nrefs: number | 'var', test: TestSignature = {}): string {
  return join([
    ...common(nrefs, test),
    ['case', opts.caseSensitive ? 'mixed' : 'lc'],
    ['tok', 'tercom'],
    ['norm', opts.normalized ? 'yes' : 'no'],
    ['punct', opts.noPunct ? 'no' : 'yes'],
    ['asian', opts.asianSupport ? 'yes' : 'no'],
    ['version', SACREBLEU_VERSION],
  ]);
}

export interface RougeSignatureOptions {
  stem?: boolean;
  /** How ROUGE-Lsum's sentences were found: 'nlp' (wink-nlp, what Score Draft and `draftsmith score`
   * do) or 'newline' (the text's own lines, as rouge-score with split_summaries=False). */
  split?: 'nlp' | 'newline';
  /** Several references: ROUGE-1.5.5's jackknifing instead of rouge-score's best reference. */
  jackknife?: boolean;
}

/** Our ROUGE signature, in sacreBLEU's shape:
 * `nrefs:1|agg:mean|tok:rouge-score|stem:no|split:nlp|w:1.2|version:rouge-score-0.1.2`
 *   agg   corpus figure = mean over pairs of each pair's P, R, F1 (rouge-score's aggregator centre)
 *   multi only with several references (nrefs other than 1): 'max', the best reference by F1
 *         (rouge-score's score_multi), or 'jk', ROUGE-1.5.5's jackknifing (rougeMulti in rouge.ts)
 *   tok   rouge-score's DefaultTokenizer (lowercase, non-[a-z0-9] to spaces)
 *   stem  Porter stemming (use_stemmer)
 *   split how ROUGE-Lsum found sentences
 *   w     ROUGE-W's weight (ROUGE-1.5.5 -w 1.2; the paper's equations, Lin 2004)
 *   version the rouge-score release ROUGE-1/2/L/Lsum reproduce. */
export function rougeSignature(opts: RougeSignatureOptions = {}, nrefs: number | 'var' = 1): string {
  return join([
    ['nrefs', nrefs],
    ['agg', 'mean'],
    ['multi', nrefs === 1 ? undefined : opts.jackknife ? 'jk' : 'max'],
    ['tok', 'rouge-score'],
    ['stem', opts.stem ? 'yes' : 'no'],
    ['split', opts.split ?? 'nlp'],
    ['w', '1.2'],
    ['version', `rouge-score-${ROUGE_SCORE_VERSION}`],
  ]);
}

/**
 * BERTScore's implementation version: bumped when what the same encoder gives changes (tokens read,
 * weights, matching). bert_score's hash names model, layer, idf and rescaling; ours adds the data type
 * of the graph that ran (a quantized encoder gives other numbers).
 */
export const BERTSCORE_VERSION = 'draftsmith-1';

export interface BertScoreSignatureOptions {
  /** The encoder as the user chose it (Hub id[@revision], or a folder). */
  model: string;
  layer: number;
  idf: boolean;
  dtype: string;
}

/** BERTScore's signature, in sacreBLEU's shape: no baseline rescaling (rescale:no), ever. */
export function bertScoreSignature(o: BertScoreSignatureOptions, nrefs: number | 'var' = 1): string {
  return join([
    ['nrefs', nrefs],
    ['model', o.model],
    ['layer', o.layer],
    ['idf', o.idf ? 'yes' : 'no'],
    ['rescale', 'no'],
    ['dtype', o.dtype],
    ['version', BERTSCORE_VERSION],
  ]);
}
