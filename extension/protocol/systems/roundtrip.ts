/**
 * Round-Trip Paragraph (the hierarchical LSTM paragraph autoencoder, Li, Luong & Jurafsky 2015).
 */
import { z } from 'zod';
import { BleuSummary, CoherenceSummary, Prf } from './scoring';
import { GenerationStats, Guards, spanFields, TextOrigin } from './shared';

/** Which model folder: standard (Sec. 3.1), hierarchical (Sec. 3.2), hierarchical with attention (Sec. 3.3). */
export const RoundTripVariant = z.enum(['standard', 'hier', 'hier-attn']);
export type RoundTripVariant = z.infer<typeof RoundTripVariant>;

/** The most sentences a request may ask the model to read (the shipped model was trained on up to 8). */
export const MAX_ROUNDTRIP_SENTENCES = 32;

export const RoundTripRequest = z.object({
  op: z.literal('roundtrip'),
  /** The paragraph (the selection, or the paragraph at the cursor). */
  text: z.string(),
  /** <models>/roundtrip-<variant>/ instead of the default <models>/roundtrip/. */
  variant: RoundTripVariant.optional(),
  /** Read at most this many sentences (default: as many as the model was trained on). */
  maxSentences: z.number().int().min(1).max(MAX_ROUNDTRIP_SENTENCES).optional(),
  guards: Guards,
  /** Where the text came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
});
export type RoundTripRequest = z.infer<typeof RoundTripRequest>;

/** One input sentence the model read, with its span in the request's text. */
export const RoundTripInputSentence = z.object({
  text: z.string(),
  ...spanFields,
  /** Subword tokens the model read for it. */
  tokens: z.number().int(),
});
export type RoundTripInputSentence = z.infer<typeof RoundTripInputSentence>;

export const RoundTripOutputSentence = z.object({
  text: z.string(),
  tokens: z.number().int(),
  /** It stopped at its word limit (1.5 x the longest input sentence, or the tokens left) before </s>. */
  cut: z.boolean(),
  /** The sentence step's attention over the input sentences (Eqs. 10-15), in input order; null without attention. */
  attention: z.array(z.number()).nullable(),
});
export type RoundTripOutputSentence = z.infer<typeof RoundTripOutputSentence>;

export const RoundTripScores = z.object({
  bleu: BleuSummary,
  rouge1: Prf,
  rouge2: Prf,
  rougeW: Prf,
  /** Coherence L (Eq. 18) and the alignment of output sentences to input sentences. */
  coherence: CoherenceSummary,
});
export type RoundTripScores = z.infer<typeof RoundTripScores>;

export const RoundTripResult = z.object({
  op: z.literal('roundtrip'),
  /** The request's text, exactly; the spans below index into it. */
  source: z.string(),
  architecture: RoundTripVariant,
  input: z.array(RoundTripInputSentence).min(1),
  /** Sentences in the whole text (the model read the first input.length of them). */
  totalSentences: z.number().int(),
  /** The part of `source` the model read, from its first sentence's start to its last one's end:
   * what Apply replaces. The rest of the text stays as it is. */
  usedStart: z.number().int(),
  usedEnd: z.number().int(),
  /** Why fewer sentences were read than the text has: the sentence limit, or the model's token limit. */
  truncatedBy: z.enum(['sentences', 'tokens']).nullable(),
  /** The sentence limit that applied. */
  maxSentences: z.number().int(),
  /** The most subwords the model reads (its model.json's maxInputTokens). */
  inputLimit: z.number().int().optional(),
  /** Input subwords the model does not know (<unk>): another script, or rare symbols. */
  unknownTokens: z.number().int(),
  /**
   * Why this result is to be read with care: a built-in mode whose measured quality is poor
   * (engine/systems/experimental.ts).
   */
  experimental: z.string().optional(),
  reconstruction: z.string(),
  output: z.array(RoundTripOutputSentence),
  /**
   * How decoding ended: 'end' when the model ended the paragraph itself (end_logit > 0, or </s> for
   * the standard model); otherwise the 1.5x limit that stopped it: too many sentences or tokens.
   */
  stopped: z.enum(['end', 'max-sentences', 'max-tokens']),
  /** The 1.5x limits: output tokens in all, and output sentences (hierarchical models). */
  limits: z.object({ maxTokens: z.number().int(), maxSentences: z.number().int().nullable() }),
  scores: RoundTripScores,
  stats: GenerationStats,
  /**
   * From a Markdown document (set by the editor and the CLI, which read it): what the model did not
   * read (code, tables, other blocks).
   */
  readNotes: z.array(z.string()).optional(),
});
export type RoundTripResult = z.infer<typeof RoundTripResult>;
