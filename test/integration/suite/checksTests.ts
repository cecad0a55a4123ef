/**
 * In-host tests of the prose checks' diagnostics while the writer keeps typing: a check under way
 * for text that is no longer there must never leave its findings behind. (The UI test covers a
 * typed sentence's three diagnostics and their quick fixes; the fuzz run covers re-checks after edits
 * in the engine.) And the word lists a project keeps (Code Spell Checker's, Vale's, Draftsmith's own
 * dictionary) in files of the workspace the tests open: the files are made here and removed after.
 * And the dialect setting: changing it checks open documents again in that English.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { closeWithoutSaving, openUntitled, sleep, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

/** About 6,000 words: one full check takes a good part of a second or more here. */
const BODY = Array.from(
  { length: 300 },
  () =>
    'The river ran low that summer, and the children walked its dry bed every morning, looking for coins and bells.',
).join('\n\n');
const MISSPELT = 'recieve';
const ADDED = 'Paragrph';
const EDITS = 8;

const ours = (doc: vscode.TextDocument) =>
  vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'Draftsmith');
/** Each diagnostic as its place, rule and message, in order: two documents' lists compare equal when they say the same. */
const snapshot = (doc: vscode.TextDocument) =>
  ours(doc)
    .map(
      (d) =>
        `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${String(typeof d.code === 'object' ? d.code.value : d.code)} ${d.message}`,
    )
    .sort();
const flagged = (doc: vscode.TextDocument, word: string) =>
  ours(doc).filter((d) => doc.getText(d.range) === word).length;
/** The severity of the diagnostic on `word`, or undefined when it has none. */
const severityOn = (doc: vscode.TextDocument, word: string) =>
  ours(doc).find((d) => doc.getText(d.range) === word)?.severity;

/** The workspace folder the in-host tests run in. */
function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the in-host tests run with a workspace folder open');
  return folder.uri.fsPath;
}

/**
 * Writes `files` (paths relative to the workspace folder) for the length of `work`, then puts back
 * what was there: removed if it was not, restored if it was.
 */
async function withFiles<T>(files: Record<string, string>, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = workspaceDir();
  const before = new Map<string, string | undefined>();
  /** The folders made here (the outermost of each file's), removed after. */
  const made = new Set<string>();
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    before.set(file, existsSync(file) ? readFileSync(file, 'utf8') : undefined);
    let top = path.dirname(file);
    while (path.dirname(top) !== dir && !existsSync(path.dirname(top))) top = path.dirname(top);
    if (!existsSync(top)) made.add(top);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  try {
    return await work(dir);
  } finally {
    for (const [file, text] of before)
      if (text === undefined) rmSync(file, { force: true });
      else writeFileSync(file, text);
    for (const folder of made) rmSync(folder, { recursive: true, force: true });
  }
}

