/**
 * What a command says when a model's window made it read only part of what it was given: the same
 * words in the editor's notification, the insights panel and the CLI's standard error, each with
 * how to choose the part read in its own terms. No imports but the word count: the host, the CLI
 * and the panel's page all use it.
 */
import { countWords } from './engine/text/words';

/** "5,210": characters and tokens with their thousands grouped, the same in every place. */
const n = (x: number): string => x.toLocaleString('en-US');
const words = (text: string): string => {
  const k = countWords(text);
  return `${n(k)} word${k === 1 ? '' : 's'}`;
};

/** What a story result says of its prompt (protocol's StoryResult). */
export interface StoryPromptRead {
  truncated: boolean;
  /** The prompt's length in characters, and where in it the part read begins. */
  promptChars: number;
  usedFrom: number;
  usedPrompt: string;
}

/** How the writer chooses the part a story continues from, where the command runs. */
export const STORY_CHOOSE = {
  editor:
    'To choose what it reads, select that passage and run Continue Story again (the selection is the prompt); ' +
    'Select What It Read shows the part it used.',
  panel: 'To choose what it reads, select that passage in the editor and run Continue Story again.',
  cli: 'To choose what it reads, give that passage as FILE, - or --text.',
} as const;

/**
 * "the story so far is longer than the model reads (48 tokens): it continued from its last 34 words
 * (188 of 521 characters)", or undefined when the whole prompt was read. `tokens`: what the model read.
 */
export function storyCutNote(r: StoryPromptRead, tokens?: number): string | undefined {
  if (!r.truncated) return undefined;
  const window = tokens === undefined ? '' : ` (${n(tokens)} tokens)`;
  return (
    `the story so far is longer than the model reads${window}: it continued from its last ` +
    `${words(r.usedPrompt)} (${n(r.promptChars - r.usedFrom)} of ${n(r.promptChars)} characters)`
  );
}

/**
 * An inline suggestion's read, as `storyCutNote` takes it, of the whole text before the cursor: the
 * editor sends only its end (`r` is the result on that end), and the note names what the writer sees.
 */
export function beforeCursorRead(r: StoryPromptRead, beforeCursorChars: number): StoryPromptRead {
  const dropped = Math.max(0, beforeCursorChars - r.promptChars);
  const usedFrom = r.usedFrom + dropped;
  return { truncated: usedFrom > 0, promptChars: r.promptChars + dropped, usedFrom, usedPrompt: r.usedPrompt };
}

/** How the writer chooses what an inline suggestion continues from. */
export const INLINE_CHOOSE =
  'To continue from another part, select it and run Continue Story (the selection is the prompt).';

/**
 * "the suggestion continues the last 34 words before the cursor (188 of 5,210 characters; the model
 * reads 48 tokens)", or undefined when it read all the text before the cursor.
 */
export function inlineCutNote(r: StoryPromptRead, tokens?: number): string | undefined {
  if (!r.truncated) return undefined;
  const window = tokens === undefined ? '' : `; the model reads ${n(tokens)} tokens`;
  return (
    `the suggestion continues the last ${words(r.usedPrompt)} before the cursor ` +
    `(${n(r.promptChars - r.usedFrom)} of ${n(r.promptChars)} characters${window})`
  );
}

/** What a summary result says of its source (protocol's SummarizeResult). */
export interface SummaryRead {
  truncated: boolean;
  /** Characters of `source` read: its start. */
  usedChars: number;
  source: string;
  /** The tokens the model reads at once, where known. */
  inputLimit?: number;
}

/** How the writer chooses the part summarized, where the command runs. */
export const SUMMARY_CHOOSE = {
  editor:
    'To summarize another part, select it and run Summarize Document again; the built-in model ' +
    '(draftsmith.summarize.model empty) reads a whole document section by section.',
  panel: 'To summarize another part, select it in the editor and run Summarize Document again.',
  cli: 'To summarize another part, give it as FILE, - or --text.',
} as const;

/**
 * "the model reads one window (1,024 tokens): the summary covers the first 812 words (4,530 of
 * 40,081 characters)", or undefined when the whole source was read.
 */
export function summaryCutNote(r: SummaryRead): string | undefined {
  if (!r.truncated || r.usedChars >= r.source.length) return undefined;
  const window = r.inputLimit === undefined ? '' : ` (${n(r.inputLimit)} tokens)`;
  return (
    `the model reads one window${window}: the summary covers the first ` +
    `${words(r.source.slice(0, r.usedChars))} (${n(r.usedChars)} of ${n(r.source.length)} characters)`
  );
}
