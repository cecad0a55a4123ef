/**
 * Draftsmith: Summarize Sections: an outline of a Markdown document, one summary line under each
 * heading ("> Summary: ..."), inserted as ONE undoable edit (every heading's line in one
 * WorkspaceEdit-sized step: one Undo removes them all).
 *
 * Why in the document rather than only in the panel: the outline is then where the writer reads and
 * edits, it is saved with the file and can be kept, reworded or removed with one Undo; the panel
 * (Show Insights) still lists every section with its summary and which ones fed the whole.
 *
 * The edit is checked per range: each heading must still read as it did when the request was sent.
 * A document edited meanwhile (a long document takes a while) still gets its outline when every
 * heading is found again, in order, at its new place; otherwise nothing is touched and the outline
 * is offered in a new editor.
 */
import * as vscode from 'vscode';
import type { SectionSummary, SummarizeResult } from '../protocol';
import { Ctx } from './context';
import { generate, type Ended, type GeneratingCommand } from './commandTemplate';
import { OPEN_IN_NEW_EDITOR, offerInstead, type Changed } from './edits';
import { describeModelChoice } from '../modelChoice';
import { formatOf } from '../engine/public';
import { reportReadNotes, summarizeRequest } from './summarizeCommand';

export type SummarizeSectionsOutcome =
  { kind: 'inserted'; lines: number; result: SummarizeResult; notices: string[] } | Ended | Changed;

export const NO_HEADINGS_MESSAGE =
  'Draftsmith: this document has no headings to summarize under; Summarize Document summarizes it whole, part by part.';
export const SECTIONS_CANCELLED_MESSAGE = 'Draftsmith: Summarize Sections cancelled; the document is unchanged.';
export const SECTIONS_CHANGED_MESSAGE =
  "Draftsmith: the document's headings changed while the sections were being summarized, so the outline was " +
  'not inserted. ' +
  `${OPEN_IN_NEW_EDITOR} shows it on its own.`;

/** The line inserted under a heading. */
export function sectionLine(summary: string): string {
  return `> Summary: ${summary}`;
}

/** The outline as text, for the new editor when it cannot be inserted. */
function outlineText(sections: readonly SectionSummary[]): string {
  return sections
    .filter((s) => s.level > 0)
    .map(
      (s) =>
        `${'#'.repeat(s.level)} ` +
        `${s.title}\n\n${s.summary ? sectionLine(s.summary) : '(no prose under this heading)'}\n`,
    )
    .join('\n');
}

export const SUMMARIZE_SECTIONS: GeneratingCommand<{ text: string }, 'summarize.model'> = {
  op: 'summarize sections',
  noEditor: 'Draftsmith: open a Markdown document to summarize its sections.',
  cancelled: SECTIONS_CANCELLED_MESSAGE,
  model: 'summarize.model',
  source(editor) {
    const text = editor.document.getText();
    return text.trim().length === 0 ? 'Draftsmith: nothing to summarize — the document is empty.' : { text };
  },
};

export function summarizeSections(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<SummarizeSectionsOutcome> {
  return generate(ctx, editor, token, SUMMARIZE_SECTIONS, async (run): Promise<SummarizeSectionsOutcome> => {
    const { text } = run.source;
    const doc = editor.document;
    const version = run.version;
    // Headings are Markdown's: any document is read as Markdown here (a plain-text file with "# Title" lines too).
    const format = formatOf(doc.languageId) === 'markdown' || /^ {0,3}#{1,6}\s/m.test(text) ? 'markdown' : 'plain';
    ctx.log.info(
      `summarize sections: ${text.length} characters from ${doc.uri.toString(true)} as ${format}, ` +
        `${describeModelChoice(run.model.choice)}`,
    );
    const result = await run.request('Draftsmith: Summarizing sections…', summarizeRequest(text, format, run.model));
    ctx.setLastSummary(result);
    const notices: string[] = [];
    reportReadNotes(ctx, 'summarize sections', result, notices);
    const headed = (result.sections ?? []).filter((s) => s.level > 0 && s.heading);
    if (headed.length === 0) {
      void vscode.window.showInformationMessage(NO_HEADINGS_MESSAGE);
      return { kind: 'empty', message: NO_HEADINGS_MESSAGE };
    }
    const withSummary = headed.filter((s) => s.summary);

    // Where each heading is now: its old offsets while the document is unchanged; else found again in order.
    const now = doc.isClosed ? undefined : doc.getText();
    const ends =
      now === undefined
        ? undefined
        : doc.version === version
          ? withSummary.map((s) => s.heading!.end)
          : findAgain(text, now, withSummary);
    if (!ends) {
      ctx.log.warn(
        `summarize sections: the headings changed (version ${version} -> ${doc.version}); not inserted, ` +
          `offered in a new editor`,
      );
      return offerInstead(
        ctx.log,
        'summarize sections',
        'outline',
        outlineText(result.sections ?? []),
        'markdown',
        SECTIONS_CHANGED_MESSAGE,
      );
    }
    const edit = new vscode.WorkspaceEdit();
    withSummary.forEach((s, i) => edit.insert(doc.uri, doc.positionAt(ends[i]), `\n\n${sectionLine(s.summary)}`));
    if (!(await vscode.workspace.applyEdit(edit))) {
      const message = 'Draftsmith: the section summaries could not be inserted into the document.';
      ctx.log.error(`summarize sections: ${message}`);
      void vscode.window.showErrorMessage(message);
      return { kind: 'error', message };
    }
    ctx.log.info(
      `summarize sections: inserted ${withSummary.length} summary lines under ${headed.length} headings as one edit`,
    );
    return { kind: 'inserted', lines: withSummary.length, result, notices };
  });
}

/**
 * The end offsets in `now` of the headings of `sections` (spans of `before`), each found as the same
 * text after the previous one; undefined when one is missing.
 */
function findAgain(before: string, now: string, sections: readonly SectionSummary[]): number[] | undefined {
  const out: number[] = [];
  let from = 0;
  for (const s of sections) {
    const heading = before.slice(s.heading!.start, s.heading!.end);
    const at = now.indexOf(heading, from);
    if (at < 0) return undefined;
    out.push(at + heading.length);
    from = at + heading.length;
  }
  return out;
}
