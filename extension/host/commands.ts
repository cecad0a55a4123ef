/**
 * Every command in one table (rust-analyzer's shape): its title, where VS Code shows it (the Command
 * Palette, the context menus, an editor's title bar, a keybinding) and what it runs.
 * registerCommands() registers them all and hands the disposables to the Ctx; package.json's
 * contributes (commands, menus, keybindings) must say the same, which commandTable.test.ts checks
 * entry by entry.
 */
import * as vscode from 'vscode';
import {
  ADD_TO_DICTIONARY_COMMAND,
  FIX_ALL_SAFE_COMMAND,
  IGNORE_RULE_COMMAND,
  TOGGLE_CHECKS_COMMAND,
  type ProseChecks,
} from './checks';
import { SET_WORD_GOAL_COMMAND, type WritingStatus } from './checksStatus';
import { chooseModel } from './chooseModel';
import { Ctx } from './context';
import { onActiveEditor } from './commandTemplate';
import { ESSAY, essay } from './essayCommand';
import { exportFolderScores, scoreFolderCommand } from './folderCommand';
import { compareSystemsCommand, exportReport, openSegment } from './systemsCommand';
import { ACCEPTED_COMMAND, toggleInline, type InlineSuggestions } from './inlineProvider';
import { manageModels } from './manageModels';
import { toggleOffline } from './offlineStatus';
import { REPLY, suggestReplies } from './replyCommand';
import { REWRITE, rewriteSelection } from './rewriteCommand';
import { applyRoundTripCommand, ROUNDTRIP, roundTrip } from './roundtripCommand';
import { checkCoherenceCommand, compareDraftsCommand, scoreDraftCommand } from './scoreCommand';
import { CONTINUE_STORY, continueStory, WRITE_PREMISE, writePremise } from './storyCommand';
import { SUMMARIZE, summarize } from './summarizeCommand';
import { SUMMARIZE_SECTIONS, summarizeSections } from './summarizeSectionsCommand';

/** What a command may use: the Ctx, and the parts activation builds beside it. */
export interface CommandParts {
  ctx: Ctx;
  checks: ProseChecks;
  writing: WritingStatus;
  inline: InlineSuggestions;
}

/** A place in one of VS Code's menus: its group (and order) and when it shows. */
export interface MenuPlace {
  group?: string;
  when?: string;
}

/** The menus (contributes.menus) a command may be placed in, besides the Command Palette. */
export type MenuId = 'editor/context' | 'explorer/context' | 'editor/title';

export interface CommandSpec {
  /**
   * Its title after the category ("Draftsmith: …"); absent: an internal command, run by VS Code for us,
   * not contributed.
   */
  title?: string;
  /** A codicon, for a title-bar button. */
  icon?: string;
  /** When the Command Palette lists it ('false': never); absent: always. */
  palette?: string;
  menus?: Partial<Record<MenuId, MenuPlace>>;
  keybinding?: { key: string; mac: string; when: string };
  /** The command: the parts, then the arguments VS Code passes (a clicked URI, a quick fix's). */
  run: (parts: CommandParts, ...args: unknown[]) => unknown;
}

/** Every contributed command's category. */
export const CATEGORY = 'Draftsmith';

const inEditor = (order: number, when = 'editorTextFocus'): Partial<Record<MenuId, MenuPlace>> => ({
  'editor/context': { group: `draftsmith@${order}`, when },
});

/** A command on the active editor's text (commandTemplate.ts): `work` gets the Ctx and the editor. */
const onEditor =
  (command: Parameters<typeof onActiveEditor>[0], work: (ctx: Ctx, editor: vscode.TextEditor) => Promise<unknown>) =>
  ({ ctx }: CommandParts) =>
    onActiveEditor(command, (e) => work(ctx, e));

