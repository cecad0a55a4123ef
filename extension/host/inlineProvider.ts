/**
 * Inline suggestions in the editor: VS Code's InlineCompletionItemProvider for prose
 * (Markdown, plain text and the languages of draftsmith.inline.languages), driven by the story model
 * (draftsmith.story.model). The pause, the cancellation and the cache are inlineSuggester.ts's;
 * here: the settings, the status bar item that shows and toggles them, the request to the engine
 * (its own channel, so a newer suggestion supersedes an older one in the worker's queue), and the
 * accepted suggestion's fusion gates in the insights panel.
 *
 * Nothing is sent to the engine (and no model loads) while draftsmith.inline.enabled is off.
 */
import * as vscode from 'vscode';
import type { StoryRequest, StoryResult } from '../protocol';
import { toPanel } from '../panelViews';
import { describeModelChoice } from '../modelChoice';
import type { Ctx } from './context';
import { EngineError, type CancelSignal } from './engineClient';
import { modelField } from './chosenModel';
import { InlineSuggester, languagesOf, promptBefore, realTimers, suggestionBelongs } from './inlineSuggester';
import { declaredSettings } from './declaredSettings';
import { beforeCursorRead, INLINE_CHOOSE, inlineCutNote } from '../windowNotes';
import { readDecodingGuards, readModelChoice, readStoryOptions, SECTION, updateWhereSet } from './settings';

export const INLINE_ENABLED = 'inline.enabled';
/** The worker's request channel of inline suggestions: the newest supersedes the rest. */
export const INLINE_CHANNEL = 'inline';
/** Run by VS Code when an inline suggestion is accepted (the item's command): not in the palette. */
export const ACCEPTED_COMMAND = 'draftsmith.inlineAccepted';
const HINT_SHOWN_KEY = 'draftsmith.inlineHintShown';

/** draftsmith.inline.length as the request's inline options. */
const LENGTHS: Record<string, NonNullable<StoryRequest['inline']>> = {
  words: { sentences: 1, maxWords: 4 },
  sentence: { sentences: 1, maxWords: 30 },
  twoSentences: { sentences: 2, maxWords: 60 },
};

export interface InlineOptions {
  enabled: boolean;
  delayMs: number;
  length: NonNullable<StoryRequest['inline']>;
  languages: string[];
}

export function readInlineOptions(): InlineOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const s = declaredSettings(cfg);
  const languages = cfg.get('inline.languages');
  return {
    enabled: s.flag(INLINE_ENABLED),
    delayMs: s.int('inline.delayMs'),
    length: LENGTHS[s.oneOf('inline.length')] ?? LENGTHS.sentence,
    languages: languagesOf(Array.isArray(languages) ? languages.filter((l): l is string => typeof l === 'string') : []),
  };
}

/** Draftsmith: Toggle Inline Suggestions (and the status bar item): flips the setting where it is set. */
export async function toggleInline(): Promise<void> {
  await updateWhereSet(vscode.workspace.getConfiguration(SECTION), INLINE_ENABLED, !readInlineOptions().enabled);
}

/**
 * After the first Continue Story, once: inline suggestions exist and are off. Never again, whatever
 * the answer.
 */
export function hintInlineOnce(ctx: Ctx): void {
  const state = ctx.extension.globalState;
  if (state.get(HINT_SHOWN_KEY) === true || readInlineOptions().enabled) return;
  void state.update(HINT_SHOWN_KEY, true);
  const turnOn = 'Turn On';
  void vscode.window
    .showInformationMessage(
      'Draftsmith can also suggest the rest of your sentence as you write, in grey at the cursor (Tab ' +
        'accepts). Inline suggestions are off; turn them on here, with the status bar item, or "Draftsmith: ' +
        'Toggle Inline Suggestions".',
      turnOn,
    )
    .then((choice) => {
      if (choice === turnOn) void toggleInline();
    });
}

