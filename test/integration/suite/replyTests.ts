/**
 * In-host tests of Suggest Replies (ESED) on the shipped model (models/reply): the candidates the
 * quick pick would offer (answered here by the test's pick), the chosen reply inserted below the
 * post as one edit that one undo removes, the whole document when nothing is selected, a typed key
 * ("Type a key…"), and the message for a key the memory lacks.
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi, PickReply, ReplyOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, selectedUntitled, timedCommand } from './helpers';
import type { TestCase } from './runner';

const POST = 'I love playing tennis with my old friends on a sunny day.';

function describe(outcome: ReplyOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

export function replyTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  const needModel = async () => {
    const file = path.join(extensionPath, 'models', 'reply', 'model.json');
    await readFile(file, 'utf8').catch(() =>
      assert.fail(`${file} is missing: the reply model ships with the extension`),
    );
  };
  let picked: { doc: vscode.TextDocument; original: string } | undefined;
  return [
    {
      name: 'Suggest Replies offers labelled candidates and inserts the picked one below the post as one edit',
      async run() {
        await needModel();
        const editor = await selectedUntitled(POST);
        const doc = editor.document;
        let offered: string[] = [];
        // The quick pick's answer: the second candidate (not merely the best), by index.
        const pick: PickReply = async (candidates) => {
          offered = candidates.map((c) => c.label);
          assert.ok(candidates.length >= 2, `only ${candidates.length} candidates`);
          return { index: 1 };
        };
        const outcome = await timedCommand('reply', 'inserted reply', () =>
          api.suggestReplies(editor, undefined, pick),
        );
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.ok(
          offered.every((l) => / — (identity|synonym|antonym|neighbour)$/.test(l)),
          offered.join('; '),
        );
        assert.equal(outcome.candidate, outcome.result.candidates[1]);
        assert.equal(doc.getText(), `${POST}\n\n${outcome.reply}\n`);
        picked = { doc, original: POST };
        console.log(`    offered: ${offered.join('; ')}`);
        console.log(`    inserted (${outcome.candidate.label}): ${outcome.reply}`);
      },
    },
    {
      name: 'one undo removes the reply and restores the post exactly',
      async run() {
        assert.ok(picked, 'needs the previous test to have inserted a reply');
        await vscode.window.showTextDocument(picked.doc, { preview: false, preserveFocus: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(picked.doc.getText(), picked.original);
        await closeWithoutSaving(picked.doc);
      },
    },
    {
      name: 'Suggest Replies with nothing selected answers the whole document; "Type a key…" steers by the typed word',
      async run() {
        await needModel();
        const text = 'Are you going to the concert tonight?\nI heard the band is great.';
        const editor = await openUntitled(text, 'plaintext');
        editor.selection = new vscode.Selection(0, 0, 0, 0);
        const outcome = await api.suggestReplies(editor, undefined, async () => ({ typedKey: 'music' }));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.equal(outcome.result.source, text, 'the whole document is the post');
        assert.equal(outcome.candidate.label, 'music — typed');
        assert.equal(editor.document.getText(), `${text}\n\n${outcome.reply}\n`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'a typed key the memory lacks is refused with the nearest known keys, and nothing is inserted',
      async run() {
        await needModel();
        const editor = await selectedUntitled(POST);
        const outcome = await api.suggestReplies(editor, undefined, async () => ({ typedKey: 'xylophonist' }));
        assert.equal(outcome.kind, 'error', describe(outcome));
        assert.match(describe(outcome), /no key "xylophonist"; the nearest keys it knows are: \w+/);
        assert.equal(editor.document.getText(), POST);
        await closeWithoutSaving(editor.document);
      },
    },
  ];
}
