/**
 * In-host tests of the prose checks' diagnostics while the writer keeps typing: a check under way
 * for text that is no longer there must never leave its findings behind. (The UI test covers a
 * typed sentence's three diagnostics and their quick fixes; the fuzz run covers re-checks after edits
 * in the engine.) And the dialect setting: changing it checks open documents again in that English.
 */
import * as assert from 'node:assert/strict';
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

export function checksTests(): TestCase[] {
  return [
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
