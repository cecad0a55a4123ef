/**
 * Rewrite Selection: the selection (or the paragraph at the cursor; in Markdown one paragraph or
 * list item, inline markup included, never code, front matter, a table or HTML) is rewritten by the
 * instruct model as a preset or the writer's own instruction says. The rewrite streams into a diff
 * beside the text; then each word-level change is offered in a list to keep or drop (Space toggles
 * one, the list's checkbox all of them, Enter applies), the diff showing the text as it will be.
 * What is kept is written as ONE undoable edit, and nothing is written if the document changed.
 * Each change is checked by the prose checks as the editor would check it once accepted: a change
 * that adds a finding is marked in the list and in the diff (a diagnostic, so in the Problems panel
 * too). Changes the model made to code, URLs or front matter are never offered (the engine drops them).
 * The command and the test API share rewriteSelection().
 */
import * as vscode from 'vscode';
import type { ModelChoice, RewriteChange, RewriteRequest, RewriteResult } from '../protocol';
import {
  applyWordChanges,
  describeAdded,
  describeFlags,
  describeProtected,
  findingsAdded,
  formatOf,
  REWRITE_PRESETS,
  rewriteBlockAt,
  type AddedFinding,
} from '../engine/public';
import type { ProseChecks } from './checks';
import { describeModelChoice } from '../modelChoice';
import { generate, requestError, type Ended, type GeneratingCommand } from './commandTemplate';
import { EngineError } from './engineClient';
import { Ctx } from './context';
import { paragraphAt, type Changed } from './edits';
import { showSettingError } from './notices';
import { roundTrip, type RoundTripOutcome } from './roundtripCommand';
import { readModelChoice, type ChosenModel } from './settings';

export const REWRITE_SCHEME = 'draftsmith-rewrite';
export const REWRITE_EMPTY =
  'Draftsmith: nothing to rewrite — select some text, or put the cursor in a paragraph (this line is empty).';
export const REWRITE_CANCELLED = 'Draftsmith: rewrite cancelled.';
export const REWRITE_CHANGED =
  'Draftsmith: the document changed during the rewrite, so nothing was written into your text. ' +
  'Open in New Editor shows the text with the changes you kept; run Rewrite Selection again to apply them.';
export const REWRITE_NO_MODEL =
  'Draftsmith: Rewrite Selection runs on an instruct model, and none is chosen: draftsmith.rewrite.model is ' +
  '"built-in", ' +
  ('and so is draftsmith.essay.model, which it would otherwise use. Choose Model… picks one (e.g. ' +
    'SmolLM2-360M-Instruct, a 419 MB download, once).');
export const CHOOSE_MODEL = 'Choose Model…';
export const ROUND_TRIP_FALLBACK = 'Rephrase with Round-Trip (built-in, no instruct model)';
/** The most instructions remembered, newest first. */
const RECENT = 5;
const RECENT_KEY = 'draftsmith.rewrite.recentInstructions';

/** What the writer asked for: a preset's id, or an instruction of their own. */
export type RewriteAsk = { preset: NonNullable<RewriteRequest['preset']> } | { instruction: string };

/**
 * What the test API passes instead of the quick picks: the ask, and which changes to keep (undefined:
 * none), given each change's added findings as the review marks them.
 */
export interface RewriteChoices {
  ask: RewriteAsk;
  review(
    changes: readonly RewriteChange[],
    result: RewriteResult,
    findings: readonly (readonly AddedFinding[])[],
  ): Promise<boolean[] | undefined>;
  /** With no instruct model, whether to rephrase with Round-Trip instead (Rephrase only). */
  fallback?: boolean;
}

export type RewriteOutcome =
  | {
      kind: 'applied';
      result: RewriteResult;
      accepted: boolean[];
      text: string;
      flags: string[];
      findings: AddedFinding[][];
    }
  /** Shown, and nothing kept (Escape, or no change at all). */
  | { kind: 'kept-none'; result: RewriteResult; flags: string[]; findings: AddedFinding[][] }
  | { kind: 'no-model'; message: string }
  | { kind: 'round-trip'; outcome: RoundTripOutcome }
  | { kind: 'not-asked' }
  | Ended
  | Changed;

