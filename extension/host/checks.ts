/**
 * Prose checks as you write: the checker's findings (engine/checks) as diagnostics in the Problems
 * panel for Markdown, plain text and the languages of draftsmith.checks.languages, with quick
 * fixes (the suggestions, Add to Dictionary, ignore the rule on this line or in the file) and Fix All
 * Safe Issues.
 *
 * The checker runs here, on the extension host, not in the engine's worker: the worker runs one model
 * request at a time, and a check must not wait behind a story being written. A check is cheap (the
 * paragraphs not changed since the last one come from a cache) and yields between batches of
 * paragraphs; a newer edit aborts it, and a result for a version of the document that is no longer
 * current is dropped, so no diagnostic is ever stale.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  addToCspellWords,
  addToDictionary,
  checkerModule,
  checkOptionsModule as optionsModule,
  DICTIONARY_FILE,
  FAMILIES,
  FAMILY_NAMES,
  formatOf,
  lineTextAt,
  NO_IGNORES,
  projectWords,
  readDictionary,
  safeFixes,
  userDictionaryPath,
  usesCodeSpellChecker,
  withoutIgnored,
  type CheckFinding,
  type DocumentFormat,
  type Ignores,
  type ProseChecker,
  type Severity,
} from '../engine/public';
import type { Ctx } from './context';
import { updateWhereSet } from './settings';

export const CHECKS_SECTION = 'draftsmith.checks';
export const TOGGLE_CHECKS_COMMAND = 'draftsmith.toggleChecks';
export const FIX_ALL_SAFE_COMMAND = 'draftsmith.fixAllSafe';
export const ADD_TO_DICTIONARY_COMMAND = 'draftsmith.addToDictionary';
export const IGNORE_RULE_COMMAND = 'draftsmith.ignoreRule';
const IGNORES_KEY = 'draftsmith.checks.ignores';
const SOURCE = 'Draftsmith';
const CHECKED_SCHEMES: ReadonlySet<string> = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs']);

// Loaded on the first check, not at activation: retext's parser and phrase lists, zod and Harper's
// loader cost tens of milliseconds to load.

/** VS Code's severity for each of ours (read when needed: nothing of vscode's is touched while the module loads). */
function severity(s: Severity): vscode.DiagnosticSeverity {
  const all: Record<Severity, vscode.DiagnosticSeverity> = {
    error: vscode.DiagnosticSeverity.Error,
    warning: vscode.DiagnosticSeverity.Warning,
    information: vscode.DiagnosticSeverity.Information,
    hint: vscode.DiagnosticSeverity.Hint,
  };
  return all[s];
}

interface HostSettings {
  enabled: boolean;
  languages: string[];
  delayMs: number;
}

function readHostSettings(): HostSettings {
  const c = vscode.workspace.getConfiguration(CHECKS_SECTION);
  const languages = c.get<unknown>('languages');
  const delay = c.get<unknown>('delayMs');
  return {
    enabled: c.get<unknown>('enabled') !== false,
    languages: Array.isArray(languages) ? languages.filter((l): l is string => typeof l === 'string') : [],
    delayMs: typeof delay === 'number' && delay >= 0 && delay <= 5000 ? delay : 300,
  };
}

/** Whether a document of this language is checked (Markdown and plain text always, the setting's others too). */
export function isCheckedLanguage(
  languageId: string,
  extra: readonly string[] = readHostSettings().languages,
): boolean {
  return languageId === 'markdown' || languageId === 'plaintext' || extra.includes(languageId);
}

const formatOfDocument = (doc: vscode.TextDocument): DocumentFormat =>
  doc.languageId === 'plaintext' ? 'plain' : formatOf(doc.languageId === 'markdown' ? 'markdown' : doc.fileName);

/** A file's words, read again only when the file changed (its mtime). */
class DictionaryFiles {
  private readonly seen = new Map<string, { mtime: number; words: string[] }>();
  words(file: string): string[] {
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      return [];
    }
    const known = this.seen.get(file);
    if (known && known.mtime === mtime) return known.words;
    const words = readDictionary(file);
    this.seen.set(file, { mtime, words });
    return words;
  }
}

