/**
 * Measure Speed (Manage Models): how fast a chosen language model runs on this machine, so that the
 * manager can say how long a rewrite takes with it. A fixed prompt is read (the first-token time),
 * then a fixed number of tokens written greedily (tokens per second).
 */
import { z } from 'zod';
import { ModelChoice } from '../config';

/** The prompt measured: about what a 150-word rewrite reads (its instructions and the 150 words). */
export const SPEED_PROMPT_TOKENS = 200;
/** The tokens written after the first: enough for a steady rate, a few seconds at most on a slow model. */
export const SPEED_DECODE_TOKENS = 32;

export const SpeedRequest = z.object({
  op: z.literal('speed'),
  /** The model measured: a downloaded Hub model's folder, a Hub id, or a GGUF file (the built-in one is refused). */
  model: ModelChoice,
  /** The prompt's length in tokens (the model's context permitting). */
  promptTokens: z.number().int().min(1).max(4096).optional(),
  /** How many tokens are written after the first. */
  decodeTokens: z.number().int().min(1).max(512).optional(),
});
export type SpeedRequest = z.infer<typeof SpeedRequest>;

export const SpeedResult = z.object({
  op: z.literal('speed'),
  /** The model as the request named it (Hub id, folder or GGUF file). */
  model: z.string(),
  /** What ran it: 'cpu', or the accelerator. */
  device: z.string(),
  /** The weights' data type that ran ('q4', 'Q8_0'...). */
  dtype: z.string(),
  /** Opening the model (files read, sessions created), before the prompt. */
  loadMs: z.number().nonnegative(),
  /** The prompt's length, in tokens. */
  promptTokens: z.number().int().positive(),
  /** From the prompt given to the first token chosen. */
  firstTokenMs: z.number().nonnegative(),
  /** The tokens written after the first, and the time they took. */
  decodeTokens: z.number().int().positive(),
  decodeMs: z.number().nonnegative(),
  tokensPerSecond: z.number().positive(),
});
export type SpeedResult = z.infer<typeof SpeedResult>;