export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  // The generating commands: the active editor's text (commandTemplate.ts).
  'draftsmith.summarize': {
    title: 'Summarize Document',
    menus: inEditor(1),
    keybinding: { key: 'ctrl+alt+s', mac: 'cmd+alt+s', when: 'editorTextFocus' },
    run: onEditor(SUMMARIZE, summarize),
  },
  'draftsmith.summarizeSections': {
    title: 'Summarize Sections',
    menus: inEditor(1),
    run: onEditor(SUMMARIZE_SECTIONS, summarizeSections),
  },
  'draftsmith.essay': { title: 'Expand Topic Words into Essay', menus: inEditor(2), run: onEditor(ESSAY, essay) },
  'draftsmith.continueStory': {
    title: 'Continue Story',
    menus: inEditor(3),
    run: onEditor(CONTINUE_STORY, continueStory),
  },
  'draftsmith.writePremise': {
    title: 'Write a Premise',
    menus: inEditor(4),
    run: onEditor(WRITE_PREMISE, writePremise),
  },
  'draftsmith.roundTrip': {
    title: 'Round-Trip Paragraph',
    // Not on Round-Trip's own diff documents.
    menus: inEditor(7, 'editorTextFocus && resourceScheme != draftsmith-roundtrip'),
    run: onEditor(ROUNDTRIP, roundTrip),
  },
  'draftsmith.suggestReplies': {
    title: 'Suggest Replies',
    menus: inEditor(8, 'editorTextFocus && resourceScheme != draftsmith-roundtrip'),
    run: onEditor(REPLY, suggestReplies),
  },
  'draftsmith.rewriteSelection': {
    title: 'Rewrite Selection…',
    menus: inEditor(7, 'editorTextFocus && !editorReadonly && resourceScheme != draftsmith-rewrite'),
    keybinding: { key: 'ctrl+alt+r', mac: 'cmd+alt+r', when: 'editorTextFocus && !editorReadonly' },
    // The prose checks mark the changes that add findings.
    run: ({ ctx, checks }) => onActiveEditor(REWRITE, (e) => rewriteSelection(ctx, e, undefined, undefined, checks)),
  },
  'draftsmith.applyRoundTrip': {
    title: 'Apply Round-Trip Reconstruction',
    icon: '$(check)',
    palette: 'draftsmith.roundTripPending',
    menus: {
      'editor/title': {
        group: 'navigation',
        when: 'resourceScheme == draftsmith-roundtrip && draftsmith.roundTripPending',
      },
    },
    // The diff editor's title button passes the URI of the side it was clicked on.
    run: ({ ctx }, uri) => applyRoundTripCommand(ctx, uri),
  },
  'draftsmith.scoreDraft': { title: 'Score Draft', menus: inEditor(5), run: ({ ctx }) => scoreDraftCommand(ctx) },
  'draftsmith.compareDrafts': {
    title: 'Compare Two Drafts…',
    menus: inEditor(5),
    run: ({ ctx }) => compareDraftsCommand(ctx),
  },
  'draftsmith.checkCoherence': {
    title: 'Check Coherence',
    menus: inEditor(6),
    run: ({ ctx }) => checkCoherenceCommand(ctx),
  },
  'draftsmith.scoreFolder': {
    title: 'Score Drafts in Folder…',
    menus: {
      'explorer/context': { group: 'draftsmith@1', when: 'explorerResourceIsFolder || resourceExtname == .jsonl' },
    },
    // The explorer's context menu passes the folder (or JSONL file) clicked.
    run: ({ ctx }, uri) => scoreFolderCommand(ctx, uri),
  },
  'draftsmith.compareSystems': {
    title: 'Compare Drafts against a Baseline…',
    run: ({ ctx }) => compareSystemsCommand(ctx),
  },
  'draftsmith.showInsights': {
    title: 'Show Insights',
    menus: { 'editor/context': { group: 'draftsmith@9' } },
    run: ({ ctx }) => ctx.insights.show(),
  },
  // Models and the engine.
  'draftsmith.chooseModel': { title: 'Choose Model…', run: ({ ctx }) => chooseModel(ctx) },
  'draftsmith.manageModels': { title: 'Manage Models…', run: ({ ctx }) => manageModels(ctx) },
  'draftsmith.toggleOffline': { title: 'Toggle Offline (Never Download Models)', run: () => toggleOffline() },
  'draftsmith.showLog': { title: 'Show Log', run: ({ ctx }) => ctx.log.show(true) },
  'draftsmith.restartEngine': {
    title: 'Restart Engine',
    run: ({ ctx }) => {
      // Requests in flight fail now; the old worker thread is stopped safely in the background.
      void ctx.engine.restart();
      void vscode.window.showInformationMessage('Draftsmith: the engine was restarted.');
    },
  },
  // Inline suggestions (inlineProvider.ts).
  'draftsmith.toggleInline': { title: 'Toggle Inline Suggestions', run: () => toggleInline() },
  [ACCEPTED_COMMAND]: { run: ({ inline }, id) => inline.accepted(id) },
  // Prose checks and the writing status bar item (checks.ts, checksStatus.ts).
  [TOGGLE_CHECKS_COMMAND]: { title: 'Toggle Prose Checks', run: ({ checks }) => checks.toggle() },
  [FIX_ALL_SAFE_COMMAND]: { title: 'Fix All Safe Issues', run: ({ checks }) => checks.fixAllSafe() },
  [SET_WORD_GOAL_COMMAND]: { title: 'Set Word Goal for This File…', run: ({ writing }) => writing.setGoal() },
  // The quick fixes' commands: their arguments come from the fix, so the palette never lists them.
  [ADD_TO_DICTIONARY_COMMAND]: {
    title: 'Add Word to Dictionary',
    palette: 'false',
    run: ({ checks }, word, uri) => checks.addWord(word, uri),
  },
  [IGNORE_RULE_COMMAND]: {
    title: 'Ignore Check Rule',
    palette: 'false',
    run: ({ checks }, scope, uri, rule, line) => checks.ignore(scope, uri, rule, line),
  },
};

export function registerCommands(parts: CommandParts): void {
  const { ctx } = parts;
  for (const [id, spec] of Object.entries(COMMANDS)) {
    ctx.own(vscode.commands.registerCommand(id, (...args: unknown[]) => spec.run(parts, ...args)));
  }
  // What the insights panel's page asks for (FromPanel), answered here beside the commands.
  ctx.own(ctx.insights.handle('export-folder', (m) => void exportFolderScores(ctx, m.format, m.sort)));
  ctx.own(ctx.insights.handle('open-segment', (m) => void openSegment(ctx, m.system, m.segment)));
  ctx.own(ctx.insights.handle('export-report', (m) => void exportReport(ctx, m.format)));
}
