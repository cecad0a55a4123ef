/**
 * Summarize Document: the selection (or the whole document) goes to the engine under a cancellable
 * progress notification, and the summary comes back as one undoable insertion after the source.
 * The command and the test API share summarize().
 *
 * The text is read whole, section by section (engine/systems/sectioned.ts), as Markdown
 * when the document's language is Markdown (code, tables, HTML and front matter left out), else as
 * plain paragraphs in parts of the model's window; the progress says "Sections done: k / n".
 */
import * as vscode from 'vscode';
import type { SummarizeResult } from '../protocol';
import { Ctx } from './context';
import { Changed, insertUnlessChanged, sourceRange, summaryInsertion } from './edits';
import { reportFailure, requestWithProgress } from './engineProgress';
import { chosenModel, modelField } from './chosenModel';
import { describeModelChoice } from '../modelChoice';
import { reportMaxLength } from './notices';
import { MAX_LENGTH_SETTING, readDecodingGuards, readSummarizeOptions } from './settings';
import { MAX_EXTRACTIVE_WINDOWS } from '../engine/systems/extractive';
import { formatOf } from '../engine/text/markdown';

export type SummarizeOutcome =
  /** notices: the information messages shown with the summary (input cut, length limit reached). */
  | { kind: 'inserted'; summary: string; result: SummarizeResult; notices: string[] }
  | { kind: 'cancelled' }
  | { kind: 'empty'; message: string }
  | { kind: 'error'; message: string }
  | Changed;

export const EMPTY_MESSAGE = 'Draftsmith: nothing to summarize — the selection (or document) is empty.';
export const CANCELLED_MESSAGE = 'Draftsmith: summarize cancelled.';

export async function summarize(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<SummarizeOutcome> {
  const started = performance.now();
  const doc = editor.document;
  const range = sourceRange(editor);
  const text = doc.getText(range);
  if (text.trim().length === 0) {
    void vscode.window.showErrorMessage(EMPTY_MESSAGE);
    return { kind: 'empty', message: EMPTY_MESSAGE };
  }
  const version = doc.version;
  const options = readSummarizeOptions();
  const model = chosenModel(ctx, 'summarize.model', 'summarize');
  if ('error' in model) return { kind: 'error', message: model.error };
  ctx.log.info(
    `summarize: ${text.length} characters from ${doc.uri.toString(true)}, ${describeModelChoice(model.choice)}`,
  );

  let result: SummarizeResult;
  try {
    result = await requestWithProgress(
      ctx,
      'Draftsmith: Summarizing…',
      {
        op: 'summarize',
        text,
        maxInputTokens: options.maxInputTokens,
        decoding: options.decoding,
        guards: readDecodingGuards(),
        mode: options.mode,
        ...modelField(model),
        format: formatOf(doc.languageId),
      },
      token,
    );
  } catch (err) {
    return reportFailure(ctx, 'summarize', err, CANCELLED_MESSAGE, model);
  }

  // The result is worth showing in the panel even when it can no longer be inserted.
  ctx.setLastSummary(result);

  const inserted = await insertUnlessChanged({
    log: ctx.log,
    op: 'summarize',
    what: 'summary',
    editor,
    version,
    position: range.end,
    text: summaryInsertion(result.summary),
  });
  if (inserted.kind !== 'inserted') return inserted;

  const s = result.stats;
  const work =
    result.mode === 'extractive'
      ? `extractive: ${result.extracted?.length ?? 0} sentences chosen by topic-aware attention, encode ${Math.round(s.encodeMs)} ms`
      : `encode ${Math.round(s.encodeMs)} ms, decode ${Math.round(s.decodeMs)} ms, ${s.tokensPerSecond.toFixed(1)} tokens/s`;
  ctx.log.info(
    `summarize: inserted ${result.summary.length} characters in ${Math.round(performance.now() - started)} ms from command to insertion ` +
      `(${work}, ${s.usedInputTokens}/${s.inputTokens ?? `more than ${s.usedInputTokens}`} input tokens, ${s.device}, ${s.model})`,
  );
  const notices: string[] = [];
  if (result.truncated) {
    const message =
      result.mode === 'extractive'
        ? `Draftsmith: the document is longer than the model reads in ${MAX_EXTRACTIVE_WINDOWS} parts; the summary covers its first ${result.usedChars} characters of ${result.source.length}.`
        : `Draftsmith: the model read only the first ${result.usedChars} characters of ${result.source.length}; the summary covers that part (the limit is the setting draftsmith.maxInputTokens, up to what the model was trained for; the extractive mode, draftsmith.summarize.mode, reads the whole document part by part).`;
    notices.push(message);
    void vscode.window.showInformationMessage(message);
  }
  reportMaxLength(ctx, 'summarize', 'summary', result.hitMaxLength, MAX_LENGTH_SETTING.summarize, notices);
  reportReadNotes(ctx, 'summarize', result, notices);
  return { kind: 'inserted', summary: result.summary, result, notices };
}

/**
 * How the document was read (engine/systems/sectioned.ts's notes): logged, and kept with the notices.
 * What was left out as not prose is routine for Markdown and only logged (the panel shows it); an
 * unclosed fence, a section past its time limit or in another script is shown.
 */
export function reportReadNotes(ctx: Ctx, op: string, result: SummarizeResult, notices: string[]): void {
  const sections = result.sections ?? [];
  if (sections.length > 0) {
    ctx.log.info(
      `${op}: ${sections.length} sections read; the summary of the whole is made from ${sections
        .filter((s) => s.fedOverall)
        .map((s) => JSON.stringify(s.title || '(start)'))
        .join(', ')}`,
    );
  }
  for (const note of result.readNotes ?? []) {
    ctx.log.info(`${op}: ${note}`);
    const message = `Draftsmith: ${note}`;
    notices.push(message);
    if (!/not read as prose\.$/.test(note)) void vscode.window.showInformationMessage(message);
  }
}

/** The command: works on the active editor. */
export async function summarizeActiveEditor(ctx: Ctx): Promise<SummarizeOutcome> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    const message = 'Draftsmith: open a text document to summarize.';
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  return summarize(ctx, editor);
}
