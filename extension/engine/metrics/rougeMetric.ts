// ROUGE-1/2/L/Lsum as metrics of the sacreBLEU-style workflow (`draftsmith score -m rouge1 ...`):
// several references per segment, corpus scores, confidence intervals and paired tests.
//
// A segment's statistics are [100 · F1, 1], so summed statistics give the corpus figure rouge-score's
// users report, the mean over segments of each segment's F1 (its BootstrapAggregator's centre),
// on sacreBLEU's 0–100 scale; a bootstrap resample's score is the mean over the resampled segments.
// Each segment's F1 is rougeMulti's (rouge.ts): the best reference, or jackknifing.

import { splitSentences } from '../text/reader';
import { ROUGE_TYPES, rougeMulti, type RougeMultiOptions, type RougeMultiScores, type RougeType } from './rouge';
import { rougeSignature } from './signature';
import type { StatMetric } from './significance';

export interface RougeMetricOptions extends RougeMultiOptions {
  /** Sentences for ROUGE-Lsum: 'newline' (the text's own lines, rouge-score's default) or 'nlp'
   * (Draftsmith's sentence splitter, what Score Draft uses). Default 'nlp', as in every table. */
  split?: 'newline' | 'nlp';
  /** The signature says nrefs:var: segments have different numbers of references. */
  varRefs?: boolean;
}

export const ROUGE_NAMES: Readonly<Record<RougeType, string>> = {
  rouge1: 'ROUGE-1',
  rouge2: 'ROUGE-2',
  rougeL: 'ROUGE-L',
  rougeLsum: 'ROUGE-Lsum',
};

/** Text with one sentence a line, as rouge-score's split_summaries does with NLTK. */
const splitLines = (text: string) => splitSentences(text).join('\n');

/**
 * StatMetrics for the given ROUGE types. They share one cache of each segment's scores, so asking
 * for all four types scores every segment once. References a segment lacks (a hole in a sparse
 * stream) are skipped.
 */
export function rougeMetrics(types: readonly RougeType[], opts: RougeMetricOptions = {}): StatMetric[] {
  // Keyed by the hypothesis, then by its references (one reference: the text itself, no joined copy).
  const cache = new Map<string, Map<string, RougeMultiScores>>();
  const split = opts.split ?? 'nlp';
  const scoresOf = (hyp: string, refs: readonly string[]): RougeMultiScores => {
    const present = refs.filter((r) => typeof r === 'string');
    const key = present.length === 1 ? present[0] : present.join('\u0001');
    let byRefs = cache.get(hyp);
    if (byRefs === undefined) {
      byRefs = new Map();
      cache.set(hyp, byRefs);
    }
    let s = byRefs.get(key);
    if (s === undefined) {
      s = split === 'nlp' ? rougeMulti(splitLines(hyp), present.map(splitLines), opts) : rougeMulti(hyp, present, opts);
      byRefs.set(key, s);
    }
    return s;
  };
  return types.map((type) => {
    const score = (stats: ArrayLike<number>) => (stats[1] > 0 ? stats[0] / stats[1] : 0);
    return {
      name: ROUGE_NAMES[type],
      segmentStats: (hyp, refs) => [100 * scoresOf(hyp, refs)[type].f1, 1],
      score,
      scoreFloat32: (stats) => ({ v: score(stats), f: false }),
      signature: (nrefs, test) => {
        const base = rougeSignature(
          { stem: opts.stem, split, jackknife: opts.jackknife },
          opts.varRefs ? 'var' : nrefs,
        );
        const extra = [
          test?.bs === undefined ? '' : `bs:${test.bs}|`,
          test?.ar === undefined ? '' : `ar:${test.ar}|`,
          test?.seed === undefined ? '' : `seed:${test.seed}|`,
        ].join('');
        return extra ? base.replace(/^(nrefs:[^|]+\|)/, `$1${extra}`) : base;
      },
    };
  });
}

/** `-m` names: rouge1, rouge2, rougeL, rougeLsum (rouge-score's), or rouge for all four. */
export function rougeTypesOf(name: string): RougeType[] | undefined {
  if (name === 'rouge') return [...ROUGE_TYPES];
  const t = ROUGE_TYPES.find((x) => x.toLowerCase() === name.toLowerCase());
  return t === undefined ? undefined : [t];
}
