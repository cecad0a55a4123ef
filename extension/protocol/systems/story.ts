/**
 * Continue Story and Write a Premise (hierarchical story generation with fusion).
 */
import { z } from 'zod';
import { MaxLengthHit, modelRequestFields, modelResultFields, Seed, spanFields } from './shared';

/** Top-k random sampling (the story paper's section 5.3: k = 10) with a temperature. */
export const SamplingOptions = z.object({
  topK: z.number().int().min(1).max(100).optional(),
  temperature: z.number().min(0.05).max(5).optional(),
  /**
   * The same seed (with the same prompt and settings) gives the same text; none: a fresh one, reported in the result.
   */
  seed: Seed.optional(),
});
export type SamplingOptions = z.infer<typeof SamplingOptions>;

/** The sampling settings a text was written with: its seed writes it again. */
const UsedSampling = z.object({ topK: z.number().int(), temperature: z.number(), seed: z.number().int() });

export const StoryRequest = z.object({
  op: z.literal('story'),
  /** The writing prompt or the story so far; a long one is read from its end. */
  prompt: z.string(),
  /** How long the continuation should be, in words (the model may end the story sooner). */
  words: z.number().int().min(1).max(2000).optional(),
  sampling: SamplingOptions.optional(),
  ...modelRequestFields,
  /**
   * An inline suggestion in place of a story: the rest of the sentence being written, or
   * the next one(s), continued from the text before the cursor (`prompt`), never starting mid-word,
   * ending at the `sentences`-th sentence end or after `maxWords` words; without a seed, one derived
   * from the prompt, so the same text gives the same suggestion. `words` is ignored.
   */
  inline: z
    .object({
      sentences: z.number().int().min(1).max(3),
      maxWords: z.number().int().min(1).max(80),
    })
    .optional(),
});
export type StoryRequest = z.infer<typeof StoryRequest>;

/**
 * The fusion gates at the step that wrote a token (section 3.4): the mean gate on the trained
 * (fused) decoder's hidden state and on the frozen pretrained one's, each in [0, 1] — the paper's
 * Figure 8 shows them over the generated words.
 */
export const FusionGate = z.object({ trained: z.number().min(0).max(1), pretrained: z.number().min(0).max(1) });
export type FusionGate = z.infer<typeof FusionGate>;

/** One generated token: its text and span in the continuation, and its fusion gates (null without fusion). */
export const GeneratedToken = z.object({
  text: z.string(),
  ...spanFields,
  gate: FusionGate.nullable(),
});
export type GeneratedToken = z.infer<typeof GeneratedToken>;

export const StoryResult = z.object({
  op: z.literal('story'),
  /** The part of the prompt the model read: all of it, or its end when it was longer than the model reads. */
  usedPrompt: z.string(),
  /** True when only the end of the prompt was read. */
  truncated: z.boolean(),
  /** Characters in the whole prompt, and where in it the part read begins. */
  promptChars: z.number().int(),
  usedFrom: z.number().int(),
  continuation: z.string(),
  tokens: z.array(GeneratedToken),
  /** Words asked for, and written. */
  words: z.number().int(),
  wordCount: z.number().int(),
  /** 'words': the length asked for was reached; 'end': the model ended the story; 'length-limit': see hitMaxLength. */
  endedBy: z.enum(['words', 'end', 'length-limit']),
  hitMaxLength: MaxLengthHit.nullable(),
  fusion: z.boolean(),
  sampling: UsedSampling,
  ...modelResultFields,
  /** An inline request's answer: the text to show at the cursor, with the space it needs ('' for none). */
  suggestion: z.string().optional(),
});
export type StoryResult = z.infer<typeof StoryResult>;

/** The hierarchical first step: a language model writes a premise (a writing prompt) to start from. */
export const PremiseRequest = z.object({
  op: z.literal('premise'),
  sampling: SamplingOptions.optional(),
  ...modelRequestFields,
});
export type PremiseRequest = z.infer<typeof PremiseRequest>;

export const PremiseResult = z.object({
  op: z.literal('premise'),
  premise: z.string(),
  /** Non-null when the premise stopped at the model's longest premise before its end-of-prompt token. */
  hitMaxLength: MaxLengthHit.nullable(),
  sampling: UsedSampling,
  ...modelResultFields,
});
export type PremiseResult = z.infer<typeof PremiseResult>;