interface RewriteSource {
  range: vscode.Range;
  text: string;
  notices: string[];
}

export const REWRITE: GeneratingCommand<RewriteSource> = {
  op: 'rewrite',
  noEditor: 'Draftsmith: open a text document and select the text to rewrite.',
  cancelled: REWRITE_CANCELLED,
  // The model is read by rewriteModel(): the essay model stands in when the rewrite setting is built-in.
  model: undefined,
  accepts: (editor) => editor.document.uri.scheme !== REWRITE_SCHEME,
  source(editor) {
    const doc = editor.document;
    const sel = editor.selection;
    if (formatOf(doc.languageId) === 'markdown') {
      const block = rewriteBlockAt(doc.getText(), doc.offsetAt(sel.start), doc.offsetAt(sel.end));
      if (block.kind === 'none')
        return block.what
          ? `Draftsmith: nothing to rewrite — ${sel.isEmpty ? 'the cursor is in' : 'the selection is'} ` +
              `${block.what}, not prose. ` +
              'In Markdown, Rewrite Selection rewrites one paragraph or list item: put the cursor in one, or select it.'
          : REWRITE_EMPTY;
      const notices =
        block.otherBlocks > 0
          ? [
              `Draftsmith: the selection covers ${block.otherBlocks + 1} paragraphs or list items; the first ` +
                `is rewritten, so that the markup between them stays.`,
            ]
          : [];
      const range = new vscode.Range(doc.positionAt(block.span.start), doc.positionAt(block.span.end));
      return block.text.trim() ? { range, text: block.text, notices } : REWRITE_EMPTY;
    }
    const range = sel.isEmpty ? paragraphAt(doc, sel.active) : new vscode.Range(sel.start, sel.end);
    const text = range ? doc.getText(range) : '';
    return range && text.trim() ? { range, text, notices: [] } : REWRITE_EMPTY;
  },
};

/**
 * The instruct model: draftsmith.rewrite.model, or while that is "built-in" the essay model when it
 * is not the built-in one (the engine refuses it if it has no chat template). Undefined: none chosen.
 */
export function rewriteModel(ctx: Ctx): { model: ChosenModel; choice: ModelChoice } | { error: string } | undefined {
  for (const key of ['rewrite.model', 'essay.model'] as const) {
    const read = readModelChoice(key);
    if ('error' in read) {
      ctx.log.error(`rewrite: ${read.error}`);
      showSettingError(read.error, read.setting);
      return { error: read.error };
    }
    if (read.model.choice.kind !== 'built-in') return { model: read.model, choice: read.model.choice };
  }
  return undefined;
}

