/**
 * The host <-> insights panel channel: the views the page shows, and what the page asks for.
 */
import { z } from 'zod';
import { ExternalModel } from './config';
import { EssayCandidate } from './systems/essay';
import { RoundTripResult, RoundTripScores, RoundTripVariant } from './systems/roundtrip';
import { CoherenceResult, FolderScores, ScoreResult, SystemsResult } from './systems/scoring';
import { GenerationStats } from './systems/shared';
import { StoryResult } from './systems/story';
import { AttendedPhrase, AttendedToken, SectionSummary, SummarizeMode, SummarizeResult } from './systems/summarize';

//
// The page gets views, each converted from a result by extension/panelViews.ts. Summarize, essay and
// round trip have views of their own (fields dropped, values derived); story, score, coherence and
// systems show all of their result, so their views are the result less `op` (story's also less its
// length flag and inline suggestion); folder is the host's FolderScores as it is. A change only the
// panel needs is made in a view and its converter, even where that means giving one its own schema;
// the engine, the CLI's --json and the commands stay as they are. Nested parts that the page shows
// as the engine gives them (stats, tokens, scores) are the engine's schemas.

const Stats = GenerationStats;

export const SummarizeView = z.object({
  summary: z.string(),
  /** The source as the user selected it; token and phrase spans index into it. */
  source: z.string(),
  mode: SummarizeMode,
  experimental: SummarizeResult.shape.experimental,
  /** An instruct model's summary: its names and numbers the source does not have (shown above it). */
  invented: SummarizeResult.shape.invented,
  /** Extractive mode: how many sentences of the source the summary is. */
  extractedSentences: z.number().int(),
  /** The model read only source[0, usedChars). */
  truncated: z.boolean(),
  usedChars: z.number().int(),
  inputLimit: SummarizeResult.shape.inputLimit,
  tokens: z.array(AttendedToken),
  /** The five most attended phrases, the most attended first. */
  topPhrases: z.array(AttendedPhrase).max(5),
  topics: SummarizeResult.shape.topics,
  /** A document read section by section (in document order), with its summary line per section. */
  sections: z.array(
    SectionSummary.pick({ title: true, level: true, start: true, summary: true, status: true, fedOverall: true }),
  ),
  readNotes: z.array(z.string()),
  external: ExternalModel.optional(),
  stats: Stats,
});
export type SummarizeView = z.infer<typeof SummarizeView>;

export const EssayView = z.object({
  topics: z.array(z.string()),
  unknownTopics: z.array(z.string()),
  /** Best first. */
  candidates: z.array(EssayCandidate.pick({ text: true, covered: true, score: true, logProb: true })).min(1),
  layerWeights: z.array(z.array(z.number())),
  encoderLayers: z.array(z.string()),
  external: ExternalModel.optional(),
  stats: Stats,
});
export type EssayView = z.infer<typeof EssayView>;

/** A story as the panel shows it: all but the length limit (the panel shows endedBy) and an inline answer. */
export const StoryView = StoryResult.omit({ op: true, hitMaxLength: true, suggestion: true });
export type StoryView = z.infer<typeof StoryView>;

export const RoundTripView = z.object({
  architecture: RoundTripVariant,
  experimental: RoundTripResult.shape.experimental,
  /** Sentences the model read, of all the text's. */
  inputSentences: z.number().int(),
  totalSentences: z.number().int(),
  outputSentences: z.number().int(),
  truncatedBy: RoundTripResult.shape.truncatedBy,
  stopped: RoundTripResult.shape.stopped,
  limits: RoundTripResult.shape.limits,
  unknownTokens: z.number().int(),
  scores: RoundTripScores,
  /** Each output sentence's attention over the input sentences; null for a model without attention. */
  attention: z.array(z.array(z.number())).nullable(),
  readNotes: z.array(z.string()),
  stats: Stats,
});
export type RoundTripView = z.infer<typeof RoundTripView>;

export const ScoreView = ScoreResult.omit({ op: true });
export type ScoreView = z.infer<typeof ScoreView>;

export const CoherenceView = CoherenceResult.omit({ op: true });
export type CoherenceView = z.infer<typeof CoherenceView>;

/** Score Drafts in Folder: assembled by the host from many scores, shown as it is. */
export const FolderView = FolderScores;
export type FolderView = z.infer<typeof FolderView>;

/** Compare Drafts against a Baseline: the table and the drill-down, as the engine gives them. */
export const SystemsView = SystemsResult.omit({ op: true });
export type SystemsView = z.infer<typeof SystemsView>;

export const ToPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('summarize'), view: SummarizeView }),
  z.object({ type: z.literal('essay'), view: EssayView }),
  z.object({ type: z.literal('story'), view: StoryView }),
  z.object({ type: z.literal('score'), view: ScoreView }),
  z.object({ type: z.literal('coherence'), view: CoherenceView }),
  z.object({ type: z.literal('roundtrip'), view: RoundTripView }),
  z.object({ type: z.literal('empty'), message: z.string() }),
  z.object({ type: z.literal('folder'), view: FolderView }),
  z.object({ type: z.literal('systems'), view: SystemsView }),
]);
export type ToPanel = z.infer<typeof ToPanel>;

/** A column of the folder table, sorted as the panel shows it (engine/eval/folderScores.ts FOLDER_COLUMNS). */
export const FolderSort = z.strictObject({ column: z.string().max(40), descending: z.boolean() });
export type FolderSort = z.infer<typeof FolderSort>;

// Strict: a message with fields the protocol does not declare is refused, not trimmed and obeyed.
export const FromPanel = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  // Score Drafts in Folder's Export CSV / Export JSON buttons, in the table's current order.
  z.strictObject({ type: z.literal('export-folder'), format: z.enum(['csv', 'json']), sort: FolderSort.optional() }),
  // Compare Drafts against a Baseline's drill-down: open system `system`'s segment `segment` where
  // it was read (the host keeps the files; the page names no path).
  z.strictObject({
    type: z.literal('open-segment'),
    system: z.number().int().min(0).max(100),
    segment: z.number().int().min(0),
  }),
  // Its Export Report button: the one-file report of the comparison shown.
  z.strictObject({ type: z.literal('export-report'), format: z.enum(['md', 'html']) }),
]);
export type FromPanel = z.infer<typeof FromPanel>;
