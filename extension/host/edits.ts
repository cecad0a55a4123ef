/** Where a result goes in the document and how it is applied: always as ONE undo step. */
import * as vscode from 'vscode';
import { paragraphAt as paragraphIn } from '../engine/text/reader';

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

export interface GuardedInsertion {
  log: vscode.LogOutputChannel;
  /** Log prefix: the command's short name. */
  op: string;
  /** What is inserted, for the user's messages: "summary", "essay". */
  what: string;
  editor: vscode.TextEditor;
  /** The document's version when the request was sent. */
  version: number;
  position: vscode.Position;
  text: string;
}

/**
 * Inserts the text as one undo step, but only while the document is still at the version the
 * request was made from: after an edit the position may point into different text, and the user's
 * new text must never be written over. Then the result is offered instead: the message's button
 * opens it in a new editor. Logs when it does not insert.
 */
export async function insertUnlessChanged(i: GuardedInsertion): Promise<Insertion> {
  const doc = i.editor.document;
  if (doc.isClosed || doc.version !== i.version) {
    i.log.warn(
      `${i.op}: document changed (version ${i.version} -> ${doc.version}); not inserted, offered in a new editor`,
    );
    const message = changedMessage(i.what);
    const offer = offerInNewEditor(i.text.replace(/^\n+/, ''), doc.languageId);
    void vscode.window.showWarningMessage(message, OPEN_IN_NEW_EDITOR).then((choice) => {
      if (choice === OPEN_IN_NEW_EDITOR)
        offer.open().catch((e: unknown) => i.log.error(`${i.op}: could not open the offered ${i.what}: ${String(e)}`));
    });
    return { kind: 'changed', message, offer };
  }
  if (!(await insertAsOneEdit(i.editor, i.position, i.text))) {
    const message = `Draftsmith: the ${i.what} could not be inserted into the document.`;
    i.log.error(`${i.op}: ${message}`);
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  return { kind: 'inserted' };
}

/**
 * Replaces `range` with the text as one undo step, but only while the document is still at the
 * version the text was made from; otherwise nothing is replaced and the text is offered in a new
 * editor, as insertUnlessChanged does. `changed` is the message for that case.
 */
export async function replaceUnlessChanged(
  r: Omit<GuardedInsertion, 'position'> & { range: vscode.Range; changed: string },
): Promise<Insertion> {
  const doc = r.editor.document;
  if (doc.isClosed || doc.version !== r.version) {
    r.log.warn(
      `${r.op}: document changed (version ${r.version} -> ${doc.isClosed ? 'closed' : doc.version}); not replaced, offered in a new editor`,
    );
    const offer = offerInNewEditor(r.text, doc.languageId);
    void vscode.window.showWarningMessage(r.changed, OPEN_IN_NEW_EDITOR).then((choice) => {
      if (choice === OPEN_IN_NEW_EDITOR)
        offer.open().catch((e: unknown) => r.log.error(`${r.op}: could not open the offered ${r.what}: ${String(e)}`));
    });
    return { kind: 'changed', message: r.changed, offer };
  }
  if (!(await replaceAsOneEdit(r.editor, r.range, r.text))) {
    const message = `Draftsmith: the ${r.what} could not be written into the document.`;
    r.log.error(`${r.op}: ${message}`);
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  return { kind: 'inserted' };
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
 * Inserts `text` at `position` as a single undo step. The editor may have been closed or hidden
 * while the engine worked (its TextEditor is then disposed); a WorkspaceEdit on the document is
 * also one undo step, so it is the fallback.
 */
export async function insertAsOneEdit(
  editor: vscode.TextEditor,
  position: vscode.Position,
  text: string,
): Promise<boolean> {
  if (vscode.window.visibleTextEditors.includes(editor)) {
    try {
      const ok = await editor.edit((builder) => builder.insert(position, text), {
        undoStopBefore: true,
        undoStopAfter: true,
      });
      if (ok) return true;
    } catch {
      // disposed between the check and the edit: fall through
    }
  }
  const edit = new vscode.WorkspaceEdit();
  edit.insert(editor.document.uri, position, text);
  return vscode.workspace.applyEdit(edit);
}

/** Replaces `range` with `text` as a single undo step (the editor's edit, else a WorkspaceEdit). */
export async function replaceAsOneEdit(editor: vscode.TextEditor, range: vscode.Range, text: string): Promise<boolean> {
  if (vscode.window.visibleTextEditors.includes(editor)) {
    try {
      const ok = await editor.edit((builder) => builder.replace(range, text), {
        undoStopBefore: true,
        undoStopAfter: true,
      });
      if (ok) return true;
    } catch {
      // disposed between the check and the edit: fall through
    }
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(editor.document.uri, range, text);
  return vscode.workspace.applyEdit(edit);
}

export function offerInNewEditor(text: string, language: string): Offer {
  return {
    text,
    async open() {
      const doc = await vscode.workspace.openTextDocument({ content: text, language });
      return vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
    },
  };
}
