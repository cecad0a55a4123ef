/**
 * Rewrite Selection: a preset or the writer's own instruction run on an instruct model, the result
 * cleaned to the rewritten text alone, as word-level changes to accept or reject one by one, with
 * what it changed that it was not asked to (names, numbers, Markdown) flagged.
 */
import { z } from 'zod';
import { rewritePreset, type RewritePresetId } from '../../engine/hub/rewritePresets';
import { ModelChoice } from '../config';
import { MaxLengthHit, modelResultFields, TextOrigin } from './shared';

/** The longest instruction a writer may type. */
export const MAX_REWRITE_INSTRUCTION = 2000;

export const RewriteRequest = z.object({
  op: z.literal('rewrite'),
  /** The text to rewrite: a paragraph, the selection, or (Markdown) one block's text with its inline markup. */
  text: z.string(),
  /** A preset's name (hub/rewritePresets.ts), or else `instruction`: one of the two. */
  preset: z
    .string()
    .refine((id): id is RewritePresetId => rewritePreset(id) !== undefined, 'a rewrite preset name')
    .optional(),
  instruction: z.string().max(MAX_REWRITE_INSTRUCTION).optional(),
  /** The most tokens written (default: twice the text's, and room for a line more). */
  maxTokens: z.number().int().min(1).max(4096).optional(),
  /** The instruct model (draftsmith.rewrite.model); the built-in models have none. */
  model: ModelChoice.optional(),
  origin: TextOrigin.optional(),
});
export type RewriteRequest = z.infer<typeof RewriteRequest>;

/** One word-level change: source[start, end) (`before`) becomes `after`. */
export const RewriteChange = z.object({
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  before: z.string(),
  after: z.string(),
});
export type RewriteChange = z.infer<typeof RewriteChange>;

/** A change the model made to code, a URL or front matter: never offered, the text there kept as it was. */
export const ProtectedChange = RewriteChange.extend({
  touches: z.enum(['inline code', 'a URL', 'front matter']),
});
export type ProtectedChange = z.infer<typeof ProtectedChange>;

/** What the rewrite changed that the instruction did not ask for: shown before the changes are offered. */
export const RewriteFlags = z.object({
  /** Names and numbers in the rewrite that are neither in the text nor in the instruction. */
  added: z.array(z.string()),
  /** Names and numbers of the text the rewrite no longer has (and the instruction does not name). */
  dropped: z.array(z.string()),
  /** Markdown of the text the rewrite lost: links, inline code, emphasis, list markers. */
  markup: z.array(z.string()),
});
export type RewriteFlags = z.infer<typeof RewriteFlags>;

export const RewriteResult = z.object({
  op: z.literal('rewrite'),
  /** The request's text, exactly: the changes' offsets index into it. */
  source: z.string(),
  /** The instruction the model was given (the preset's, or the writer's). */
  instruction: z.string(),
  preset: z.string().optional(),
  /** What the model wrote, before the clean-up. */
  raw: z.string(),
  /**
   * The rewritten text alone: preamble, closing remarks, wrapping quotes or code fence removed, and
   * code spans, URLs and front matter as the text has them (see `protectedChanges`).
   */
  rewrite: z.string(),
  /** What the clean-up removed, as it was written. */
  stripped: z.array(z.string()),
  changes: z.array(RewriteChange),
  /** The model's changes to code spans, URLs or front matter, left out of `changes` and `rewrite`. */
  protectedChanges: z.array(ProtectedChange),
  flags: RewriteFlags,
  hitMaxLength: MaxLengthHit.nullable(),
  /** From the request to the first token written. */
  firstTokenMs: z.number(),
  ...modelResultFields,
});
export type RewriteResult = z.infer<typeof RewriteResult>;
