/**
 * Summarize Document, extractive mode: a learned combination of a sentence's features (the
 * hand-set one is extractive.ts's λ / (i + 1) + μ · centrality + title share + attention rank).
 * The weights (models/train/draftsmith_train/extractive_scorer.py, written to the model folder's
 * extractive.json) are a logistic regression fitted on CNN's training split with each sentence's
 * membership in the greedy ROUGE oracle as the label (SummaRuNNer's labels, Nallapati et al. 2017,
 * §4): z = w · x, the sentences taken best z first. The position is a prior learned per position
 * (one weight for each of the first five sentences, one for the sixth to tenth) beside 1 / (i + 1),
 * rather than λ / (i + 1) alone: how likely a sentence at each place is to be in the oracle.
 *
 * Everything here is pure: the attention's rank and the centrality come in already computed.
 */
import { z } from 'zod';
import { EngineError } from '../errors';
import { isCaption, pointsBack, quotedShare } from '../text/standalone';

/** The features of a sentence, in the order extractive.json's `weights` follow. */
export const EXTRACTIVE_FEATURES = [
  'attention rank', // Σ r_w / √|S| (extractive.ts 'rank'), over the text's maximum
  'inverse position', // 1 / (i + 1), i among the prose sentences from 0
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth to tenth',
  'relative position', // i / (n − 1)
  'centrality', // extractive.ts addCentrality's, over the text's maximum
  'title share', // the share of the title's content words in the sentence (0 without a title)
  'length', // ln(1 + words) / 4
  'short', // under 8 words
  'quote share', // the share of its words inside quotation marks
  'points back', // opens with "He", "This", "However", …
  'caption', // "(Photo: …)", "Pictured: …", a sentence in brackets
] as const;

/** The weights a fitting run wrote (extractive.json). */
export const ExtractiveWeights = z.object({
  /** Names of the features, checked against EXTRACTIVE_FEATURES: weights fitted on others are refused. */
  features: z.array(z.string()),
  weights: z.array(z.number()),
  /** What they were fitted on and how (kept for the record; not read). */
  training: z.record(z.string(), z.unknown()).optional(),
});
export type ExtractiveWeights = z.infer<typeof ExtractiveWeights>;

export function parseExtractiveWeights(json: unknown, file: string): ExtractiveWeights {
  const parsed = ExtractiveWeights.safeParse(json);
  if (!parsed.success)
    throw new EngineError('bad-model', `${file} is not an extractive scorer: ${parsed.error.issues[0]?.message}`);
  const w = parsed.data;
  if (w.features.join('|') !== EXTRACTIVE_FEATURES.join('|') || w.weights.length !== w.features.length)
    throw new EngineError('bad-model', `${file}: its features are not the ones this version computes`);
  if (!w.weights.every(Number.isFinite)) throw new EngineError('bad-model', `${file}: a weight is not a number`);
  return w;
}

/** What the features are computed from: one entry per prose sentence with words, in text order. */
export interface FeatureInput {
  text: string;
  words: number;
  /** The attention's rank score over the text's maximum (0 to 1). */
  rank: number;
  /** Centrality over the text's maximum (0 to 1). */
  centrality: number;
  /** The share of the title's content words in the sentence (0 without a title). */
  titleShare: number;
}

/** Each sentence's features, in EXTRACTIVE_FEATURES' order. */
export function extractiveFeatures(sentences: readonly FeatureInput[]): number[][] {
  const n = sentences.length;
  return sentences.map((s, k) => [
    s.rank,
    1 / (k + 1),
    k === 0 ? 1 : 0,
    k === 1 ? 1 : 0,
    k === 2 ? 1 : 0,
    k === 3 ? 1 : 0,
    k === 4 ? 1 : 0,
    k >= 5 && k < 10 ? 1 : 0,
    n > 1 ? k / (n - 1) : 0,
    s.centrality,
    s.titleShare,
    Math.log(1 + s.words) / 4,
    s.words < 8 ? 1 : 0,
    quotedShare(s.text),
    pointsBack(s.text) ? 1 : 0,
    isCaption(s.text) ? 1 : 0,
  ]);
}

/** The learned score z = w · x of each sentence. */
export function learnedScores(sentences: readonly FeatureInput[], w: ExtractiveWeights): number[] {
  return extractiveFeatures(sentences).map((x) => x.reduce((z, v, j) => z + v * w.weights[j], 0));
}
