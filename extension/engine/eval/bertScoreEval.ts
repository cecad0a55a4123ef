/**
 * BERTScore of (draft, reference) pairs under an encoder: each distinct text encoded once, then the
 * pure metric (metrics/bertscore.ts), with the summary and signature every table and export reads.
 * Score Draft (through the engine's encoder) and `draftsmith score --bertscore-model` both come here.
 */
import type { BertScoreSummary } from '../../protocol';
import { corpusBertScore, type BertScorePrf, type EncodedText } from '../metrics/bertscore';
import { bertScoreSignature } from '../metrics/signature';
import type { TextEncoder } from '../systems/context';

export interface BertScoreHooks {
  /** Called after each text is encoded, with how many are done. */
  progress?: (done: number, total: number) => void;
  checkCancelled?: () => void;
}

export interface BertScoreRun {
  summary: BertScoreSummary;
  /** Each pair's own, in order. */
  pairs: BertScorePrf[];
}

/**
 * BERTScore of `pairs`. idf is over the pairs' references, so it needs two or more: over one, every
 * token of the reference has idf log(2/2) = 0 and its recall is 0/0 (bert_score's NaN); there the
 * score is computed without idf and its signature says idf:no.
 */
export async function bertScoreOf(
  pairs: readonly { hypothesis: string; reference: string }[],
  encoder: TextEncoder,
  idf: boolean,
  hooks: BertScoreHooks = {},
): Promise<BertScoreRun> {
  const texts = [...new Set(pairs.flatMap((p) => [p.hypothesis, p.reference]))];
  const encoded = new Map<string, EncodedText>();
  for (const [i, text] of texts.entries()) {
    hooks.checkCancelled?.();
    encoded.set(text, await encoder.encode(text));
    hooks.progress?.(i + 1, texts.length);
  }
  const withIdf = idf && pairs.length > 1;
  const scored = corpusBertScore(
    pairs.map((p) => ({ hypothesis: encoded.get(p.hypothesis)!, reference: encoded.get(p.reference)! })),
    withIdf,
    encoder.specials,
  );
  const described = { model: encoder.id, layer: encoder.layer, idf: withIdf, dtype: encoder.dtype };
  return {
    summary: {
      precision: scored.precision,
      recall: scored.recall,
      f1: scored.f1,
      ...described,
      signature: bertScoreSignature(described),
    },
    pairs: scored.pairs,
  };
}
