/**
 * What the systems' requests and results share: where a text came from, how it is read, beam
 * options, the decoding guards and model choice, spans, the run's statistics, and a length limit
 * reached.
 */
import { z } from 'zod';
import { ExternalModel, ModelChoice } from '../config';

/**
 * Where a request's text came from, for the engine's messages about it (engine/text/origin.ts):
 * 'selection' (absent: the editor's selection or document, the extension's wording), 'file' or
 * 'text' (the CLI: a file, or text given on the command line or standard input).
 */
export const TextOrigin = z.enum(['selection', 'file', 'text']);
export type TextOrigin = z.infer<typeof TextOrigin>;

/** A random generator's seed: any unsigned 32-bit integer (NumPy's and our samplers' range). */
export const Seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 32 - 1);

export const BeamOptions = z.object({
  beamSize: z.number().int().min(1).max(16).optional(),
  maxLength: z.number().int().min(1).max(512).optional(),
  minLength: z.number().int().min(0).max(512).optional(),
  lengthPenalty: z.number().min(0).max(5).optional(),
  noRepeatNgramSize: z.number().int().min(0).max(10).optional(),
});
export type BeamOptions = z.infer<typeof BeamOptions>;

export const GenerationStats = z.object({
  /** Tokens in the whole input; null when it was longer than the model reads and not counted to the end. */
  inputTokens: z.number().int().nullable(),
  usedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  encodeMs: z.number(),
  decodeMs: z.number(),
  tokensPerSecond: z.number(),
  device: z.string(),
  model: z.string(),
});
export type GenerationStats = z.infer<typeof GenerationStats>;

/**
 * Decoding stopped at the length limit, not at the model's end token: the text may stop
 * mid-sentence. Results carry null when the model ended the text itself.
 */
export const MaxLengthHit = z.object({
  /** The limit that cut the text off, in tokens. */
  maxLength: z.number().int(),
  /**
   * 'request': the length asked for (draftsmith.<system>.maxLength, the CLI's --max-tokens, or the
   * model's default when none was asked); 'model': the longest output the model was trained for,
   * below what was asked, so raising the setting cannot lengthen it.
   */
  limitedBy: z.enum(['request', 'model']),
});
export type MaxLengthHit = z.infer<typeof MaxLengthHit>;

/** How a text is read: 'markdown', its prose blocks only (code, tables... skipped); 'plain', as it is. */
export const TextFormat = z.enum(['markdown', 'plain']);
export type TextFormat = z.infer<typeof TextFormat>;

/** A span [start, end) in characters of the text a result indexes into. */
export const spanFields = { start: z.number().int(), end: z.number().int() };

/**
 * The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
 * repeated words; default true. false: the paper's plain decoding.
 */
export const Guards = z.boolean().optional();

/** What a request to a system that can run a chosen model carries: the guards, and the model. */
export const modelRequestFields = {
  guards: Guards,
  /** The model to run (draftsmith.<command>.model); absent: the built-in one. */
  model: ModelChoice.optional(),
};

/** What a result of such a system carries: the run's statistics, and which outside model wrote it. */
export const modelResultFields = {
  stats: GenerationStats,
  /** Set when the result came from a Hub model or a transformers.js folder. */
  external: ExternalModel.optional(),
};
