/**
 * What a command says when a model's window made it read only part of what it was given: the same
 * words in the editor's notification, the insights panel and the CLI's standard error, each with
 * how to choose the part read in its own terms. No imports but the word count: the host, the CLI
 * and the panel's page all use it.
 */
import { countWords } from './engine/text/words';

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
  const words = countWords(r.usedPrompt);
  const window = tokens === undefined ? '' : ` (${tokens} tokens)`;
  return (
    `the story so far is longer than the model reads${window}: it continued from its last ${words} ` +
    `word${words === 1 ? '' : 's'} ` +
    `(${r.promptChars - r.usedFrom} of ${r.promptChars} characters)`
  );
}