export class InlineSuggestions implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private registration: vscode.Disposable | undefined;
  private registeredFor = '';
  private readonly status: vscode.StatusBarItem;
  private readonly suggester: InlineSuggester;
  /** Results of the suggestions shown lately, by id, for the panel once one is accepted. */
  private readonly shown = new Map<number, StoryResult>();
  private nextId = 1;
  private options: InlineOptions;
  private lastError = '';
  /** The last accepted suggestion's result (the tests read it). */
  lastAccepted: StoryResult | undefined;
  /** The text sent for the latest suggestion and the length of all the text before the cursor it ends. */
  private sent = { prefix: '', beforeChars: 0 };
  /**
   * What the latest suggestion read when it was not all the text before the cursor (the status bar
   * item's tooltip says it: a suggestion has no notification of its own); '' when it read all of it.
   */
  lastReadNote = '';

  constructor(private readonly ctx: Ctx) {
    this.options = readInlineOptions();
    this.suggester = new InlineSuggester({
      timers: realTimers,
      delayMs: () => this.options.delayMs,
      request: (prefix, signal) => this.request(prefix, signal),
      onError: (e) => this.reportError(e),
    });
    this.status = vscode.window.createStatusBarItem('draftsmith.inline', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'Draftsmith Inline Suggestions';
    this.status.command = 'draftsmith.toggleInline';
    this.disposables.push(
      this.status,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SECTION)) return;
        const was = this.options.enabled;
        this.options = readInlineOptions();
        // Another model, length or sampling setting: suggestions made before are not this setting's.
        this.suggester.clear();
        if (was && !this.options.enabled) this.suggester.cancel();
        if (was !== this.options.enabled)
          this.ctx.log.info(`inline suggestions ${this.options.enabled ? 'on' : 'off'}`);
        this.register();
        this.updateStatus();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateStatus()),
    );
    this.register();
    this.updateStatus();
  }

  /** The provider, for the languages of the setting (registered again when they change). */
  private register(): void {
    const key = this.options.languages.join(',');
    if (this.registration && key === this.registeredFor) return;
    this.registration?.dispose();
    this.registeredFor = key;
    const selector = this.options.languages.map((language) => ({ language }));
    this.registration = vscode.languages.registerInlineCompletionItemProvider(selector, {
      provideInlineCompletionItems: (document, position, _context, token) => this.provide(document, position, token),
    });
  }

  private updateStatus(): void {
    const editor = vscode.window.activeTextEditor;
    const prose = editor !== undefined && this.options.languages.includes(editor.document.languageId);
    const on = this.options.enabled;
    this.status.text = on ? '$(sparkle) Inline' : '$(circle-slash) Inline';
    const note = this.lastReadNote;
    const read = on && note ? ` ${note[0].toUpperCase()}${note.slice(1)}. ${INLINE_CHOOSE}` : '';
    this.status.tooltip = on
      ? 'Draftsmith inline suggestions are on: pause while writing for the rest of the sentence (Tab accepts). ' +
        `Click to turn them off.${read}`
      : 'Draftsmith inline suggestions are off. Click to turn them on.';
    this.status.accessibilityInformation = {
      label: `Draftsmith inline suggestions ${on ? 'on' : 'off'}; toggle`,
      role: 'button',
    };
    if (prose || on) this.status.show();
    else this.status.hide();
  }

  private async provide(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    if (!this.options.enabled || !this.options.languages.includes(document.languageId)) return undefined;
    const editor = vscode.window.activeTextEditor;
    const selectionEmpty = editor?.document !== document || editor.selection.isEmpty;
    const textBefore = document.getText(new vscode.Range(new vscode.Position(0, 0), position));
    const charAfter = document.lineAt(position.line).text.charAt(position.character);
    if (!suggestionBelongs(textBefore, charAfter, selectionEmpty)) return undefined;
    const prefix = promptBefore(textBefore);
    this.sent = { prefix, beforeChars: textBefore.length };
    const text = await this.suggester.suggest(prefix, token);
    if (!text || token.isCancellationRequested) return undefined;
    const id = this.idOf(text);
    return [
      new vscode.InlineCompletionItem(text, new vscode.Range(position, position), {
        command: ACCEPTED_COMMAND,
        title: 'Accepted',
        arguments: [id],
      }),
    ];
  }

  /** The id of the latest result that suggested `text`. */
  private idOf(text: string): number {
    let found = -1;
    for (const [id, r] of this.shown) if (r.suggestion === text) found = id;
    return found;
  }

  private async request(prefix: string, signal: CancelSignal): Promise<string> {
    const read = readModelChoice('story.model');
    if ('error' in read) throw new EngineError('bad-request', read.error);
    const story = readStoryOptions();
    const started = performance.now();
    const result = await this.ctx.engine.request(
      {
        op: 'story',
        prompt: prefix,
        inline: this.options.length,
        sampling: story.sampling,
        guards: readDecodingGuards(),
        ...modelField(read.model),
      },
      { token: signal, channel: INLINE_CHANNEL },
    );
    // What it read, counted in all the text before the cursor (only its end was sent).
    const beforeChars = prefix === this.sent.prefix ? this.sent.beforeChars : prefix.length;
    const seen = { ...result, ...beforeCursorRead(result, beforeChars) };
    const note = inlineCutNote(seen, result.stats.usedInputTokens) ?? '';
    if (note !== this.lastReadNote) {
      this.lastReadNote = note;
      if (note) this.ctx.log.info(`inline: ${note}`);
      this.updateStatus();
    }
    const id = this.nextId++;
    this.shown.set(id, seen);
    while (this.shown.size > 16) this.shown.delete(this.shown.keys().next().value as number);
    this.lastError = '';
    const n = this.suggester.stats;
    this.ctx.log.info(
      `inline: suggested ${JSON.stringify(result.suggestion)} in ${Math.round(performance.now() - started)} ms ` +
        `(${result.stats.outputTokens} tokens, ${describeModelChoice(read.model.choice)}; ` +
        `so far requested ${n.requested}, cancelled ${n.cancelled}, debounced ${n.debounced}, from cache ${n.cached})`,
    );
    return result.suggestion ?? '';
  }

  /** An inline suggestion (by its id) was accepted: its result goes to the panel. */
  accepted(id: unknown): void {
    const result = typeof id === 'number' ? this.shown.get(id) : undefined;
    if (!result) return;
    this.lastAccepted = result;
    this.ctx.log.info(`inline: accepted ${JSON.stringify(result.suggestion)} (seed ${result.sampling.seed})`);
    // Shown in the panel if it is open, as Continue Story's story is: the fusion gates over the words.
    this.ctx.present(toPanel(result), false);
  }

  /** A failure is logged once per message (not once per keystroke); a cancel is not a failure. */
  private reportError(e: unknown): void {
    if (e instanceof EngineError && e.code === 'cancelled') return;
    const message = e instanceof Error ? e.message : String(e);
    if (message === this.lastError) return;
    this.lastError = message;
    this.ctx.log.warn(`inline: no suggestion: ${message}`);
  }

  /** The status bar item's tooltip (the tests read it). */
  get statusTooltip(): string {
    const t = this.status.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }

  /** For the tests and the log. */
  get stats() {
    return this.suggester.stats;
  }

  dispose(): void {
    this.suggester.cancel();
    this.registration?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
