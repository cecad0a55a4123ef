// Where a request's text came from, in the engine's messages about it. The editor sends the
// selection (or the document, or the paragraph at the cursor): its messages say "the selection" and
// "Select a paragraph.". The CLI sends a file or text from the command line or standard input: the
// same messages say "the file" or "the text" and "Give a paragraph.". The engine never imports
// vscode: the request's `origin` says which wording applies (absent: the editor's, unchanged).
import type { TextOrigin } from '../../protocol';
import { EngineError } from '../errors';
import { readability } from './reader';

/** The text as the message names it: `editorWhere` for the editor, "the file" or "the text" for the CLI. */
export function whereText(origin: TextOrigin | undefined, editorWhere = 'the selection'): string {
  return origin === 'file' ? 'the file' : origin === 'text' ? 'the text' : editorWhere;
}

/** The verb that asks for other text: "Select" in the editor, "Give" in a terminal. */
export function ask(origin: TextOrigin | undefined): 'Select' | 'Give' {
  return origin === 'file' || origin === 'text' ? 'Give' : 'Select';
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What a system says about text it cannot read at all (each system's own: its module, and its registry entry). */
export interface InputTask {
  /** "There is no text to summarize" */
  nothing: string;
  /** The editor's name for the text: "the selection (or document)". */
  editorWhere: string;
  /** What the text should have been: "prose", "a message". */
  kind: string;
  /** What did not happen: "nothing was summarized". */
  outcome: string;
}

/** The message for text that is empty, has no words, or is binary data. */
export function unreadableMessage(
  problem: 'empty' | 'no-words' | 'binary',
  task: InputTask,
  origin: TextOrigin | undefined,
): string {
  const where = whereText(origin, task.editorWhere);
  if (problem === 'empty') return `${task.nothing}: ${where} is empty.`;
  if (problem === 'no-words')
    return `${task.nothing}: ${where} has no words the model can read (only emoji, symbols or punctuation).`;
  return `${capitalised(whereText(origin))} looks like binary data, not ${task.kind}; ${task.outcome}.`;
}

/** Throws the task's message (code bad-input) when the text is empty, has no words, or is binary data. */
export function checkReadable(text: string, task: InputTask, origin: TextOrigin | undefined): void {
  const readable = readability(text);
  if (readable !== 'readable') throw new EngineError('bad-input', unreadableMessage(readable, task, origin));
}
