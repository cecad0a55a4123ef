/**
 * Choosing the text a draft is compared with: a QuickPick of the other documents open in editor
 * tabs, plus "Choose a file…" (an open dialog). Names are the tab labels the user sees.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { pickOne } from './openDialog';
import { formatOf, type DocumentFormat } from '../engine/public';

export interface NamedText {
  text: string;
  name: string;
  /** 'markdown': read as Markdown, prose only; absent: plain text. */
  format?: DocumentFormat;
}

/** A document's text as a NamedText: Markdown documents (by language) are marked so. */
export function namedText(doc: vscode.TextDocument, text: string, name: string): NamedText {
  const format = formatOf(doc.languageId);
  return format === 'markdown' ? { text, name, format } : { text, name };
}

export type Picked = { kind: 'picked'; other: NamedText } | { kind: 'cancelled' } | { kind: 'error'; message: string };

const PREVIEW_CHARS = 80;

interface DocumentItem extends vscode.QuickPickItem {
  document?: vscode.TextDocument;
  chooseFile?: true;
}

/**
 * What the user calls this document: its tab's label (an untitled one is named after its first line),
 * else its file name.
 */
export function documentName(doc: vscode.TextDocument): string {
  const key = doc.uri.toString();
  for (const tab of textTabs()) {
    if (tab.input.uri.toString() === key) return tab.label;
  }
  return doc.isUntitled ? doc.uri.path : path.basename(doc.uri.path);
}

/** The draft's name: the document's, with the lines when only a selection is used. */
export function rangeName(doc: vscode.TextDocument, range: vscode.Range, whole: boolean): string {
  const name = documentName(doc);
  if (whole) return name;
  const first = range.start.line + 1;
  const last = range.end.line + 1;
  return first === last ? `${name}, line ${first}` : `${name}, lines ${first}–${last}`;
}

/**
 * The QuickPick; `role` is what the other text is ("reference", "source"). A chosen file that cannot
 * be read is said in an error message as well as returned, so no caller has to.
 */
export async function pickOtherText(draft: vscode.TextDocument, role: string, title: string): Promise<Picked> {
  const items: DocumentItem[] = [];
  for (const doc of await openDocuments(draft)) {
    items.push({
      label: documentName(doc),
      description: doc.isUntitled ? 'unsaved' : vscode.workspace.asRelativePath(doc.uri),
      detail: preview(doc.getText()),
      document: doc,
    });
  }
  if (items.length > 0) items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({
    label: '$(folder-opened) Choose a file…',
    detail: `Read the ${role} from a text file`,
    chooseFile: true,
  });

  const choice = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: `The ${role}: another open document, or a file`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!choice) return { kind: 'cancelled' };
  if (choice.document)
    return { kind: 'picked', other: namedText(choice.document, choice.document.getText(), choice.label) };
  return chooseFile(role, title);
}

async function chooseFile(role: string, title: string): Promise<Picked> {
  const uri = await pickOne(title, `Use as ${role}`, 'file', {
    filters: { 'Text files': ['txt', 'md', 'markdown', 'rst', 'tex', 'text'], 'All files': ['*'] },
  });
  if (!uri) return { kind: 'cancelled' };
  try {
    // openTextDocument decodes with the user's encoding settings and refuses binary files.
    const doc = await vscode.workspace.openTextDocument(uri);
    return { kind: 'picked', other: namedText(doc, doc.getText(), path.basename(uri.path)) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const message = `Draftsmith: ${path.basename(uri.path)} could not be read as text (${reason}).`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
}

/** Documents open in editor tabs, in tab order, without the draft's. */
async function openDocuments(draft: vscode.TextDocument): Promise<vscode.TextDocument[]> {
  const seen = new Set([draft.uri.toString()]);
  const docs: vscode.TextDocument[] = [];
  for (const tab of textTabs()) {
    const key = tab.input.uri.toString();
    if (seen.has(key)) continue;
    seen.add(key);
    // A tab restored after a reload may not have loaded its document yet.
    const loaded = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    const doc =
      loaded ??
      (await vscode.workspace.openTextDocument(tab.input.uri).then(
        (d) => d,
        () => undefined,
      ));
    if (doc) docs.push(doc);
  }
  return docs;
}

function textTabs(): (vscode.Tab & { input: vscode.TabInputText })[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab): tab is vscode.Tab & { input: vscode.TabInputText } => tab.input instanceof vscode.TabInputText);
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '(empty)';
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
