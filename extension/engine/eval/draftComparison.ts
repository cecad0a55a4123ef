/**
 * Two drafts of the same text against one reference: which is better, and is the difference more
 * than chance? sacreBLEU's paired bootstrap (1,000 resamples, seed 12345, engine/metrics/significance.ts)
 * over segments of the texts. A paired test needs segments that correspond across the drafts and
 * the reference:
 *  - 'lines': when the two drafts and the reference have the same number of non-empty lines (two or
 *    more), line i of each is segment i, sacreBLEU's own convention (one segment a line);
 *  - 'reference-sentences': otherwise, segment j is the reference's sentence j with, from each draft,
 *    the sentences whose best-matching reference sentence (by ROUGE-L F1, as Score Draft's sentence
 *    table) is j, in order. A draft sentence matches exactly one reference sentence, so each draft's
 *    words are all counted once.
 * The metrics are the sentence-level statistics of eval/metricList.ts: BLEU (Score Draft's options),
 * chrF when asked for, ROUGE-1 and ROUGE-L (F1, the mean over segments, as `draftsmith score -m
 * rouge1 rougeL`): with 'lines' the numbers are the ones
 * `draftsmith score --ref R --hyp A --hyp B -m bleu rouge1 rougeL --paired-bs` prints for the same lines.
 */
import type { ComparedMetric, CorpusScores, DraftComparison, SentenceScore } from '../../protocol';
import { DEFAULT_BS_SAMPLES, DEFAULT_SEED, pairedBootstrap, type StatMetric } from '../metrics/significance';
import type { NlpSentence } from '../text/nlp';

export interface ComparedDraft {
  name: string;
  text: string;
  scores: CorpusScores;
  sentences: readonly SentenceScore[];
}

const nonEmptyLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

/** The paired segments of the two drafts and the reference (see the header). */
export function pairedSegments(
  first: ComparedDraft,
  second: ComparedDraft,
  reference: string,
  refSentences: readonly NlpSentence[],
): {
  segmentation: DraftComparison['segmentation'];
  a: string[];
  b: string[];
  refs: string[];
} {
  const [la, lb, lr] = [nonEmptyLines(first.text), nonEmptyLines(second.text), nonEmptyLines(reference)];
  if (lr.length >= 2 && la.length === lr.length && lb.length === lr.length)
    return { segmentation: 'lines', a: la, b: lb, refs: lr };
  const gather = (sentences: readonly SentenceScore[]) =>
    refSentences.map((_, j) =>
      sentences
        .filter((s) => s.reference === j)
        .map((s) => s.text)
        .join(' '),
    );
  return {
    segmentation: 'reference-sentences',
    a: gather(first.sentences),
    b: gather(second.sentences),
    refs: refSentences.map((s) => s.text),
  };
}

export function compareDrafts(
  first: ComparedDraft,
  second: ComparedDraft,
  reference: string,
  refSentences: readonly NlpSentence[],
  /** The metrics' sentence-level statistics (eval/metricList.ts sentenceMetrics). */
  metrics: readonly StatMetric[],
): DraftComparison {
  const seg = pairedSegments(first, second, reference, refSentences);
  const samples = DEFAULT_BS_SAMPLES;
  const seed = DEFAULT_SEED;
  const results = pairedBootstrap(
    [
      { name: first.name, hyps: seg.a },
      { name: second.name, hyps: seg.b },
    ],
    [seg.refs],
    metrics,
    { samples, seed },
  );
  // sacreBLEU's p-value, (c + 1) / (n + 1), is 1/(n + 1) for two identical systems (no resample
  // differs, so none exceeds the observed 0): "significant". Identical drafts get p = 1 here instead.
  const identical = seg.a.every((t, i) => t === seg.b[i]);
  const compared: ComparedMetric[] = results.map((r) => {
    const [x, y] = r.systems;
    return {
      metric: r.metric,
      signature: r.signature,
      first: { score: x.score, mean: x.mean ?? x.score, ci: x.ci ?? 0 },
      second: { score: y.score, mean: y.mean ?? y.score, ci: y.ci ?? 0, pValue: identical ? 1 : (y.pValue ?? 1) },
    };
  });
  return {
    secondName: second.name,
    secondScores: second.scores,
    segmentation: seg.segmentation,
    segments: seg.refs.length,
    samples,
    seed,
    metrics: compared,
  };
}
