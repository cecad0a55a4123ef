/**
 * The file dialogs the commands open: one shape, so each asks for files, folders or either with a
 * title and a button label, and gets back what was picked (nothing when the dialog was dismissed).
 */
import * as vscode from 'vscode';

/** What a dialog may pick. */
export type Pickable = 'file' | 'folder' | 'file-or-folder';

type Extra = Pick<vscode.OpenDialogOptions, 'filters' | 'defaultUri'>;

function options(title: string, openLabel: string, what: Pickable, many: boolean, extra: Extra) {
  return {
    title,
    openLabel,
    canSelectFiles: what !== 'folder',
    canSelectFolders: what !== 'file',
    canSelectMany: many,
    ...extra,
  } satisfies vscode.OpenDialogOptions;
}

/** One file or folder; undefined when the dialog was dismissed. */
export async function pickOne(
  title: string,
  openLabel: string,
  what: Pickable,
  extra: Extra = {},
): Promise<vscode.Uri | undefined> {
  return (await vscode.window.showOpenDialog(options(title, openLabel, what, false, extra)))?.[0];
}

/** Any number of files or folders; empty when the dialog was dismissed. */
export async function pickMany(title: string, openLabel: string, what: Pickable): Promise<vscode.Uri[]> {
  return (await vscode.window.showOpenDialog(options(title, openLabel, what, true, {}))) ?? [];
}