/** The quick pick of presets, the instructions typed before, and "Your instruction…". */
async function askRewrite(ctx: Ctx): Promise<RewriteAsk | undefined> {
  const recent = ctx.extension.globalState.get<string[]>(RECENT_KEY, []).filter((x) => typeof x === 'string');
  type Item = vscode.QuickPickItem & { ask?: RewriteAsk };
  const items: Item[] = [
    ...REWRITE_PRESETS.map((p) => ({ label: p.label, detail: p.instruction, ask: { preset: p.id } })),
    { label: 'Your instruction…', description: 'say what to change', alwaysShow: true },
    ...(recent.length ? [{ label: 'Recent instructions', kind: vscode.QuickPickItemKind.Separator }] : []),
    ...recent.map((instruction) => ({ label: instruction, ask: { instruction } })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Draftsmith: Rewrite Selection',
    placeHolder: 'How should the text be rewritten?',
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  if (picked.ask) return picked.ask;
  const typed = await vscode.window.showInputBox({
    title: 'Draftsmith: Rewrite Selection',
    prompt: 'Say what to change, e.g. "Use British spelling" or "Turn it into a question".',
    value: recent[0] ?? '',
    validateInput: (v) => (v.trim() ? undefined : 'Say what to change.'),
  });
  return typed?.trim() ? { instruction: typed.trim() } : undefined;
}

async function remember(ctx: Ctx, instruction: string): Promise<void> {
  const recent = ctx.extension.globalState.get<string[]>(RECENT_KEY, []).filter((x) => x !== instruction);
  await ctx.extension.globalState.update(RECENT_KEY, [instruction, ...recent].slice(0, RECENT));
}

/** What the review says of a change that adds findings: "adds: Possible spelling mistake (“teh”)". */
export function addsText(found: readonly AddedFinding[]): string {
  return `adds: ${describeAdded(found).join('; ')}`;
}

/** One change as the review list shows it: what goes, what comes, the words around it, and what it adds. */
function changeItem(source: string, c: RewriteChange, found: readonly AddedFinding[]): vscode.QuickPickItem {
  const show = (t: string) => (t.trim() ? `“${t.trim().replace(/\s+/g, ' ')}”` : '(nothing)');
  const before = source.slice(Math.max(0, c.start - 30), c.start).replace(/\s+/g, ' ');
  const after = source.slice(c.end, c.end + 30).replace(/\s+/g, ' ');
  return {
    label: `${found.length ? '$(warning) ' : ''}${show(c.before)} → ${show(c.after)}`,
    ...(found.length ? { description: addsText(found) } : {}),
    detail: `…${before}[${c.after.trim() || '—'}]${after}…`,
    picked: true,
  };
}

/** The list of changes: each kept (checked) or dropped; Enter applies the checked ones. Undefined: Escape. */
function reviewChanges(
  result: RewriteResult,
  flags: string[],
  found: readonly (readonly AddedFinding[])[],
  preview: (accepted: boolean[]) => void,
): Promise<boolean[] | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { index: number }>();
    pick.canSelectMany = true;
    const marked = found.filter((f) => f.length > 0).length;
    pick.title =
      `Draftsmith: ${result.changes.length} change${result.changes.length === 1 ? '' : 's'}` +
      (marked ? `, ⚠ ${marked} add${marked === 1 ? 's' : ''} prose-check findings` : '') +
      (flags.length ? ' — ⚠ ' + flags.join(' ') : '');
    pick.placeholder =
      'Space keeps or drops the change under the cursor; Enter applies the checked changes (Escape: none)';
    pick.matchOnDetail = true;
    pick.ignoreFocusOut = true;
    pick.items = result.changes.map((c, index) => ({ ...changeItem(result.source, c, found[index] ?? []), index }));
    pick.selectedItems = pick.items;
    const accepted = () => {
      const kept = new Set(pick.selectedItems.map((i) => i.index));
      return result.changes.map((_, i) => kept.has(i));
    };
    let done = false;
    pick.onDidChangeSelection(() => preview(accepted()));
    pick.onDidAccept(() => {
      done = true;
      const a = accepted();
      pick.hide();
      resolve(a);
    });
    pick.onDidHide(() => {
      pick.dispose();
      if (!done) resolve(undefined);
    });
    pick.show();
  });
}

/** The diff's two sides: read-only documents of a content provider, the rewrite's updated as it streams. */
export class RewriteDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;
  /** The findings each change would add, on the rewrite's side of the diff (and so in the Problems panel). */
  readonly marks = vscode.languages.createDiagnosticCollection('draftsmith-rewrite');
  private next = 1;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REWRITE_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  open(name: string, original: string): { originalUri: vscode.Uri; rewriteUri: vscode.Uri; id: number } {
    const id = this.next++;
    const originalUri = vscode.Uri.from({ scheme: REWRITE_SCHEME, path: `/${id}/${name}`, query: 'original' });
    const rewriteUri = vscode.Uri.from({ scheme: REWRITE_SCHEME, path: `/${id}/${name}`, query: 'rewrite' });
    this.contents.set(originalUri.toString(), original);
    this.contents.set(rewriteUri.toString(), '');
    return { originalUri, rewriteUri, id };
  }

  set(uri: vscode.Uri, text: string): void {
    if (this.contents.get(uri.toString()) === text) return;
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  /**
   * Shows `source` with the accepted changes on the rewrite's side, each accepted change that adds
   * findings under a diagnostic that says what they are.
   */
  preview(
    uri: vscode.Uri,
    source: string,
    changes: readonly RewriteChange[],
    accepted: readonly boolean[],
    found: readonly (readonly AddedFinding[])[],
  ): void {
    const text = applyWordChanges(source, changes, accepted);
    this.set(uri, text);
    const lineStarts = [0, ...[...text.matchAll(/\r\n?|\n/g)].map((m) => m.index + m[0].length)];
    const position = (offset: number) => {
      let line = 0;
      while (line + 1 < lineStarts.length && lineStarts[line + 1] <= offset) line++;
      return new vscode.Position(line, offset - lineStarts[line]);
    };
    const marks: vscode.Diagnostic[] = [];
    let shift = 0;
    changes.forEach((c, i) => {
      if (!accepted[i]) return;
      const start = c.start + shift;
      shift += c.after.length - (c.end - c.start);
      if (!found[i]?.length) return;
      const d = new vscode.Diagnostic(
        new vscode.Range(position(start), position(start + c.after.length)),
        `This change ${addsText(found[i])}`,
        vscode.DiagnosticSeverity.Warning,
      );
      d.source = 'Draftsmith';
      d.code = 'rewrite';
      marks.push(d);
    });
    this.marks.set(uri, marks);
  }

  forget(...uris: vscode.Uri[]): void {
    for (const u of uris) {
      this.contents.delete(u.toString());
      this.marks.delete(u);
    }
  }

  dispose(): void {
    this.marks.dispose();
    this.registration.dispose();
    this.changed.dispose();
    this.contents.clear();
  }
}

