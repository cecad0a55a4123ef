/**
 * In-host tests of inline suggestions: while they are off nothing reaches the engine,
 * however the editor asks; turned on, the editor's own trigger gets a suggestion for the text
 * before the cursor, and VS Code's commit inserts it as one edit that one Undo removes.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, sleep, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

const TEXT = 'Tom had a little dog named Max. One day Tom and Max went to the';

async function atEnd(text: string, language: string): Promise<vscode.TextEditor> {
  const editor = await openUntitled(text, language);
  const end = editor.document.positionAt(text.length);
  editor.selection = new vscode.Selection(end, end);
  return editor;
}

export function inlineTests(api: DraftsmithApi): TestCase[] {
  return [
    {
      name: 'inline suggestions off (the default): the editor asks for them, and nothing is sent to the engine',
      async run() {
        const editor = await atEnd(TEXT, 'markdown');
        const before = api.inline.stats();
        await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
        await sleep(1500);
        assert.deepEqual(api.inline.stats(), before);
        assert.equal(api.engine.inFlight(), 0);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'inline suggestions on: after the pause the suggestion for the text before the cursor is asked for; commit inserts it as one edit, one Undo removes it',
      async run() {
        await withSetting('inline.enabled', true, async () =>
          withSetting('inline.delayMs', 50, async () => {
            const editor = await atEnd(TEXT, 'markdown');
            const before = api.inline.stats().requested;
            await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
            await waitFor(() => api.inline.stats().requested > before, 'a suggestion to be asked for', 60_000, 20);
            await waitFor(() => api.engine.inFlight() === 0, 'the suggestion', 60_000, 20);
            await sleep(300);
            await vscode.commands.executeCommand('editor.action.inlineSuggest.commit');
            await waitFor(() => editor.document.getText() !== TEXT, 'the suggestion inserted', 10_000, 20);
            const inserted = editor.document.getText();
            assert.ok(inserted.startsWith(`${TEXT} `), JSON.stringify(inserted));
            assert.equal(api.inline.lastAccepted()?.suggestion, inserted.slice(TEXT.length));
            await vscode.commands.executeCommand('undo');
            assert.equal(editor.document.getText(), TEXT);
            await closeWithoutSaving(editor.document);
          }),
        );
      },
    },
    {
      name: 'an inline suggestion after more text than the model reads says in the status bar what it read of all before the cursor',
      async run() {
        await withSetting('inline.enabled', true, async () =>
          withSetting('inline.delayMs', 50, async () => {
            // Past the 3,000 characters the editor sends, so the counts must be of all the text before the cursor.
            const long = `${Array.from({ length: 60 }, () => TEXT).join(' ')}`;
            assert.ok(long.length > 3_000, `${long.length} characters`);
            const editor = await atEnd(long, 'markdown');
            const before = api.inline.stats().requested;
            await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
            await waitFor(() => api.inline.stats().requested > before, 'a suggestion to be asked for', 60_000, 20);
            await waitFor(() => api.engine.inFlight() === 0, 'the suggestion', 60_000, 20);
            const all = long.length.toLocaleString('en-US');
            await waitFor(() => api.inline.statusTooltip().includes(`of ${all} characters`), 'the tooltip', 10_000, 20);
            assert.match(
              api.inline.statusTooltip(),
              new RegExp(
                `The suggestion continues the last \\d+ words before the cursor \\([\\d,]+ of ${all} ` +
                  'characters; the model reads \\d+ tokens\\)\\. To continue from another part, select it',
              ),
            );
            await closeWithoutSaving(editor.document);
          }),
        );
      },
    },
  ];
}
