/** What activate() returns: the extension's surface for the integration tests (and other extensions). */
import type * as vscode from 'vscode';
import type { StoryResult, SummarizeResult, ToPanel } from '../protocol';
import type { EssayOutcome, PickEssay } from './essayCommand';
import type { PickReply, ReplyChoice, ReplyOutcome } from './replyCommand';
import type { ApplyOutcome, PendingRoundTrip, RoundTripOutcome } from './roundtripCommand';
import type { RewriteChoices, RewriteOutcome } from './rewriteCommand';
import type { CoherenceOutcome, NamedText, ScoreOutcome } from './scoreCommand';
import type { FolderOutcome, FolderSource } from './folderCommand';
import type { SystemsOutcome } from './systemsCommand';
import type { FolderSort } from '../protocol';
import type { PremiseOutcome, StoryOutcome } from './storyCommand';
import type { SummarizeOutcome } from './summarizeCommand';
import type { SummarizeSectionsOutcome } from './summarizeSectionsCommand';

export type {
  ApplyOutcome,
  CoherenceOutcome,
  EssayOutcome,
  NamedText,
  PendingRoundTrip,
  PickEssay,
  PickReply,
  PremiseOutcome,
  ReplyChoice,
  ReplyOutcome,
  RewriteChoices,
  RewriteOutcome,
  RoundTripOutcome,
  ScoreOutcome,
  StoryOutcome,
  SummarizeOutcome,
};

export type { SummarizeSectionsOutcome };

export interface DraftsmithApi {
  /** The same function the Summarize Document command runs, on the given editor. */
  summarize(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<SummarizeOutcome>;
  /** The same function Summarize Sections runs: a summary line under each heading, as one edit. */
  summarizeSections(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<SummarizeSectionsOutcome>;
  /**
   * The same function Expand Topic Words into Essay runs, on the given editor's selection. `pick`
   * chooses among the essays instead of the quick pick (an index; undefined inserts nothing).
   */
  essay(editor: vscode.TextEditor, token?: vscode.CancellationToken, pick?: PickEssay): Promise<EssayOutcome>;
  /**
   * The same function Continue Story runs: the continuation of the selection (or of the text before
   * the cursor) streamed into the editor; with no prompt, a premise first.
   */
  continueStory(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<StoryOutcome>;
  /** The same function Write a Premise runs, at the cursor. */
  writePremise(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<PremiseOutcome>;
  /**
   * What Round-Trip Paragraph runs on the editor's selection (or the paragraph at its cursor): the
   * reconstruction opens in a diff; the outcome's pending.apply() is what the Apply button does.
   */
  roundTrip(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<RoundTripOutcome>;
  /**
   * What Rewrite Selection runs on the editor's selection (or the paragraph at its cursor): `choices`
   * answers instead of the quick picks (the preset or instruction, and which changes to keep).
   */
  rewriteSelection(
    editor: vscode.TextEditor,
    token?: vscode.CancellationToken,
    choices?: RewriteChoices,
  ): Promise<RewriteOutcome>;
  /** What Draftsmith: Apply Round-Trip Reconstruction runs (the active diff's round trip, else the latest). */
  applyRoundTrip(): Promise<ApplyOutcome>;
  /**
   * What Suggest Replies runs on the editor's selection (or the whole document): `pick` answers
   * instead of the quick pick (a candidate's index, or a typed key; undefined inserts nothing).
   */
  suggestReplies(editor: vscode.TextEditor, token?: vscode.CancellationToken, pick?: PickReply): Promise<ReplyOutcome>;
  /** What Score Draft runs once the user has picked the reference. */
  scoreDraft(editor: vscode.TextEditor, reference: NamedText, token?: vscode.CancellationToken): Promise<ScoreOutcome>;
  /** What Score Draft with two selections and Compare Two Drafts run once the texts are picked: the
   * editor's selection (or document) and `second` against `reference`; with `second` undefined, the
   * editor's two selections. The panel shows both drafts' scores, intervals and p-values. */
  scoreTwoDrafts(
    editor: vscode.TextEditor,
    second: NamedText | undefined,
    reference: NamedText,
    token?: vscode.CancellationToken,
  ): Promise<ScoreOutcome>;
  /** What Score Drafts in Folder runs once the drafts and their references are chosen. */
  scoreFolder(source: FolderSource, token?: vscode.CancellationToken): Promise<FolderOutcome>;
  /**
   * What the panel's Export CSV / Export JSON buttons run: the last folder's table as a new document,
   * in `sort`'s order.
   */
  exportFolderScores(format: 'csv' | 'json', sort?: FolderSort): Promise<vscode.TextDocument | undefined>;
  /** What Compare Drafts against a Baseline runs once the drafts, the reference and the baseline
   * (an index into `drafts`) are picked. */
  compareSystems(
    drafts: vscode.Uri[],
    reference: vscode.Uri,
    baseline?: number,
    token?: vscode.CancellationToken,
  ): Promise<SystemsOutcome>;
  /** What the panel's Go to segment button runs: draft `system` (0: the baseline) at segment `segment`. */
  openSegment(system: number, segment: number): Promise<vscode.TextEditor | undefined>;
  /** What the panel's Export Report buttons run: the latest comparison as a new document. */
  exportReport(format: 'md' | 'html'): Promise<vscode.TextDocument | undefined>;
  /** What Check Coherence runs once the user has picked the source. */
  checkCoherence(
    editor: vscode.TextEditor,
    source: NamedText,
    token?: vscode.CancellationToken,
  ): Promise<CoherenceOutcome>;
  /** The last summary (whether or not the panel shows it now); the other commands' results are not kept. */
  lastSummary(): SummarizeResult | undefined;
  /** The messages the latest progress notification showed, in order (the first 1,000). */
  progressShown(): readonly string[];
  insights: {
    /** The message the insights panel shows (or would show when opened). */
    lastMessage(): ToPanel | undefined;
    isOpen(): boolean;
  };
  engine: {
    restart(): void;
    /** Makes the worker crash on its own (an uncaught exception between decoding steps); test mode only. */
    crashForTest(): void;
    /** Requests sent to the worker and not yet answered. */
    inFlight(): number;
  };
  /** The Offline status bar item's text ('$(cloud-offline) Offline' or '$(cloud) Online'). */
  offlineStatus(): string;
  /** Inline suggestions: their counts, and the result of the last one accepted. */
  inline: {
    stats(): { requested: number; cancelled: number; debounced: number; cached: number };
    lastAccepted(): StoryResult | undefined;
    /** The status bar item's tooltip: it says what the last suggestion read when that was not all before the cursor. */
    statusTooltip(): string;
  };
}
