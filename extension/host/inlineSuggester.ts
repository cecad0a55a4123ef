/**
 * The logic behind inline suggestions, without 'vscode' so that it runs under plain Node
 * with a fake clock: the pause before a suggestion is asked for (draftsmith.inline.delayMs), the
 * cancellation that typing brings (VS Code cancels the provider's token on every keystroke; the
 * token reaches the engine's cancel), only the latest request alive, the same text answered from a
 * small cache, and where no suggestion belongs (a selection, the middle of a word, a code language).
 */
import type { CancelSignal } from './engineClient';

/** The timers the pause runs on: the real ones in the editor, a fake clock in the tests. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Asks the engine for one suggestion of `prefix` (the text before the cursor); '' for none. */
export type SuggestFn = (prefix: string, signal: CancelSignal) => Promise<string>;

export interface SuggesterOptions {
  timers: Timers;
  /** The pause, read at each keystroke (the setting may change). */
  delayMs: () => number;
  request: SuggestFn;
  /** A failure other than a cancel (logged by the caller; no suggestion shown). */
  onError?: (error: unknown) => void;
}

/** How much of the text before the cursor is sent: far more than the model reads (127 pieces), cut at a space. */
export const MAX_PREFIX_CHARS = 3000;

/** The text before the cursor as sent: its last MAX_PREFIX_CHARS characters, starting at a word. */
export function promptBefore(textBefore: string): string {
  if (textBefore.length <= MAX_PREFIX_CHARS) return textBefore;
  const tail = textBefore.slice(-MAX_PREFIX_CHARS);
  const space = tail.search(/\s/);
  return space >= 0 ? tail.slice(space + 1) : tail;
}

/**
 * Whether a suggestion belongs at the cursor: only with nothing selected, not inside a word (a
 * letter or digit right after the cursor), and after some text on the page.
 */
export function suggestionBelongs(textBefore: string, charAfter: string, selectionEmpty: boolean): boolean {
  if (!selectionEmpty) return false;
  if (/^[\p{L}\p{N}]/u.test(charAfter)) return false;
  // Code in a Markdown document (inside a ``` or ~~~ fence) is not prose.
  if (insideFence(textBefore)) return false;
  return /[\p{L}\p{N}]/u.test(textBefore);
}

/** Whether the end of `text` lies inside a fenced code block (CommonMark: a line opening with ``` or ~~~). */
export function insideFence(text: string): boolean {
  let open: string | undefined;
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})/gm)) {
    const fence = m[1];
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length) open = undefined;
  }
  return open !== undefined;
}

/** The languages suggestions are offered in: prose ones, and the ones the user adds (draftsmith.inline.languages). */
export const DEFAULT_LANGUAGES = ['markdown', 'plaintext'] as const;

export function languagesOf(extra: readonly string[]): string[] {
  return [
    ...new Set([...DEFAULT_LANGUAGES, ...extra.filter((l) => typeof l === 'string' && l.trim()).map((l) => l.trim())]),
  ];
}

/** A CancelSignal that a newer request (or the caller's own token) cancels. */
class Controller implements CancelSignal {
  private cancelled = false;
  private readonly listeners: (() => unknown)[] = [];

  get isCancellationRequested(): boolean {
    return this.cancelled;
  }

  onCancellationRequested(listener: () => unknown): { dispose(): unknown } {
    this.listeners.push(listener);
    return {
      dispose: () => {
        const i = this.listeners.indexOf(listener);
        if (i >= 0) this.listeners.splice(i, 1);
      },
    };
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const l of this.listeners.splice(0)) l();
  }
}

/** Counts for the log and the bench. */
export interface SuggesterStats {
  /** Pauses that ended in a request to the engine. */
  requested: number;
  /** Requests cancelled by typing (or a newer request) before their answer. */
  cancelled: number;
  /** Keystrokes that ended a pause before any request (nothing sent). */
  debounced: number;
  /** Answers from the cache (the same text again). */
  cached: number;
}

export class InlineSuggester {
  private current: Controller | undefined;
  private readonly cache = new Map<string, string>();
  readonly stats: SuggesterStats = { requested: 0, cancelled: 0, debounced: 0, cached: 0 };
  private static readonly CACHE_SIZE = 32;

  constructor(private readonly options: SuggesterOptions) {}

  /**
   * The suggestion for `prefix` after the pause, or '' when typing (the token) ended it first or
   * the engine had none. Every call cancels the one before it: only the latest request runs.
   */
  async suggest(prefix: string, token: CancelSignal): Promise<string> {
    this.current?.cancel();
    const mine = new Controller();
    this.current = mine;
    const sub = token.onCancellationRequested(() => mine.cancel());
    try {
      if (token.isCancellationRequested) mine.cancel();
      const known = this.cache.get(prefix);
      if (known !== undefined) {
        this.stats.cached++;
        return mine.isCancellationRequested ? '' : known;
      }
      if (!(await this.pause(mine))) {
        this.stats.debounced++;
        return '';
      }
      this.stats.requested++;
      let text: string;
      try {
        text = await this.options.request(prefix, mine);
      } catch (e) {
        if (mine.isCancellationRequested) {
          this.stats.cancelled++;
          return '';
        }
        this.options.onError?.(e);
        return '';
      }
      // An answer that arrives after typing moved on is stale: never shown.
      if (mine.isCancellationRequested) {
        this.stats.cancelled++;
        return '';
      }
      this.remember(prefix, text);
      return text;
    } finally {
      sub.dispose();
      if (this.current === mine) this.current = undefined;
    }
  }

  /** Cancels the request in flight, if any (inline suggestions turned off, the editor closed). */
  cancel(): void {
    this.current?.cancel();
  }

  /** Resolves true once the pause has passed, false as soon as the request is cancelled. */
  private pause(signal: Controller): Promise<boolean> {
    if (signal.isCancellationRequested) return Promise.resolve(false);
    return new Promise((resolve) => {
      const handle = this.options.timers.setTimeout(
        () => {
          sub.dispose();
          resolve(!signal.isCancellationRequested);
        },
        Math.max(0, this.options.delayMs()),
      );
      const sub = signal.onCancellationRequested(() => {
        this.options.timers.clearTimeout(handle);
        resolve(false);
      });
    });
  }

  private remember(prefix: string, text: string): void {
    this.cache.delete(prefix);
    this.cache.set(prefix, text);
    while (this.cache.size > InlineSuggester.CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
  }

  /** Forgets the cached suggestions (the model or a setting changed). */
  clear(): void {
    this.cache.clear();
  }
}
