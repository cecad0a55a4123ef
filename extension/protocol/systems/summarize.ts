/**
 * Summarize Document and Summarize Sections (TAAS: topic-aware abstractive summarization).
 */
import { z } from 'zod';
import {
  BeamOptions,
  MaxLengthHit,
  modelRequestFields,
  modelResultFields,
  spanFields,
  TextFormat,
  TextOrigin,
} from './shared';

/**
 * 'extractive': the source sentences the model's topic-aware attention (TAAS Eq. 11) weighs most,
 * verbatim and in document order (the setting's default: nothing in it is invented).
 * 'abstractive': the TAAS decoder writes a new summary (beam search).
 * 'synopsis': the one source sentence a scorer trained on SciTLDR ranks first, from the same
 * attention, its position and its words (a technical text's one-line synopsis).
 */
export const SummarizeMode = z.enum(['extractive', 'abstractive', 'synopsis']);
export type SummarizeMode = z.infer<typeof SummarizeMode>;

export const SummarizeRequest = z.object({
  op: z.literal('summarize'),
  text: z.string(),
  maxInputTokens: z.number().int().min(16).max(4096).optional(),
  decoding: BeamOptions.optional(),
  /** Omitted: 'abstractive', as requests were before the modes (the host and the CLI always send one). */
  mode: SummarizeMode.optional(),
  ...modelRequestFields,
  /** Where the text came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
  /** Read the whole document section by section: as Markdown (headings, code, tables...)
   * or as plain paragraphs. Absent: the text is read as one piece, up to what the model reads. */
  format: TextFormat.optional(),
  /** With format: the time limit for one section (or part of one), in milliseconds. */
  sectionTimeLimitMs: z.number().int().min(100).max(3_600_000).optional(),
});
export type SummarizeRequest = z.infer<typeof SummarizeRequest>;

/**
 * One section of a document read section by section: its heading, its summary, and whether it fed the
 * summary of the whole.
 */
export const SectionSummary = z.object({
  /** The heading's text ('' for the text before the first heading or a document without headings). */
  title: z.string(),
  /** 1-6, 0 without a heading. */
  level: z.number().int().min(0).max(6),
  /** The section in the source (from its heading to the next heading). */
  ...spanFields,
  /** The heading's line(s) in the source. */
  heading: z.object(spanFields).optional(),
  /** One line ('' when the section has no prose or ran past the time limit). */
  summary: z.string(),
  /** summarized: by the model; whole: one sentence, its own summary; no-prose: nothing but headings, code, tables...;
   * timed-out: past the time limit; unreadable: the model cannot read it (another script): readNotes says why. */
  status: z.enum(['summarized', 'whole', 'no-prose', 'timed-out', 'unreadable']),
  /** Parts the section was read in (a section longer than the model's window is read in several). */
  parts: z.number().int(),
  /** True when the section's summary fed the summary of the whole document. */
  fedOverall: z.boolean(),
  /** Words of prose in the section. */
  words: z.number().int(),
});
export type SectionSummary = z.infer<typeof SectionSummary>;

/** One source token with its topic-aware attention weight α_t (TAAS Eq. 11) and its span in the input text. */
export const AttendedToken = z.object({ text: z.string(), ...spanFields, weight: z.number() });
export type AttendedToken = z.infer<typeof AttendedToken>;

/** A phrase of adjacent attended tokens, with their summed weight. */
export const AttendedPhrase = AttendedToken;
export type AttendedPhrase = z.infer<typeof AttendedPhrase>;

export const SummarizeResult = z.object({
  op: z.literal('summarize'),
  summary: z.string(),
  /** The source text exactly as the user selected it; token spans index into it. */
  source: z.string(),
  /** True when the source was longer than the model's input and only its start was used. */
  truncated: z.boolean(),
  /** Characters of `source` that the model read (all of it unless truncated). */
  usedChars: z.number().int(),
  /**
   * The most tokens the model reads at once (the request's maxInputTokens, at most the model's own); absent from
   * instruct models.
   */
  inputLimit: z.number().int().optional(),
  hitMaxLength: MaxLengthHit.nullable(),
  tokens: z.array(AttendedToken),
  topPhrases: z.array(AttendedPhrase),
  topics: z.array(z.object({ id: z.number().int(), words: z.array(z.string()) })),
  /** The mode that wrote the summary (absent: abstractive). */
  mode: SummarizeMode.optional(),
  /**
   * Why this result is to be read with care: a built-in mode whose measured quality is poor
   * (engine/systems/experimental.ts).
   */
  experimental: z.string().optional(),
  /**
   * An instruct model's summary: its names and numbers (dates among them) that the source does not
   * have, as Rewrite flags them (empty: none). The decoding guards keep them out where they can (a
   * name inside a sentence, a number); what is left, a name opening a sentence, is listed here.
   */
  invented: z.array(z.string()).optional(),
  /** Extractive and synopsis modes: the chosen sentences' spans in `source`, in document order, with their scores. */
  extracted: z.array(z.object({ ...spanFields, score: z.number() })).optional(),
  ...modelResultFields,
  /** A request with format: every section's summary, in document order. */
  sections: z.array(SectionSummary).optional(),
  /** A request with format: how the document was read (what was not prose, unclosed fences, time limits). */
  readNotes: z.array(z.string()).optional(),
});
export type SummarizeResult = z.infer<typeof SummarizeResult>;