/** One provider per activation, made on the first rewrite and disposed with the Ctx. */
const documents = new WeakMap<Ctx, RewriteDocuments>();
function rewriteDocuments(ctx: Ctx): RewriteDocuments {
  let d = documents.get(ctx);
  if (!d) documents.set(ctx, (d = ctx.own(new RewriteDocuments())));
  return d;
}

async function closeDiff(rewriteUri: vscode.Uri): Promise<void> {
  const key = rewriteUri.toString();
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === key);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}

/**
 * What each change adds to the prose checks' findings of the document (none for each when the checks
 * are off, the document changed meanwhile, or the check failed: the review then marks nothing).
 */
async function checkChanges(
  ctx: Ctx,
  checks: ProseChecks | undefined,
  doc: vscode.TextDocument,
  range: vscode.Range,
  result: RewriteResult,
): Promise<AddedFinding[][]> {
  const none = result.changes.map(() => []);
  const check = checks?.checkAs(doc);
  if (!check || result.changes.length === 0 || doc.getText(range) !== result.source) return none;
  const started = performance.now();
  try {
    const found = await findingsAdded(doc.getText(), doc.offsetAt(range.start), result.changes, check);
    if (!found) return none;
    ctx.log.info(
      `rewrite: checked ${result.changes.length} changes in ${Math.round(performance.now() - started)} ms; ` +
        `${found.filter((f) => f.length).length} add prose-check findings`,
    );
    return found;
  } catch (e) {
    ctx.log.warn(`rewrite: the prose checks of the changes failed: ${e instanceof Error ? e.message : String(e)}`);
    return none;
  }
}

