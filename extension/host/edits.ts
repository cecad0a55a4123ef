/** Where a result goes in the document and how it is applied: always as ONE undo step. */
import * as vscode from 'vscode';
import { paragraphAt as paragraphIn } from '../engine/public';

/** The text the Summarize command inserts after the source. */
export function summaryInsertion(summary: string): string {
  return `\n\nSummary: ${summary}\n`;
}

/** The text Expand Topic Words into Essay inserts after the topic words. */
export function essayInsertion(essay: string): string {
  return `\n\n${essay}\n`;
}

/** The text Suggest Replies inserts below the post: the reply as a paragraph of its own, as an essay. */
export const replyInsertion = essayInsertion;

/** The button on the "document changed" message. */
export const OPEN_IN_NEW_EDITOR = 'Open in New Editor';

/** Said when the user edited the document while the engine wrote `what` ("summary", "essay"). */
export function changedMessage(what: string): string {
  return (
    `Draftsmith: the document changed while the ${what} was being written, so it was not inserted into your text. ` +
    `${OPEN_IN_NEW_EDITOR} shows it on its own.`
  );
}

/**
 * A result that was not inserted because the user edited the document meanwhile: offered instead,
 * so nothing the model wrote is lost and nothing the user wrote is touched.
 */
export interface Offer {
  /** The text as it would have been inserted, without the blank lines that set it apart. */
  readonly text: string;
  /** Opens it in a new untitled editor beside the document (what the message's button does). */
  open(): Promise<vscode.TextEditor>;
}

export type Changed = { kind: 'changed'; message: string; offer: Offer };
export type Insertion = { kind: 'inserted' } | Changed | { kind: 'error'; message: string };

export interface GuardedEdit {
  log: vscode.LogOutputChannel;
  /** Log prefix: the command's short name. */
  op: string;
  /** What is written, for the user's messages: "summary", "essay". */
  what: string;
  editor: vscode.TextEditor;
  /** The document's version when the request was sent. */
  version: number;
  /** A position: the text is inserted there; a range: the text replaces it. */
  at: vscode.Position | vscode.Range;
  text: string;
  /** The message when the document changed meanwhile; changedMessage(what) when absent. */
  changed?: string;
}

/**
 * Writes the text as one undo step, but only while the document is still at the version the
 * request was made from: after an edit the position may point into different text, and the user's
 * new text must never be written over. Then the result is offered instead: the message's button
 * opens it in a new editor. Logs when it does not write.
 */
export async function writeUnlessChanged(e: GuardedEdit): Promise<Insertion> {
  const doc = e.editor.document;
  const inserting = e.at instanceof vscode.Position;
  if (doc.isClosed || doc.version !== e.version) {
    e.log.warn(
      `${e.op}: document changed (version ${e.version} -> ${doc.isClosed ? 'closed' : doc.version}); not ` +
        `${inserting ? 'inserted' : 'replaced'}, offered in a new editor`,
    );
    // An insertion's leading blank lines only set it apart from the text before it.
    const text = inserting ? e.text.replace(/^\n+/, '') : e.text;
    return offerInstead(e.log, e.op, e.what, text, doc.languageId, e.changed ?? changedMessage(e.what));
  }
  if (!(await writeAsOneEdit(e.editor, e.at, e.text))) {
    const message = `Draftsmith: the ${e.what} could not be ${inserting ? 'inserted' : 'written'} into the document.`;
    e.log.error(`${e.op}: ${message}`);
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  return { kind: 'inserted' };
}

/**
 * A result that could not be written where it belongs: `message` is shown with a button that
 * opens `text` in a new editor, so nothing the model wrote is lost and nothing the user wrote is touched.
 */
export function offerInstead(
  log: vscode.LogOutputChannel,
  op: string,
  what: string,
  text: string,
  language: string,
  message: string,
): Changed {
  const offer = offerInNewEditor(text, language);
  void vscode.window.showWarningMessage(message, OPEN_IN_NEW_EDITOR).then((choice) => {
    if (choice === OPEN_IN_NEW_EDITOR)
      offer.open().catch((err: unknown) => log.error(`${op}: could not open the offered ${what}: ${String(err)}`));
  });
  return { kind: 'changed', message, offer };
}

/** The paragraph around `position` as the engine's reader finds it (text/reader.ts), as whole lines:
 * up to the nearest blank line above and below it; undefined on a blank line. */
export function paragraphAt(doc: vscode.TextDocument, position: vscode.Position): vscode.Range | undefined {
  const p = paragraphIn(doc.getText(), doc.offsetAt(position));
  if (!p) return undefined;
  return new vscode.Range(
    doc.lineAt(doc.positionAt(p.start).line).range.start,
    doc.lineAt(doc.positionAt(p.end).line).range.end,
  );
}

/** The primary selection, or the whole document when the selection is empty. */
export function sourceRange(editor: vscode.TextEditor): vscode.Range {
  const selection = editor.selection;
  if (!selection.isEmpty) return new vscode.Range(selection.start, selection.end);
  const doc = editor.document;
  return new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
}

/**
 * A command's source: the selection, or the whole document when nothing is selected, with its
 * text; `empty` (the message to show) when that text is blank.
 */
export function selectionOrDocument(empty: string): (editor: vscode.TextEditor) => SourceText | string {
  return (editor) => {
    const range = sourceRange(editor);
    const text = editor.document.getText(range);
    return text.trim().length === 0 ? empty : { range, text };
  };
}

/** A command's source range and its text. */
export interface SourceText {
  range: vscode.Range;
  text: string;
}

/**
 * Inserts `text` at a position, or replaces a range with it, as a single undo step. The editor may
 * have been closed or hidden while the engine worked (its TextEditor is then disposed); a
 * WorkspaceEdit on the document is also one undo step, so it is the fallback.
 */
export async function writeAsOneEdit(
  editor: vscode.TextEditor,
  at: vscode.Position | vscode.Range,
  text: string,
): Promise<boolean> {
  if (vscode.window.visibleTextEditors.includes(editor)) {
    try {
      // insert, not an empty replace: it moves a cursor at the position to after the text.
      const ok = await editor.edit(
        (builder) => (at instanceof vscode.Position ? builder.insert(at, text) : builder.replace(at, text)),
        { undoStopBefore: true, undoStopAfter: true },
      );
      if (ok) return true;
    } catch {
      // disposed between the check and the edit: fall through
    }
  }
  const edit = new vscode.WorkspaceEdit();
  if (at instanceof vscode.Position) edit.insert(editor.document.uri, at, text);
  else edit.replace(editor.document.uri, at, text);
  return vscode.workspace.applyEdit(edit);
}

function offerInNewEditor(text: string, language: string): Offer {
  return {
    text,
    async open() {
      const doc = await vscode.workspace.openTextDocument({ content: text, language });
      return vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
    },
  };
}
