/**
 * The writing status bar item: words, reading time and Flesch Reading Ease of the document or the
 * selection, and the file's word goal with its progress; the hover adds Flesch–Kincaid grade,
 * Gunning fog, SMOG, Coleman–Liau and ARI. A click sets the word goal (kept per file, in the
 * workspace's state).
 */
import * as vscode from 'vscode';
import { formatOf, readabilityModule as readability, type TextStats } from '../engine/public';
import type { Ctx } from './context';
import { CHECKS_SECTION, isCheckedLanguage } from './checks';

// readability() is loaded when the item first shows numbers: the syllable counter's word lists are not
// activation's to load.

export const SET_WORD_GOAL_COMMAND = 'draftsmith.setWordGoal';
const GOALS_KEY = 'draftsmith.wordGoals';
const DELAY_MS = 250;

const n = (x: number) => x.toLocaleString('en-US');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');

export class WritingStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('draftsmith.writing', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private timer: NodeJS.Timeout | undefined;
  /** The latest numbers shown (the tests read them). */
  last: (TextStats & { selection: boolean; goal?: number }) | undefined;
  private shownFor = '';

  constructor(private readonly ctx: Ctx) {
    this.item.name = 'Draftsmith: Words and Readability';
    this.item.command = SET_WORD_GOAL_COMMAND;
    const soon = () => this.soon();
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.window.onDidChangeTextEditorSelection(soon),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) soon();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(CHECKS_SECTION)) this.render();
      }),
    );
    this.render();
  }

  /** The status bar item's text now. */
  get text(): string {
    return this.item.text;
  }

  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.render(), DELAY_MS);
  }

  private goals(): Record<string, number> {
    return this.ctx.extension.workspaceState.get<Record<string, number>>(GOALS_KEY) ?? {};
  }

  render(): void {
    const editor = vscode.window.activeTextEditor;
    const shown = vscode.workspace.getConfiguration(CHECKS_SECTION).get<unknown>('statusBar') !== false;
    if (!editor || !shown || !isCheckedLanguage(editor.document.languageId)) {
      this.item.hide();
      this.last = undefined;
      return;
    }
    const doc = editor.document;
    const sel = editor.selection;
    const selection = !sel.isEmpty;
    const range = selection ? { start: doc.offsetAt(sel.start), end: doc.offsetAt(sel.end) } : undefined;
    // Moving the cursor changes nothing to count: the numbers are kept until the text or selection changes.
    const goalSeen = this.goals()[doc.uri.toString()];
    const shownRange = range ? `${range.start}-${range.end}` : '';
    const shownFor = `${doc.uri.toString()}@${doc.version}:${shownRange}:${goalSeen ?? ''}`;
    if (shownFor === this.shownFor && this.last) {
      this.item.show();
      return;
    }
    this.shownFor = shownFor;
    const { textStats, easeBand } = readability();
    const stats = textStats(doc.getText(), formatOf(doc.languageId === 'markdown' ? 'markdown' : doc.fileName), range);
    const goalValue = this.goals()[doc.uri.toString()];
    const goal = typeof goalValue === 'number' && goalValue > 0 ? goalValue : undefined;
    this.last = { ...stats, selection, ...(goal ? { goal } : {}) };
    const words =
      goal && !selection
        ? `${n(stats.words)}/${n(goal)} words (${Math.min(999, Math.round((100 * stats.words) / goal))} %)`
        : `${n(stats.words)} word${stats.words === 1 ? '' : 's'}${selection ? ' selected' : ''}`;
    const ease = Number.isFinite(stats.fleschReadingEase) ? ` · Flesch ${stats.fleschReadingEase.toFixed(0)}` : '';
    this.item.text = `$(book) ${words} · ${stats.readingMinutes} min${ease}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Draftsmith: ${selection ? 'the selection' : 'this document'}** (prose only)\n\n`);
    md.appendMarkdown(
      [
        '| | |',
        '|---|---:|',
        `| Words | ${n(stats.words)} |`,
        `| Sentences | ${n(stats.sentences)} |`,
        `| Reading time | ${stats.readingMinutes} min |`,
        `| Flesch Reading Ease | ${f1(stats.fleschReadingEase)} (${easeBand(stats.fleschReadingEase)}) |`,
        `| Flesch–Kincaid grade | ${f1(stats.fleschKincaidGrade)} |`,
        `| Gunning fog | ${f1(stats.gunningFog)} |`,
        `| SMOG | ${f1(stats.smog)} |`,
        `| Coleman–Liau | ${f1(stats.colemanLiau)} |`,
        `| Automated Readability Index | ${f1(stats.automatedReadability)} |`,
        ...(goal ? [`| Word goal | ${n(goal)} (${n(Math.max(0, goal - stats.words))} to go) |`] : []),
      ].join('\n'),
    );
    md.appendMarkdown('\n\nClick to set a word goal for this file.');
    this.item.tooltip = md;
    this.item.show();
  }

  /** Set Word Goal for This File (the item's click). */
  async setGoal(): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc) return;
    const key = doc.uri.toString();
    const current = this.goals()[key];
    const answer = await vscode.window.showInputBox({
      title: 'Word goal for this file',
      prompt: 'How many words this file should have (empty or 0 removes the goal)',
      value: current ? String(current) : '',
      validateInput: (v) => (/^\s*\d{0,7}\s*$/.test(v) ? undefined : 'A whole number of words, e.g. 1500'),
    });
    if (answer === undefined) return;
    const goal = Number(answer.trim() || '0');
    const goals = { ...this.goals() };
    if (goal > 0) goals[key] = goal;
    else delete goals[key];
    await this.ctx.extension.workspaceState.update(GOALS_KEY, goals);
    this.render();
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