export class ProseChecks implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('draftsmith');
  private readonly disposables: vscode.Disposable[] = [this.diagnostics];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, AbortController>();
  /** The findings behind each document's diagnostics, with the version they are for. */
  private readonly results = new Map<string, { version: number; text: string; findings: CheckFinding[] }>();
  private readonly dictionaries = new DictionaryFiles();
  private settings = readHostSettings();
  private failed = false;
  /** The checker, once loaded (closing a document before then has nothing to forget). */
  private loaded: ProseChecker | undefined;
  /** Checks finished (the tests wait on it). */
  checksDone = 0;

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      vscode.languages.registerCodeActionsProvider({ scheme: '*' }, this, {
        providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
      }),
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.schedule(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(CHECKS_SECTION)) {
          this.settings = readHostSettings();
          this.recheckAll();
        }
      }),
      vscode.workspace.onDidSaveTextDocument((d) => {
        // Someone edited a dictionary by hand: every document is checked against it again.
        if (d.uri.fsPath.endsWith(DICTIONARY_FILE)) this.recheckAll();
      }),
    );
    this.recheckAll();
  }

  private recheckAll(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (!this.settings.enabled || !isCheckedLanguage(doc.languageId, this.settings.languages)) this.forget(doc.uri);
      else this.schedule(doc, 0);
    }
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.loaded?.forget(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.running.get(key)?.abort();
    this.running.delete(key);
    this.results.delete(key);
    this.diagnostics.delete(uri);
  }

  /** Checks `doc` after the typing pause (draftsmith.checks.delayMs), or at once with 0. */
  schedule(doc: vscode.TextDocument, delay = this.settings.delayMs): void {
    if (!this.settings.enabled || !isCheckedLanguage(doc.languageId, this.settings.languages)) return;
    // The writer's files, not the old versions a diff or a source control view opens.
    if (!CHECKED_SCHEMES.has(doc.uri.scheme)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    // The run under way is for text that is no longer there.
    this.running.get(key)?.abort();
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.run(doc);
      }, delay),
    );
  }

  private wordsFor(uri: vscode.Uri): string[] {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const workspace = folder ? this.dictionaries.words(path.join(folder.uri.fsPath, DICTIONARY_FILE)) : [];
    // The project's Code Spell Checker and Vale word lists, from the document's folder up to the workspace folder.
    const project = folder && uri.scheme === 'file' ? projectWords(uri.fsPath, folder.uri.fsPath).words : [];
    return [...new Set([...this.dictionaries.words(userDictionaryPath()), ...workspace, ...project])].sort();
  }

  private async checker(uri: vscode.Uri): Promise<ProseChecker | undefined> {
    try {
      const checker = await checkerModule().sharedChecker();
      const raw = vscode.workspace.getConfiguration(CHECKS_SECTION);
      const settings: Record<string, unknown> = {};
      for (const f of FAMILY_NAMES) settings[FAMILIES[f].setting] = raw.get(FAMILIES[f].setting);
      settings.grammarRulesOff = raw.get('grammarRulesOff');
      settings.dialect = raw.get('dialect');
      await checker.configure(optionsModule().checkerConfigFrom(settings, this.wordsFor(uri)));
      this.loaded = checker;
      return checker;
    } catch (e) {
      if (!this.failed) {
        this.failed = true;
        this.ctx.log.error(`Prose checks could not start: ${e instanceof Error ? e.message : String(e)}`);
      }
      return undefined;
    }
  }

  private async run(doc: vscode.TextDocument): Promise<void> {
    const key = doc.uri.toString();
    const controller = new AbortController();
    this.running.set(key, controller);
    const version = doc.version;
    const text = doc.getText();
    try {
      const checker = await this.checker(doc.uri);
      if (!checker || controller.signal.aborted) return;
      const result = await checker.check(text, formatOfDocument(doc), controller.signal, key);
      // Dropped when the document moved on (or closed) meanwhile: a newer check is on its way.
      if (!result || doc.isClosed || doc.version !== version || controller.signal.aborted) return;
      const findings = withoutIgnored(text, result.findings, this.ignoresOf(doc.uri));
      this.results.set(key, { version, text, findings });
      this.diagnostics.set(
        doc.uri,
        findings.map((f) => this.toDiagnostic(doc, f)),
      );
      this.ctx.log.trace(
        `checked ${path.basename(doc.uri.fsPath)}: ${result.checked}/${result.units} paragraphs, ` +
          `${findings.length} findings, ${result.ms.toFixed(0)} ms`,
      );
    } catch (e) {
      this.ctx.log.warn(`Prose check of ${doc.uri.fsPath} failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      if (this.running.get(key) === controller) this.running.delete(key);
      this.checksDone++;
    }
  }

  private toDiagnostic(doc: vscode.TextDocument, f: CheckFinding): vscode.Diagnostic {
    const d = new vscode.Diagnostic(
      new vscode.Range(doc.positionAt(f.start), doc.positionAt(f.end)),
      f.message,
      severity(f.severity),
    );
    d.source = SOURCE;
    d.code = f.rule;
    return d;
  }

  /**
   * Other text checked as `doc` is (its settings, word lists, dialect and ignores), for a rewrite's
   * proposed changes; undefined when the checks are off, or not on for its language.
   */
  checkAs(doc: vscode.TextDocument): ((text: string) => Promise<CheckFinding[] | undefined>) | undefined {
    if (!this.settings.enabled || !isCheckedLanguage(doc.languageId, this.settings.languages)) return undefined;
    return async (text) => {
      const checker = await this.checker(doc.uri);
      // Under a key of its own, so that each text is read as a small edit of the one before (reread.ts).
      const result = await checker?.check(text, formatOfDocument(doc), undefined, `${doc.uri.toString()}#rewrite`);
      return result && withoutIgnored(text, result.findings, this.ignoresOf(doc.uri));
    };
  }

  /** The finding behind a diagnostic, when the diagnostic is for the document as it is now. */
  private findingOf(doc: vscode.TextDocument, d: vscode.Diagnostic): CheckFinding | undefined {
    const r = this.results.get(doc.uri.toString());
    if (!r || r.version !== doc.version || d.source !== SOURCE) return undefined;
    const start = doc.offsetAt(d.range.start);
    const end = doc.offsetAt(d.range.end);
    return r.findings.find((f) => f.start === start && f.end === end && f.rule === d.code);
  }

  provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const f = this.findingOf(doc, d);
      if (!f) continue;
      f.fixes.slice(0, 5).forEach((fix, i) => {
        const a = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.edit = new vscode.WorkspaceEdit();
        a.edit.replace(doc.uri, new vscode.Range(doc.positionAt(fix.start), doc.positionAt(fix.end)), fix.text);
        a.isPreferred = i === 0 && f.safe;
        actions.push(a);
      });
      if (f.word) {
        const a = new vscode.CodeAction(`Add “${f.word}” to the dictionary`, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = { title: a.title, command: ADD_TO_DICTIONARY_COMMAND, arguments: [f.word, doc.uri.toString()] };
        actions.push(a);
      }
      const line = lineTextAt(doc.getText(), f.start);
      for (const [scope, title] of [
        ['line', `Ignore “${f.rule}” on this line`],
        ['file', `Ignore “${f.rule}” in this file`],
      ] as const) {
        const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = { title, command: IGNORE_RULE_COMMAND, arguments: [scope, doc.uri.toString(), f.rule, line] };
        actions.push(a);
      }
    }
    return actions;
  }

  private ignoresOf(uri: vscode.Uri): Ignores {
    const all = this.ctx.extension.workspaceState.get<Record<string, Ignores>>(IGNORES_KEY) ?? {};
    const mine = all[uri.toString()];
    if (!mine || !Array.isArray(mine.file) || !Array.isArray(mine.lines)) return NO_IGNORES;
    return mine;
  }

  /** A quick fix's Ignore: the rule on one line (its text) or in the whole file, for this workspace. */
  async ignore(scope: unknown, uri: unknown, rule: unknown, line: unknown): Promise<void> {
    if (typeof uri !== 'string' || typeof rule !== 'string' || (scope !== 'line' && scope !== 'file')) return;
    const all = { ...(this.ctx.extension.workspaceState.get<Record<string, Ignores>>(IGNORES_KEY) ?? {}) };
    const mine = this.ignoresOf(vscode.Uri.parse(uri));
    all[uri] =
      scope === 'file'
        ? { file: [...mine.file, rule], lines: mine.lines }
        : { file: mine.file, lines: [...mine.lines, { rule, line: typeof line === 'string' ? line : '' }] };
    await this.ctx.extension.workspaceState.update(IGNORES_KEY, all);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (doc) this.schedule(doc, 0);
  }

  /** Add Word to Dictionary (a quick fix's arguments: the word, the document's URI). */
  async addWord(word: unknown, uri: unknown): Promise<void> {
    if (typeof word !== 'string') return;
    const target = typeof uri === 'string' ? vscode.Uri.parse(uri) : vscode.window.activeTextEditor?.document.uri;
    const folder = target ? vscode.workspace.getWorkspaceFolder(target) : undefined;
    // Where the word goes: the writer chooses when there is more than one place.
    const places: { label: string; description: string; write: () => Promise<void> | void }[] = [];
    if (folder)
      places.push({
        label: 'Workspace dictionary',
        description: path.join(path.basename(folder.uri.fsPath), DICTIONARY_FILE),
        write: () => addToDictionary(path.join(folder.uri.fsPath, DICTIONARY_FILE), word),
      });
    places.push({
      label: 'Personal dictionary',
      description: userDictionaryPath(),
      write: () => addToDictionary(userDictionaryPath(), word),
    });
    if (folder && usesCodeSpellChecker(folder.uri.fsPath))
      places.push({
        label: 'Code Spell Checker’s words',
        description: 'cSpell.words in the workspace settings',
        write: () => addToCspellWords(path.join(folder.uri.fsPath, '.vscode', 'settings.json'), word),
      });
    const place =
      places.length === 1
        ? places[0]
        : await vscode.window.showQuickPick(places, { placeHolder: `Add “${word}” to which dictionary?` });
    if (!place) return;
    try {
      await place.write();
    } catch (e) {
      void vscode.window.showWarningMessage(`Draftsmith: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.recheckAll();
  }

  /** Applies every safe fix of the active document as one edit (one Undo reverts it). */
  async fixAllSafe(editor = vscode.window.activeTextEditor): Promise<number> {
    if (!editor) return 0;
    const doc = editor.document;
    let r = this.results.get(doc.uri.toString());
    if (!r || r.version !== doc.version) {
      await this.run(doc);
      r = this.results.get(doc.uri.toString());
    }
    if (!r || r.version !== doc.version) return 0;
    const fixes = safeFixes(r.findings);
    if (fixes.length === 0) {
      void vscode.window.showInformationMessage('Draftsmith: no safe fixes to apply.');
      return 0;
    }
    const version = doc.version;
    const ok = await editor.edit((b) => {
      for (const fix of fixes)
        b.replace(new vscode.Range(doc.positionAt(fix.start), doc.positionAt(fix.end)), fix.text);
    });
    if (ok && doc.version !== version) this.schedule(doc, 0);
    return ok ? fixes.length : 0;
  }

  /** Toggle Prose Checks: flips draftsmith.checks.enabled where it is set. */
  async toggle(): Promise<void> {
    const next = !this.settings.enabled;
    await updateWhereSet(vscode.workspace.getConfiguration(CHECKS_SECTION), 'enabled', next);
    void vscode.window.setStatusBarMessage(`Draftsmith: prose checks ${next ? 'on' : 'off'}`, 3000);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const c of this.running.values()) c.abort();
    for (const d of this.disposables) d.dispose();
  }
}
