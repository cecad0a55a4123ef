/**
 * Every command in one table of factories (rust-analyzer's shape): a factory gets the Ctx and
 * returns the handler; registerCommands() registers them all and hands the disposables to the Ctx.
 * Ids must match package.json's contributes.commands.
 */
import * as vscode from 'vscode';
import { chooseModel } from './chooseModel';
import { Ctx } from './context';
import { essayActiveEditor } from './essayCommand';
import { scoreFolderCommand } from './folderCommand';
import { toggleInline } from './inlineProvider';
import { manageModels } from './manageModels';
import { toggleOffline } from './offlineStatus';
import { suggestRepliesActiveEditor } from './replyCommand';
import { applyRoundTripCommand, roundTripActiveEditor } from './roundtripCommand';
import { checkCoherenceCommand, compareDraftsCommand, scoreDraftCommand } from './scoreCommand';
import { continueStoryActiveEditor, writePremiseActiveEditor } from './storyCommand';
import { summarizeActiveEditor } from './summarizeCommand';
import { summarizeSectionsActiveEditor } from './summarizeSectionsCommand';

type CommandFactory = (ctx: Ctx) => (...args: unknown[]) => unknown;

const commands: Record<string, CommandFactory> = {
  'draftsmith.summarize': (ctx) => () => summarizeActiveEditor(ctx),
  'draftsmith.essay': (ctx) => () => essayActiveEditor(ctx),
  'draftsmith.continueStory': (ctx) => () => continueStoryActiveEditor(ctx),
  'draftsmith.writePremise': (ctx) => () => writePremiseActiveEditor(ctx),
  'draftsmith.roundTrip': (ctx) => () => roundTripActiveEditor(ctx),
  // The diff editor's title button passes the URI of the side it was clicked on.
  'draftsmith.applyRoundTrip': (ctx) => (uri?: unknown) => applyRoundTripCommand(ctx, uri),
  'draftsmith.suggestReplies': (ctx) => () => suggestRepliesActiveEditor(ctx),
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
  'draftsmith.summarizeSections': (ctx) => () => summarizeSectionsActiveEditor(ctx),
};

export function registerCommands(ctx: Ctx): void {
  for (const [id, factory] of Object.entries(commands)) {
    ctx.own(vscode.commands.registerCommand(id, factory(ctx)));
  }
}
