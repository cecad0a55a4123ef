/**
 * Activation: builds the Ctx and the parts beside it, registers the command table, returns the API used by the tests.
 */
import * as vscode from 'vscode';
import type { DraftsmithApi } from './api';
import { ProseChecks } from './checks';
import { WritingStatus } from './checksStatus';
import { registerCommands } from './commands';
import { Ctx } from './context';
import { essay } from './essayCommand';
import { InlineSuggestions } from './inlineProvider';
import { OfflineStatus } from './offlineStatus';
import { suggestReplies } from './replyCommand';
import { rewriteSelection } from './rewriteCommand';
import { applyRoundTripCommand, roundTrip } from './roundtripCommand';
import { checkCoherence, scoreDraft, scoreTwoDrafts } from './scoreCommand';
import { exportFolderScores, scoreFolder } from './folderCommand';
import { compareSystems, exportReport, openSegment } from './systemsCommand';
import { continueStory, writePremise } from './storyCommand';
import { summarize } from './summarizeCommand';
import { summarizeSections } from './summarizeSectionsCommand';

let current: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): DraftsmithApi {
  const started = performance.now();
  const ctx = new Ctx(context);
  current = ctx;
  context.subscriptions.push(ctx);
  // Registers the provider and the status bar item only: nothing reaches the engine until they are turned on.
  const inline = ctx.own(new InlineSuggestions(ctx));
  const offline = ctx.own(new OfflineStatus());
  // Prose checks and the writing status bar: Harper and the dictionary load on the first check.
  const checks = ctx.own(new ProseChecks(ctx));
  const writing = ctx.own(new WritingStatus(ctx));
  registerCommands({ ctx, checks, writing, inline });
  // The worker and the models start on the first command, so activation stays cheap
  // (bench/activation.bench.ts measures it).
  ctx.log.info(
    `Draftsmith activated in ${(performance.now() - started).toFixed(1)} ms ` +
      `(${context.extensionMode === vscode.ExtensionMode.Test ? 'test' : 'normal'} mode)`,
  );
  return {
    summarize: (editor, token) => summarize(ctx, editor, token),
    summarizeSections: (editor, token) => summarizeSections(ctx, editor, token),
    essay: (editor, token, pick) => essay(ctx, editor, token, pick),
    continueStory: (editor, token) => continueStory(ctx, editor, token),
    writePremise: (editor, token) => writePremise(ctx, editor, token),
    roundTrip: (editor, token) => roundTrip(ctx, editor, token),
    applyRoundTrip: () => applyRoundTripCommand(ctx),
    rewriteSelection: (editor, token, choices) => rewriteSelection(ctx, editor, token, choices, checks),
    suggestReplies: (editor, token, pick) => suggestReplies(ctx, editor, token, pick),
    scoreDraft: (editor, reference, token) => scoreDraft(ctx, editor, reference, token),
    scoreTwoDrafts: (editor, second, reference, token) => scoreTwoDrafts(ctx, editor, second, reference, token),
    scoreFolder: (source, token) => scoreFolder(ctx, source, token),
    exportFolderScores: (format, sort) => exportFolderScores(ctx, format, sort),
    compareSystems: (drafts, reference, baseline, token) => compareSystems(ctx, drafts, reference, baseline, token),
    openSegment: (system, segment) => openSegment(ctx, system, segment),
    exportReport: (format) => exportReport(ctx, format),
    checkCoherence: (editor, source, token) => checkCoherence(ctx, editor, source, token),
    lastSummary: () => ctx.lastSummary,
    progressShown: () => [...ctx.progressShown],
    insights: {
      lastMessage: () => ctx.lastPanelMessage,
      isOpen: () => ctx.insights.isOpen,
    },
    engine: {
      restart: () => void ctx.engine.restart(),
      crashForTest: () => ctx.engine.crashForTest(),
      inFlight: () => ctx.engine.inFlight,
    },
    inline: {
      stats: () => ({ ...inline.stats }),
      lastAccepted: () => inline.lastAccepted,
      statusTooltip: () => inline.statusTooltip,
    },
    offlineStatus: () => offline.text,
  };
}

// Everything is released through context.subscriptions; the engine's worker thread is also stopped
// here, so VS Code waits for it (stop, then terminate: never terminated inside an onnxruntime run).
export function deactivate(): Promise<void> | undefined {
  const ctx = current;
  current = undefined;
  return ctx?.engine.shutdown();
}
