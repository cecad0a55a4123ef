/**
 * Expand Topic Words into Essay (PC-SAN).
 */
import { z } from 'zod';
import { BeamOptions, MaxLengthHit, modelRequestFields, modelResultFields, TextOrigin } from './shared';

export const EssayRequest = z.object({
  op: z.literal('essay'),
  /** The selection: topic words separated by commas, semicolons, new lines or spaces. */
  topics: z.string(),
  /** How many different essays to return (the best beams), best first. */
  candidates: z.number().int().min(1).max(5).optional(),
  decoding: BeamOptions.optional(),
  /** Every essay must contain each topic word (lexically constrained beam search); default true.
   * false: plain beam search, as the PC-SAN paper decodes. */
  includeAllTopics: z.boolean().optional(),
  ...modelRequestFields,
  /** Where the topic words came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
});
export type EssayRequest = z.infer<typeof EssayRequest>;

export const EssayCandidate = z.object({
  text: z.string(),
  /** The topic words the essay mentions (the same word or one with the same Porter stem). */
  covered: z.array(z.string()),
  /** Sum of token log-probabilities, and the length-normalised score beam search ranked by. */
  logProb: z.number(),
  score: z.number(),
  hitMaxLength: MaxLengthHit.nullable(),
});
export type EssayCandidate = z.infer<typeof EssayCandidate>;

export const EssayResult = z.object({
  op: z.literal('essay'),
  topics: z.array(z.string()),
  /** Topic words without a word vector (the model knows them only by their subwords). */
  unknownTopics: z.array(z.string()),
  /** Selected words the model cannot read at all (no letter of them in its vocabulary): left out. */
  skippedTopics: z.array(z.string()),
  candidates: z.array(EssayCandidate).min(1),
  /** Eq. 2's softmax weights: one row per decoder layer over the encoder's layers (the paper's Figure 3). */
  layerWeights: z.array(z.array(z.number())),
  /** Names of the encoder layers the columns stand for ("embeddings", "layer 1", ...). */
  encoderLayers: z.array(z.string()),
  ...modelResultFields,
});
export type EssayResult = z.infer<typeof EssayResult>;
