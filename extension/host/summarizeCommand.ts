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
import type { SummarizeRequest, SummarizeResult } from '../protocol';
import { Ctx } from './context';
import { generate, type Ended, type GeneratingCommand } from './commandTemplate';
import { selectionOrDocument, summaryInsertion, type Changed, type SourceText } from './edits';
import { modelField } from './chosenModel';
import { describeModelChoice } from '../modelChoice';
import { reportMaxLength } from './notices';
import { MAX_LENGTH_SETTING, readDecodingGuards, readSummarizeOptions, type ChosenModel } from './settings';
import { describeInvented, formatOf } from '../engine/public';
import { SUMMARY_CHOOSE, summaryCutNote } from '../windowNotes';

export type SummarizeOutcome =
  /** notices: the information messages shown with the summary (input cut, length limit reached). */
  { kind: 'inserted'; summary: string; result: SummarizeResult; notices: string[] } | Ended | Changed;

export const EMPTY_MESSAGE = 'Draftsmith: nothing to summarize — the selection (or document) is empty.';
export const CANCELLED_MESSAGE = 'Draftsmith: summarize cancelled.';

export const SUMMARIZE: GeneratingCommand<SourceText, 'summarize.model'> = {
  op: 'summarize',
  noEditor: 'Draftsmith: open a text document to summarize.',
  cancelled: CANCELLED_MESSAGE,
  model: 'summarize.model',
  source: selectionOrDocument(EMPTY_MESSAGE),
};

/** The request to summarize `text`, read as `format`, with the summarize settings and the model chosen for it. */
export function summarizeRequest(
  text: string,
  format: SummarizeRequest['format'],
  model: ChosenModel,
): SummarizeRequest {
  const options = readSummarizeOptions();
  return {
    op: 'summarize',
    text,
    maxInputTokens: options.maxInputTokens,
    decoding: options.decoding,
    guards: readDecodingGuards(),
    mode: options.mode,
    ...modelField(model),
    format,
  };
}

export function summarize(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<SummarizeOutcome> {
  return generate(ctx, editor, token, SUMMARIZE, async (run) => {
    const { range, text } = run.source;
    const doc = editor.document;
    ctx.log.info(
      `summarize: ${text.length} characters from ${doc.uri.toString(true)}, ${describeModelChoice(run.model.choice)}`,
    );
    const result = await run.request(
      'Draftsmith: Summarizing…',
      summarizeRequest(text, formatOf(doc.languageId), run.model),
    );

    // The result is worth showing in the panel even when it can no longer be inserted.
    ctx.setLastSummary(result);

    const inserted = await run.write(range.end, summaryInsertion(result.summary), 'summary');
    if (inserted.kind !== 'inserted') return inserted;

    const s = result.stats;
    const work =
      result.mode === 'extractive' || result.mode === 'synopsis'
        ? `${result.mode}: ${result.extracted?.length ?? 0} sentences chosen by topic-aware attention, position ` +
          `and centrality, encode ${Math.round(s.encodeMs)} ms`
        : `encode ${Math.round(s.encodeMs)} ms, decode ${Math.round(s.decodeMs)} ms, ` +
          `${s.tokensPerSecond.toFixed(1)} tokens/s`;
    ctx.log.info(
      `summarize: inserted ${result.summary.length} characters in ` +
        `${Math.round(performance.now() - run.started)} ms from command to insertion ` +
        (`(${work}, ${s.usedInputTokens}/${s.inputTokens ?? `more than ${s.usedInputTokens}`} input tokens, ` +
          `${s.device}, ${s.model})`),
    );
    const notices: string[] = [];
    if (result.experimental) {
      const message = `Draftsmith: ${result.experimental}`;
      notices.push(message);
      void vscode.window.showInformationMessage(message);
    }
    // An instruct model's names and numbers that the text lacks (the guards keep out all but a sentence's first word).
    const invented = describeInvented('summary', result.invented ?? []);
    if (invented) {
      const message = `Draftsmith: ${invented} Check them against the text.`;
      ctx.log.warn(`summarize: ${invented}`);
      notices.push(message);
      void vscode.window.showWarningMessage(message);
    }
    const cut = summaryCutNote(result);
    if (cut) {
      const message = `Draftsmith: ${cut}. ${SUMMARY_CHOOSE.editor}`;
      ctx.log.info(`summarize: ${cut}`);
      notices.push(message);
      void vscode.window.showInformationMessage(message);
    }
    reportMaxLength(ctx, 'summarize', 'summary', result.hitMaxLength, MAX_LENGTH_SETTING.summarize, notices);
    reportReadNotes(ctx, 'summarize', result, notices);
    return { kind: 'inserted' as const, summary: result.summary, result, notices };
  });
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