export function rewriteSelection(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
  choices?: RewriteChoices,
  checks?: ProseChecks,
): Promise<RewriteOutcome> {
  return generate(ctx, editor, token, REWRITE, async (run): Promise<RewriteOutcome> => {
    const { range, text, notices } = run.source;
    const model = rewriteModel(ctx);
    if (model && 'error' in model) return { kind: 'error', message: model.error };
    if (!model) {
      // No instruct model: say so and offer Choose Model; Rephrase alone may run on Round-Trip.
      ctx.log.info('rewrite: no instruct model chosen');
      const shown = vscode.window.showWarningMessage(REWRITE_NO_MODEL, CHOOSE_MODEL, ROUND_TRIP_FALLBACK);
      const choice = choices
        ? choices.fallback && 'preset' in choices.ask && choices.ask.preset === 'rephrase'
          ? ROUND_TRIP_FALLBACK
          : undefined
        : await shown;
      if (choice === CHOOSE_MODEL) void vscode.commands.executeCommand('draftsmith.chooseModel');
      if (choice === ROUND_TRIP_FALLBACK) return { kind: 'round-trip', outcome: await roundTrip(ctx, editor, token) };
      return { kind: 'no-model', message: REWRITE_NO_MODEL };
    }
    const ask = choices ? choices.ask : await askRewrite(ctx);
    if (!ask) return { kind: 'not-asked' };
    if ('instruction' in ask) await remember(ctx, ask.instruction);
    for (const n of notices) void vscode.window.showInformationMessage(n);
    ctx.log.info(
      `rewrite: ${text.length} characters from ${editor.document.uri.toString(true)}, ` +
        `${'preset' in ask ? `preset ${ask.preset}` : `instruction ${JSON.stringify(ask.instruction)}`}, ` +
        `${describeModelChoice(model.choice)}`,
    );

    // The diff opens at once; the rewrite streams into its right side.
    const docs = rewriteDocuments(ctx);
    const name = editor.document.uri.path.split('/').pop() || 'text';
    const { originalUri, rewriteUri } = docs.open(name, text);
    await vscode.commands.executeCommand('vscode.diff', originalUri, rewriteUri, `Rewrite: ${name} ↔ rewrite`, {
      viewColumn: vscode.ViewColumn.Beside,
      preview: false,
      preserveFocus: true,
    });
    try {
      let result: RewriteResult;
      try {
        result = await run.request(
          'Draftsmith: Rewriting…',
          { op: 'rewrite', text, ...ask, model: model.choice },
          (partial) => docs.set(rewriteUri, partial),
        );
      } catch (err) {
        // A chosen model that is no instruct model: say so, and offer to choose another.
        const cause = requestError(err);
        if (!(cause instanceof EngineError && cause.code === 'bad-model' && /no chat template/.test(cause.message)))
          throw err;
        ctx.log.error(`rewrite: ${cause.message}`);
        void vscode.window.showErrorMessage(`Draftsmith: ${cause.message}`, CHOOSE_MODEL).then((c) => {
          if (c === CHOOSE_MODEL) void vscode.commands.executeCommand('draftsmith.chooseModel');
        });
        return { kind: 'error', message: cause.message };
      }
      docs.set(rewriteUri, result.rewrite);
      const flags = describeFlags(result.flags);
      ctx.log.info(
        `rewrite: ${result.changes.length} changes, ${result.stats.outputTokens} tokens, first after ` +
          `${Math.round(result.firstTokenMs)} ms, ` +
          (`${result.stats.tokensPerSecond.toFixed(1)} ` +
            `tokens/s${result.stripped.length ? `; removed ${JSON.stringify(result.stripped)}` : ''}`),
      );
      for (const f of flags) ctx.log.warn(`rewrite: ${f}`);
      if (flags.length)
        void vscode.window.showWarningMessage(
          `Draftsmith: ${flags.join(' ')} Check those changes before you keep them.`,
        );
      const untouched = describeProtected(result.protectedChanges);
      if (untouched) {
        ctx.log.info(`rewrite: ${untouched}`);
        void vscode.window.showInformationMessage(`Draftsmith: ${untouched}`);
      }
      const found = await checkChanges(ctx, checks, editor.document, range, result);
      if (result.changes.length === 0) {
        void vscode.window.showInformationMessage(
          'Draftsmith: the rewrite is the same as the text; nothing to change.',
        );
        return { kind: 'kept-none', result, flags, findings: found };
      }
      const preview = (accepted: boolean[]) => docs.preview(rewriteUri, result.source, result.changes, accepted, found);
      preview(result.changes.map(() => true));
      const accepted = choices
        ? await choices.review(result.changes, result, found)
        : await reviewChanges(result, flags, found, preview);
      if (!accepted || !accepted.some(Boolean)) {
        void vscode.window.showInformationMessage('Draftsmith: no change kept; the text is as it was.');
        return { kind: 'kept-none', result, flags, findings: found };
      }
      const kept = applyWordChanges(result.source, result.changes, accepted);
      const written = await run.write(range, kept, 'rewrite', REWRITE_CHANGED);
      if (written.kind !== 'inserted') return written;
      ctx.log.info(`rewrite: kept ${accepted.filter(Boolean).length} of ${accepted.length} changes, as one edit`);
      return { kind: 'applied', result, accepted, text: kept, flags, findings: found };
    } finally {
      await closeDiff(rewriteUri);
      docs.forget(originalUri, rewriteUri);
    }
  });
}
