/** Editor and timing helpers for the in-host tests. */
import * as vscode from 'vscode';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `everyMs` until it holds; throws with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000, everyMs = 2): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Used only when the harness did not put sample.md into the workspace folder. */
const FALLBACK_SAMPLE = `# Council approves river bridge

The city council voted on Tuesday to build a new bridge over the river, ending a debate that had lasted more than ten years. The mayor said construction would begin in the spring and take about three years to finish.

The bridge will carry two lanes of traffic, a bicycle path and a footpath. Officials estimate the cost at 120 million dollars, most of it paid by the state and the rest by a local tax approved by voters last year.

Residents of the east bank welcomed the decision. Many of them now drive forty minutes to reach the hospital and the schools on the west side. Some shop owners near the old ferry landing worry that they will lose customers once the ferry stops running.

The council also asked engineers to study whether the old railway bridge downstream could be turned into a park.
`;

/** The text of the workspace's sample.md and its URI, or the fallback text (uri undefined). */
export async function sampleDocument(): Promise<{ text: string; uri: vscode.Uri | undefined }> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder) {
    const uri = vscode.Uri.joinPath(folder.uri, 'sample.md');
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      return { text: new TextDecoder().decode(bytes), uri };
    } catch {
      // fall through
    }
  }
  console.log('note: no sample.md in the workspace folder; using a built-in sample text');
  return { text: FALLBACK_SAMPLE, uri: undefined };
}

/** The documents closeWithoutSaving closed (or is closing): never handed to a test again. */
const closing = new WeakSet<vscode.TextDocument>();

/**
 * Text as a document may store it: VS Code turns a lone CR into a line break, and a lone surrogate
 * may come back as U+FFFD (the hostile-input tests open such text).
 */
function asStored(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * Opens `content` in a new untitled editor and makes it the active one. Right after an untitled
 * editor is reverted and closed, VS Code may give the next one the same name (Untitled-N) while the
 * extension host still holds the old document, and hand that back; a fresh try gets the next name.
 */
export async function openUntitled(content: string, language = 'markdown'): Promise<vscode.TextEditor> {
  for (let attempt = 1; ; attempt++) {
    const doc = await vscode.workspace.openTextDocument({ content, language });
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    // A document handed back while it is being closed may hold the same text (a test that undid its
    // edit): it would close under the next test.
    if (asStored(doc.getText()) === asStored(content) && !closing.has(doc)) return editor;
    if (attempt >= 5)
      throw new Error(`openUntitled keeps returning another document: ${JSON.stringify(doc.getText().slice(0, 80))}`);
    console.log(`    note: openUntitled returned a stale ${doc.uri.toString()}; trying again`);
    await sleep(250);
  }
}

/** Opens `content` in an untitled plain-text editor with all of it selected. */
export async function selectedUntitled(content: string): Promise<vscode.TextEditor> {
  const editor = await openUntitled(content, 'plaintext');
  const doc = editor.document;
  editor.selection = new vscode.Selection(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
  return editor;
}

/** Sets draftsmith.`key` in the user's settings for the length of `work`, then removes it again. */
export async function withSetting<T>(key: string, value: unknown, work: () => Promise<T>): Promise<T> {
  const target = vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('draftsmith').update(key, value, target);
  try {
    return await work();
  } finally {
    await vscode.workspace.getConfiguration('draftsmith').update(key, undefined, target);
  }
}

/** Inserts `text` at the start of `doc` as the user would type it; fails the test if VS Code refuses. */
export async function userTypes(doc: vscode.TextDocument, text: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, new vscode.Position(0, 0), text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the test edit was not applied');
}

/** Closes a document's editor without a save prompt, dropping any unsaved change. */
export async function closeWithoutSaving(doc: vscode.TextDocument): Promise<void> {
  if (doc.isClosed) return;
  closing.add(doc);
  await vscode.window.showTextDocument(doc, { preview: false });
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}

/**
 * Runs a command and prints (never asserts) the time from the command to its result in the editor:
 * "<what>: N ms from command to <result>". The bench reads these lines from
 * test/integration/.out/in-host.log.
 */
export async function timedCommand<T>(what: string, result: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const outcome = await run();
  console.log(`${what}: ${Math.round(performance.now() - started)} ms from command to ${result}`);
  return outcome;
}