async function openFile(file: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** Words no dictionary knows, one per kind of list. */
const CSPELL_SETTING = 'zorbulate';
const CSPELL_FILE = 'quendrix';
const VALE = 'brelloway';
const LISTED = `We ${CSPELL_SETTING} the ${CSPELL_FILE} with ${VALE} every day.\n`;

export function checksTests(): TestCase[] {
  return [
    {
      name: "Prose checks: a word in the workspace's cSpell.words, in a cspell.json or in a Vale accept.txt is not flagged in the editor; the same words where no list names them are",
      timeoutMs: 120_000,
      async run() {
        const docs: vscode.TextDocument[] = [];
        try {
          await withFiles(
            {
              '.vscode/settings.json': JSON.stringify({ 'cSpell.words': [CSPELL_SETTING] }, null, 2),
              'lists/cspell/cspell.json': JSON.stringify({ version: '0.2', words: [CSPELL_FILE] }),
              'lists/cspell/notes.md': LISTED,
              'lists/vale/.vale.ini': 'StylesPath = styles\nVocab = House\n',
              'lists/vale/styles/config/vocabularies/House/accept.txt': `${VALE}\n`,
              'lists/vale/notes.md': LISTED,
            },
            async (dir) => {
              // Untitled: no folder, so no list; every word is flagged.
              const bare = (await openUntitled(LISTED, 'markdown')).document;
              docs.push(bare);
              await waitFor(
                () => [CSPELL_SETTING, CSPELL_FILE, VALE].every((w) => flagged(bare, w) > 0),
                'every made-up word flagged in a document outside the workspace',
                60_000,
                50,
              );
              const cspell = await openFile(path.join(dir, 'lists/cspell/notes.md'));
              const vale = await openFile(path.join(dir, 'lists/vale/notes.md'));
              docs.push(cspell, vale);
              // The settings' words hold in the whole workspace; cspell.json's and accept.txt's in their own folders.
              await waitFor(
                () => flagged(cspell, VALE) > 0 && flagged(vale, CSPELL_FILE) > 0,
                'the checks of the two folders',
                60_000,
                50,
              );
              assert.deepEqual(
                [CSPELL_SETTING, CSPELL_FILE, VALE].map((w) => [w, flagged(cspell, w) > 0, flagged(vale, w) > 0]),
                [
                  [CSPELL_SETTING, false, false],
                  [CSPELL_FILE, false, true],
                  [VALE, true, false],
                ],
              );
            },
          );
        } finally {
          for (const d of docs) await closeWithoutSaving(d);
        }
      },
    },
    {
      name: 'Prose checks: "Add “word” to the dictionary" writes the word where the writer chooses (the workspace\'s .draftsmith/dictionary.txt) and the finding goes',
      timeoutMs: 120_000,
      async run() {
        const word = 'plimbrosk';
        const dictionary = path.join(workspaceDir(), '.draftsmith', 'dictionary.txt');
        const had = existsSync(dictionary) ? readFileSync(dictionary, 'utf8') : undefined;
        let doc: vscode.TextDocument | undefined;
        try {
          await withFiles({ 'lists/add/notes.md': `The ${word} is in the shed.\n` }, async (dir) => {
            const d = (doc = await openFile(path.join(dir, 'lists/add/notes.md')));
            await waitFor(() => flagged(d, word) > 0, `"${word}" flagged`, 60_000, 50);
            const diagnostic = ours(d).find((x) => d.getText(x.range) === word);
            assert.ok(diagnostic);
            const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
              'vscode.executeCodeActionProvider',
              d.uri,
              diagnostic.range,
            );
            const add = actions.find((a) => a.title === `Add “${word}” to the dictionary`);
            assert.ok(add?.command, `the quick fixes: ${actions.map((a) => a.title).join(' | ')}`);
            const { command, arguments: args = [] } = add.command;
            // The quick fix asks where the word goes; the writer takes the first place offered,
            // the workspace's dictionary.
            let answered = false;
            const ran = Promise.resolve(vscode.commands.executeCommand(command, ...args)).finally(
              () => (answered = true),
            );
            while (!answered) {
              await sleep(200);
              if (!answered) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
            }
            await ran;
            assert.ok(existsSync(dictionary), `${dictionary} written`);
            assert.ok(readFileSync(dictionary, 'utf8').split(/\r?\n/).includes(word), 'the word is in the dictionary');
            await waitFor(() => flagged(d, word) === 0, `"${word}" no longer flagged`, 60_000, 50);
          });
        } finally {
          if (doc) await closeWithoutSaving(doc);
          if (had === undefined) {
            rmSync(dictionary, { force: true });
            // The folder too when the test made it (rmdir refuses a folder with anything else in it).
            try {
              rmdirSync(path.dirname(dictionary));
            } catch {
              /* kept: it holds more than the dictionary */
            }
          } else writeFileSync(dictionary, had);
        }
      },
    },
    {
      name: 'Prose checks: draftsmith.checks.dialect re-checks the open document: British spellings are hints under American, silent under British, and American ones hints under British',
      timeoutMs: 120_000,
      async run() {
        const editor = await openUntitled('The behaviour of the color is odd. I will recieve it.', 'markdown');
        const doc = editor.document;
        const { Hint, Warning } = vscode.DiagnosticSeverity;
        try {
          await waitFor(() => flagged(doc, MISSPELT) === 1, 'the first check', 60_000, 50);
          assert.equal(severityOn(doc, 'behaviour'), Hint, 'American by default: a British spelling is a hint');
          assert.equal(severityOn(doc, 'color'), undefined);
          assert.equal(severityOn(doc, MISSPELT), Warning);
          await withSetting('checks.dialect', 'British', async () => {
            await waitFor(
              () => severityOn(doc, 'color') === Hint && severityOn(doc, 'behaviour') === undefined,
              'the check in British English after the setting changed',
              60_000,
              50,
            );
            assert.equal(severityOn(doc, MISSPELT), Warning, 'a misspelling in every English');
          });
          await waitFor(
            () => severityOn(doc, 'behaviour') === Hint && severityOn(doc, 'color') === undefined,
            'American again once the setting is removed',
            60_000,
            50,
          );
        } finally {
          await closeWithoutSaving(doc);
        }
      },
    },
    {
      name: 'Prose checks: a long Markdown document edited again and again while it is being checked ends with the diagnostics a fresh check of its final text gives, none left from before',
      timeoutMs: 240_000,
      async run() {
        const editor = await openUntitled(`I will ${MISSPELT} the letter.\n\n${BODY}`, 'markdown');
        const doc = editor.document;
        let fresh: vscode.TextDocument | undefined;
        try {
          await waitFor(() => flagged(doc, MISSPELT) === 1, `the first check to flag "${MISSPELT}"`, 120_000, 50);
          // Edits far quicker than a check of this document: most land while one is under way.
          for (let i = 0; i < EDITS; i++) {
            const end = doc.positionAt(doc.getText().length);
            assert.ok(await editor.edit((b) => b.insert(end, `\n\n${ADDED} ${i} is new.`)));
            await sleep(40);
          }
          const at = doc.getText().indexOf(MISSPELT);
          assert.ok(
            await editor.edit((b) =>
              b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + MISSPELT.length)), 'receive'),
            ),
          );
          // Stale findings would keep "recieve" flagged, or miss the paragraphs added since.
          await waitFor(
            () => flagged(doc, MISSPELT) === 0 && flagged(doc, ADDED) === EDITS,
            `the diagnostics of the final text (every "${ADDED}", no "${MISSPELT}")`,
            120_000,
            50,
          );
          fresh = (await openUntitled(doc.getText(), 'markdown')).document;
          const other = fresh;
          await waitFor(() => flagged(other, ADDED) === EDITS, 'a fresh check of the same text', 120_000, 50);
          await sleep(1000); // nothing more comes for either
          assert.deepEqual(snapshot(doc), snapshot(other));
        } finally {
          if (fresh) await closeWithoutSaving(fresh);
          await closeWithoutSaving(doc);
        }
      },
    },
  ];
}
