/** Where a result goes in the document and how it is applied: always as ONE undo step. */
import * as vscode from 'vscode';

/** The text the Summarize command inserts after the source. */
export function summaryInsertion(summary: string): string {
  return `\n\nSummary: ${summary}\n`;
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
export async function insertAsOneEdit(editor: vscode.TextEditor, position: vscode.Position, text: string): Promise<boolean> {
  if (vscode.window.visibleTextEditors.includes(editor)) {
    try {
      const ok = await editor.edit((builder) => builder.insert(position, text), { undoStopBefore: true, undoStopAfter: true });
      if (ok) return true;
    } catch {
      // disposed between the check and the edit: fall through
    }
  }
  const edit = new vscode.WorkspaceEdit();
  edit.insert(editor.document.uri, position, text);
  return vscode.workspace.applyEdit(edit);
}
