/**
 * BERTScore (Zhang, Kishore, Wu, Weinberger and Artzi 2020, "BERTScore: Evaluating Text Generation
 * with BERT", ICLR; cited below by its §3 subsections, whose displays carry P_BERT, R_BERT, F_BERT
 * and idf), as the authors' bert_score package computes it (score → greedy_cos_idf, get_idf_dict):
 * each token of the draft matched to its most similar token of the reference by the cosine of their
 * contextual embeddings, and the other way round.
 *
 * Pure: the embeddings come in (engine/hub/hubEncoder.ts reads them from the chosen encoder). What
 * bert_score does and this module does alike:
 *  - every token of both texts takes part in the matching, [CLS] and [SEP] included (its masks keep
 *    them); they only weigh 0 in the sums;
 *  - idf off: every other token weighs 1; idf on: idf(w) = log((M + 1) / (df(w) + 1)) over the M
 *    references' token ids, log(M + 1) for a token no reference has ([CLS] and [SEP] are in every
 *    reference, so theirs is log 1 = 0);
 *  - a side with no token but [CLS] and [SEP] scores P = R = 0; F is 0 where 2PR/(P + R) is not a number;
 *  - the corpus score is the mean of the pairs' P, R and F.
 * No baseline rescaling (§3, Baseline Rescaling: bert_score's rescale_with_baseline needs its
 * per-model baseline files): the signature says rescale:no. Where every token of a side weighs 0
 * (idf on, one reference, a draft made only of the reference's words), bert_score divides 0 by 0
 * and reports NaN; here that side's score is 0.
 */

/** A text as the encoder read it: its token ids (with the tokenizer's [CLS] and [SEP]) and one vector per token. */
export interface EncodedText {
  ids: readonly number[];
  /** Row-major, ids.length × dim. */
  vectors: ArrayLike<number>;
  dim: number;
}

export interface BertScorePrf {
  precision: number;
  recall: number;
  f1: number;
}

/** A token's weight in the sums of precision and recall (§3, Importance Weighting: its idf, or 1), by token id. */
export type TokenWeights = (id: number) => number;

/** Without idf: 1 for every token but the special ones (bert_score sets [CLS] and [SEP] to 0). */
export function uniformWeights(specials: ReadonlySet<number>): TokenWeights {
  return (id) => (specials.has(id) ? 0 : 1);
}

/**
 * idf over the references (§3, Importance Weighting: idf(w) = −log (1/M) Σ I[w ∈ x(i)], with the
 * plus-one smoothing the paper names, as bert_score's get_idf_dict computes it):
 * idf(w) = log((M + 1) / (df(w) + 1)), df counting the references that have w at least once.
 */
export function idfWeights(references: readonly (readonly number[])[], specials: ReadonlySet<number>): TokenWeights {
  const df = new Map<number, number>();
  for (const ids of references) for (const id of new Set(ids)) df.set(id, (df.get(id) ?? 0) + 1);
  const m = references.length;
  return (id) => (specials.has(id) ? 0 : Math.log((m + 1) / ((df.get(id) ?? 0) + 1)));
}

/** Each row of `t` divided by its L2 norm (float64). */
function normalised(t: EncodedText): Float64Array {
  const n = t.ids.length;
  if (t.vectors.length !== n * t.dim) {
    throw new RangeError(`${t.vectors.length} numbers for ${n} tokens of ${t.dim} dimensions`);
  }
  const out = new Float64Array(n * t.dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let k = 0; k < t.dim; k++) norm += t.vectors[i * t.dim + k] ** 2;
    norm = Math.sqrt(norm);
    for (let k = 0; k < t.dim; k++) out[i * t.dim + k] = t.vectors[i * t.dim + k] / norm;
  }
  return out;
}

/**
 * Σ weight × best / Σ weight over one side's tokens (§3's idf-weighted R_BERT, and P_BERT alike);
 * 0 where the weights sum to 0.
 */
function weightedMean(ids: readonly number[], best: Float64Array, weight: TokenWeights): number {
  let num = 0;
  let den = 0;
  ids.forEach((id, i) => {
    const w = weight(id);
    num += w * best[i];
    den += w;
  });
  return den > 0 ? num / den : 0;
}

/** BERTScore of one draft against one reference. */
export function bertScorePair(
  hyp: EncodedText,
  ref: EncodedText,
  weight: TokenWeights,
  specials: ReadonlySet<number>,
): BertScorePrf {
  if (hyp.dim !== ref.dim) throw new RangeError(`embeddings of ${hyp.dim} and ${ref.dim} dimensions`);
  const empty = (t: EncodedText) => t.ids.every((id) => specials.has(id));
  if (empty(hyp) || empty(ref)) return { precision: 0, recall: 0, f1: 0 };
  const h = normalised(hyp);
  const r = normalised(ref);
  const d = hyp.dim;
  const nh = hyp.ids.length;
  const nr = ref.ids.length;
  // §3, Similarity Measure and BERTScore: the cosine of each pair of tokens (pre-normalised vectors:
  // their inner product), and each token's best match on the other side (greedy matching).
  const bestH = new Float64Array(nh).fill(-Infinity);
  const bestR = new Float64Array(nr).fill(-Infinity);
  for (let i = 0; i < nh; i++) {
    for (let j = 0; j < nr; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += h[i * d + k] * r[j * d + k];
      if (s > bestH[i]) bestH[i] = s;
      if (s > bestR[j]) bestR[j] = s;
    }
  }
  // P_BERT over the draft's tokens, R_BERT over the reference's, each weighted.
  const precision = weightedMean(hyp.ids, bestH, weight);
  const recall = weightedMean(ref.ids, bestR, weight);
  // F_BERT = 2 P R / (P + R); bert_score's 0 where it is not a number (P + R = 0).
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1: Number.isFinite(f1) ? f1 : 0 };
}

export interface CorpusBertScore extends BertScorePrf {
  /** Each pair's own, in order. */
  pairs: BertScorePrf[];
}

/** BERTScore of each pair, and their mean (what bert_score reports for a corpus). idf is over the pairs' references. */
export function corpusBertScore(
  pairs: readonly { hypothesis: EncodedText; reference: EncodedText }[],
  idf: boolean,
  specials: ReadonlySet<number>,
): CorpusBertScore {
  const weight = idf
    ? idfWeights(
        pairs.map((p) => p.reference.ids),
        specials,
      )
    : uniformWeights(specials);
  const scores = pairs.map((p) => bertScorePair(p.hypothesis, p.reference, weight, specials));
  return { ...meanPrf(scores), pairs: scores };
}

/** The mean of P, R and F over pairs (0 for none). */
export function meanPrf(parts: readonly BertScorePrf[]): BertScorePrf {
  const n = Math.max(parts.length, 1);
  const sum = (f: (p: BertScorePrf) => number) => parts.reduce((a, p) => a + f(p), 0);
  return { precision: sum((p) => p.precision) / n, recall: sum((p) => p.recall) / n, f1: sum((p) => p.f1) / n };
}
