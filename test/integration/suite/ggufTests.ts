/**
 * In-host tests of a GGUF model (llama.cpp through node-llama-cpp) chosen for the writing commands:
 * the tiny fixture test/fixtures/gguf/smollm2-tiny.gguf (random weights, SmolLM2's vocabulary and
 * chat template) set as draftsmith.story.model, draftsmith.rewrite.model and draftsmith.summarize.model by its path, as Choose
 * Model writes it. Its random weights write bytes, not words: the tests check where the text goes,
 * which model wrote it, and that one Undo takes it back.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi, RewriteOutcome, StoryOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, withSetting } from './helpers';
import type { TestCase } from './runner';

const PROMPT = 'The rain fell for three days, and the river rose over the old bridge.';
const PARAGRAPH = 'The old bridge was closed on Tuesday and the council met.';

const describe = (o: StoryOutcome | RewriteOutcome) => ('message' in o ? `${o.kind}: ${o.message}` : o.kind);

export function ggufTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  const model = path.join(extensionPath, 'test', 'fixtures', 'gguf', 'smollm2-tiny.gguf');
  return [
    {
      name: 'Continue Story on a GGUF model chosen by its path: llama.cpp writes after the prompt, and one Undo removes it',
      timeoutMs: 120_000,
      async run() {
        const editor = await openUntitled(PROMPT, 'plaintext');
        const doc = editor.document;
        editor.selection = new vscode.Selection(doc.positionAt(PROMPT.length), doc.positionAt(PROMPT.length));
        const outcome = await withSetting('story.model', model, () =>
          withSetting('story.words', 10, () => api.continueStory(editor)),
        );
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.equal(outcome.result.stats.model, model, 'another model wrote the story');
        assert.match(outcome.result.external?.note ?? '', /GGUF file \(llama\.cpp\)/);
        assert.equal(doc.getText(), `${PROMPT}${outcome.text}`);
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), PROMPT, 'one Undo removes the story');
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'Rewrite Selection on a GGUF instruct model: its chat template from the file, the rewrite shown for review, nothing kept when nothing is accepted',
      timeoutMs: 120_000,
      async run() {
        const editor = await openUntitled(PARAGRAPH, 'plaintext');
        editor.selection = new vscode.Selection(0, 0, 0, PARAGRAPH.length);
        const outcome = await withSetting('rewrite.model', model, () =>
          api.rewriteSelection(editor, undefined, { ask: { preset: 'shorter' }, review: async () => undefined }),
        );
        assert.equal(outcome.kind, 'kept-none', describe(outcome));
        if (outcome.kind !== 'kept-none') return;
        assert.equal(outcome.result.stats.model, model);
        assert.equal(editor.document.getText(), PARAGRAPH, 'nothing kept, nothing written');
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Summarize Document (abstractive) on a GGUF instruct model: the summary comes after the text, says which model wrote it, carries no experimental label, and one Undo removes it',
      timeoutMs: 180_000,
      async run() {
        const text = `${PARAGRAPH} The new bridge will open in spring. ${PROMPT}`;
        const editor = await openUntitled(text, 'plaintext');
        const doc = editor.document;
        editor.selection = new vscode.Selection(0, 0, 0, 0); // the whole document
        const outcome = await withSetting('summarize.model', model, () =>
          withSetting('summarize.mode', 'abstractive', () =>
            withSetting('summarize.maxLength', 16, () => api.summarize(editor)),
          ),
        );
        assert.equal(
          outcome.kind,
          'inserted',
          'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind,
        );
        if (outcome.kind !== 'inserted') return;
        assert.equal(outcome.result.stats.model, model, 'another model wrote the summary');
        assert.match(outcome.result.external?.note ?? '', /An instruct model from a GGUF file \(llama\.cpp\)/);
        assert.equal(outcome.result.experimental, undefined, "the experimental label is the built-in model's only");
        assert.ok(
          Array.isArray(outcome.result.invented),
          'the result says what the summary invented (nothing, or what)',
        );
        const shown = api.insights.lastMessage();
        assert.ok(shown?.type === 'summarize' && shown.view.external?.id === model, 'the panel names the model');
        assert.ok(doc.getText().startsWith(text) && doc.getText().length > text.length, 'the summary follows the text');
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), text, 'one Undo removes the summary');
        await closeWithoutSaving(doc);
      },
    },
  ];
}
