/**
 * Every command in one table of factories (rust-analyzer's shape): a factory gets the Ctx and
 * returns the handler; registerCommands() registers them all and hands the disposables to the Ctx.
 * Ids must match package.json's contributes.commands.
 */
import * as vscode from 'vscode';
import { chooseModel } from './chooseModel';
import { Ctx } from './context';
import { onActiveEditor } from './commandTemplate';
import { ESSAY, essay } from './essayCommand';
import { exportFolderScores, scoreFolderCommand } from './folderCommand';
import { compareSystemsCommand, exportReport, openSegment } from './systemsCommand';
import { toggleInline } from './inlineProvider';
import { manageModels } from './manageModels';
import { toggleOffline } from './offlineStatus';
import { REPLY, suggestReplies } from './replyCommand';
import { REWRITE, rewriteSelection } from './rewriteCommand';
import { applyRoundTripCommand, ROUNDTRIP, roundTrip } from './roundtripCommand';
import { checkCoherenceCommand, compareDraftsCommand, scoreDraftCommand } from './scoreCommand';
import { CONTINUE_STORY, continueStory, WRITE_PREMISE, writePremise } from './storyCommand';
import { SUMMARIZE, summarize } from './summarizeCommand';
import { SUMMARIZE_SECTIONS, summarizeSections } from './summarizeSectionsCommand';

type CommandFactory = (ctx: Ctx) => (...args: unknown[]) => unknown;

const commands: Record<string, CommandFactory> = {
  // The generating commands: the active editor's text (commandTemplate.ts).
  'draftsmith.summarize': (ctx) => () => onActiveEditor(SUMMARIZE, (e) => summarize(ctx, e)),
  'draftsmith.summarizeSections': (ctx) => () => onActiveEditor(SUMMARIZE_SECTIONS, (e) => summarizeSections(ctx, e)),
  'draftsmith.essay': (ctx) => () => onActiveEditor(ESSAY, (e) => essay(ctx, e)),
  'draftsmith.continueStory': (ctx) => () => onActiveEditor(CONTINUE_STORY, (e) => continueStory(ctx, e)),
  'draftsmith.writePremise': (ctx) => () => onActiveEditor(WRITE_PREMISE, (e) => writePremise(ctx, e)),
  'draftsmith.roundTrip': (ctx) => () => onActiveEditor(ROUNDTRIP, (e) => roundTrip(ctx, e)),
  'draftsmith.suggestReplies': (ctx) => () => onActiveEditor(REPLY, (e) => suggestReplies(ctx, e)),
  'draftsmith.rewriteSelection': (ctx) => () => onActiveEditor(REWRITE, (e) => rewriteSelection(ctx, e)),
  // The diff editor's title button passes the URI of the side it was clicked on.
  'draftsmith.applyRoundTrip': (ctx) => (uri?: unknown) => applyRoundTripCommand(ctx, uri),
  'draftsmith.scoreDraft': (ctx) => () => scoreDraftCommand(ctx),
  'draftsmith.checkCoherence': (ctx) => () => checkCoherenceCommand(ctx),
  'draftsmith.chooseModel': (ctx) => () => chooseModel(ctx),
  'draftsmith.manageModels': (ctx) => () => manageModels(ctx),
  'draftsmith.toggleOffline': () => () => toggleOffline(),
  'draftsmith.showInsights': (ctx) => () => ctx.insights.show(),
  'draftsmith.showLog': (ctx) => () => ctx.log.show(true),
  'draftsmith.restartEngine': (ctx) => () => {
    // Requests in flight fail now; the old worker thread is stopped safely in the background.
    void ctx.engine.restart();
    void vscode.window.showInformationMessage('Draftsmith: the engine was restarted.');
  },
  'draftsmith.compareDrafts': (ctx) => () => compareDraftsCommand(ctx),
  // The explorer's context menu passes the folder (or JSONL file) clicked.
  'draftsmith.scoreFolder': (ctx) => (uri?: unknown) => scoreFolderCommand(ctx, uri),
  'draftsmith.toggleInline': () => () => toggleInline(),
  'draftsmith.compareSystems': (ctx) => () => compareSystemsCommand(ctx),
};

export function registerCommands(ctx: Ctx): void {
  for (const [id, factory] of Object.entries(commands)) {
    ctx.own(vscode.commands.registerCommand(id, factory(ctx)));
  }
  // What the insights panel's page asks for (FromPanel), answered here beside the commands.
  ctx.own(ctx.insights.handle('export-folder', (m) => void exportFolderScores(ctx, m.format, m.sort)));
  ctx.own(ctx.insights.handle('open-segment', (m) => void openSegment(ctx, m.system, m.segment)));
  ctx.own(ctx.insights.handle('export-report', (m) => void exportReport(ctx, m.format)));
}
