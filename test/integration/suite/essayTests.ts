/**
 * In-host tests of Expand Topic Words into Essay: one undoable insertion after the selected topic
 * words, the layer weights the panel charts, the messages for unusable selections, and the issue's
 * acceptance test on the shipped model (models/essay).
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi, EssayOutcome, PickEssay } from '../../../extension/host/api';
import type { EssayResult } from '../../../extension/protocol';
import { closeWithoutSaving, openUntitled, selectedUntitled, timedCommand, userTypes } from './helpers';
import type { TestCase } from './runner';
import { toPanel } from '../../../extension/panelViews';

const TOPICS = 'bee, swallow, geese, flower, frog';
/** The shipped model is there (every test below needs it; a clear failure when it is not). */
async function needModelIn(extensionPath: string): Promise<void> {
  const file = path.join(extensionPath, 'models', 'essay', 'model.json');
  await readFile(file, 'utf8').catch(() => assert.fail(`${file} is missing: the essay model ships with the extension`));
}

function describe(outcome: EssayOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

/** Picks the first (best) essay, counting the calls. */
function pickFirst(): PickEssay & { calls: number } {
  const pick = Object.assign(
    async (candidates: readonly unknown[]) => {
      pick.calls++;
      assert.ok(candidates.length > 1, 'the picker was asked to choose among fewer than two essays');
      return 0;
    },
    { calls: 0 },
  );
  return pick;
}

function candidatesSetting(): number {
  return vscode.workspace.getConfiguration('draftsmith').get<number>('essay.candidates', 3);
}

/** An unusable selection: the message matches `expected`, and neither the document nor the panel changes. */
async function expectRefused(
  api: DraftsmithApi,
  content: string,
  select: boolean,
  kind: EssayOutcome['kind'],
  expected: RegExp,
): Promise<void> {
  const shownBefore = api.insights.lastMessage();
  const editor = select ? await selectedUntitled(content) : await openUntitled(content, 'plaintext');
  if (!select) editor.selection = new vscode.Selection(0, 0, 0, 0);
  const outcome = await api.essay(editor, undefined, async () => assert.fail('nothing should be offered to pick'));
  assert.equal(outcome.kind, kind, describe(outcome));
  assert.match(describe(outcome), expected);
  assert.equal(editor.document.getText(), content);
  assert.equal(api.insights.lastMessage(), shownBefore, 'the panel was sent something');
  await closeWithoutSaving(editor.document);
}

export function essayTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  // Shared by the first three tests: the document the essay went into, and the result.
  let expanded: { doc: vscode.TextDocument; original: string; result: EssayResult; picks: number } | undefined;

  const needModel = () => needModelIn(extensionPath);

  return [
    {
      name: 'Expand Topic Words into Essay inserts the picked essay after the selected topic words as one block',
      async run() {
        await needModel();
        const openBefore = api.insights.isOpen();
        const editor = await selectedUntitled(TOPICS);
        const doc = editor.document;
        const pick = pickFirst();
        const outcome = await timedCommand('essay', 'inserted essay', () => api.essay(editor, undefined, pick));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        expanded = { doc, original: TOPICS, result: outcome.result, picks: pick.calls };
        assert.ok(outcome.essay.trim().length > 0, 'the essay is empty');
        assert.equal(outcome.essay, outcome.result.candidates[0].text, 'not the picked (first) essay');
        assert.equal(doc.getText(), `${TOPICS}\n\n${outcome.essay}\n`);
        assert.ok(
          editor.selection.isEqual(new vscode.Selection(0, 0, 0, TOPICS.length)),
          'the topic words are no longer the selection',
        );
        // The panel gets the result, but is not opened for it.
        assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
        assert.equal(api.insights.isOpen(), openBefore, 'the insights panel was opened');
        console.log(`    essay: ${outcome.essay.slice(0, 160)}${outcome.essay.length > 160 ? '…' : ''}`);
        console.log(
          `    covers ${outcome.result.candidates[0].covered.length}/${outcome.result.topics.length}: ${outcome.result.candidates[0].covered.join(', ') || 'none'}`,
        );
      },
    },
    {
      name: 'one undo removes the essay and restores the topic words exactly',
      async run() {
        await needModel();
        assert.ok(expanded, 'needs the previous test to have inserted an essay');
        const { doc, original } = expanded;
        await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), original);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'the essay result: at most draftsmith.essay.candidates essays, and layer weights whose rows sum to 1',
      async run() {
        await needModel();
        assert.ok(expanded, 'needs the first essay test to have run');
        const { result, picks } = expanded;
        const wanted = candidatesSetting();
        assert.ok(
          result.candidates.length >= 1 && result.candidates.length <= wanted,
          `${result.candidates.length} essays for a setting of ${wanted}`,
        );
        assert.equal(picks, result.candidates.length > 1 ? 1 : 0, 'the picker was asked the wrong number of times');
        assert.deepEqual(result.topics, ['bee', 'swallow', 'geese', 'flower', 'frog']);
        assert.ok(result.layerWeights.length > 0, 'no layer weights');
        assert.equal(result.encoderLayers[0], 'embeddings');
        for (const [l, row] of result.layerWeights.entries()) {
          assert.equal(row.length, result.encoderLayers.length, `decoder layer ${l + 1} has ${row.length} weights`);
          const sum = row.reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(sum - 1) <= 1e-3, `decoder layer ${l + 1}'s weights sum to ${sum}`);
          assert.ok(
            row.every((w) => w >= 0),
            `decoder layer ${l + 1} has a negative weight: ${row.join(', ')}`,
          );
        }
      },
    },
    {
      name: 'Escape in the essay pick inserts nothing',
      async run() {
        await needModel();
        const editor = await selectedUntitled(TOPICS);
        const outcome = await api.essay(editor, undefined, async () => undefined);
        assert.equal(outcome.kind, 'cancelled', describe(outcome));
        assert.equal(editor.document.getText(), TOPICS);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'an edit while the essay is being chosen: nothing inserted, the picked essay offered in a new editor instead',
      async run() {
        await needModel();
        const editor = await selectedUntitled(TOPICS);
        const doc = editor.document;
        const outcome = await api.essay(editor, undefined, async () => {
          await userTypes(doc, 'meadow, ');
          return 0;
        });
        assert.equal(outcome.kind, 'changed', describe(outcome));
        if (outcome.kind !== 'changed') return;
        assert.match(describe(outcome), /document changed while the essay was being written.*Open in New Editor/);
        assert.equal(doc.getText(), `meadow, ${TOPICS}`, "the document holds more than the user's own edit");
        // What is offered is the essay that was picked, as it would have been inserted.
        const shown = api.insights.lastMessage();
        assert.ok(shown?.type === 'essay', 'the essay result did not reach the panel');
        assert.equal(outcome.offer.text, `${shown.view.candidates[0].text}\n`);
        // The message's "Open in New Editor": a new untitled document with the essay; the user's stays as it was.
        const offered = await outcome.offer.open();
        assert.ok(offered.document.isUntitled && offered.document !== doc, 'not a new untitled document');
        assert.equal(offered.document.getText(), outcome.offer.text);
        assert.equal(doc.getText(), `meadow, ${TOPICS}`);
        await closeWithoutSaving(offered.document);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'an empty selection: "Select a few topic words", no change (no fallback to the whole document)',
      run: () => expectRefused(api, TOPICS, false, 'empty', /Select a few topic words/),
    },
    {
      name: 'a selection of punctuation only: "Select a few topic words", no change',
      run: () => expectRefused(api, ' ,;.!? -- … ', true, 'empty', /Select a few topic words.*no words/),
    },
    {
      name: 'a selection of 50 words: the engine\'s "at most 10 topic words", no change',
      async run() {
        await needModel(); // the engine loads the model before it reads the topic words
        await expectRefused(
          api,
          Array.from({ length: 50 }, (_, i) => `topic${i + 1}`).join(' '),
          true,
          'error',
          /at most 10 topic words/,
        );
      },
    },
    {
      name: 'a selection in another script: the engine\'s "English words only", no change',
      async run() {
        await needModel();
        await expectRefused(api, '蜜蜂，燕子，大雁，花，青蛙', true, 'error', /English words only/);
      },
    },
    {
      name: 'one topic word, unknown to the word vectors, still gets an essay',
      async run() {
        await needModel();
        const editor = await selectedUntitled('zorblat');
        const outcome = await api.essay(editor, undefined, async () => 0);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.deepEqual(outcome.result.unknownTopics, ['zorblat']);
        assert.equal(editor.document.getText(), `zorblat\n\n${outcome.essay}\n`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'acceptance: on a selection of five words, the inserted paragraph contains at least three of them',
      async run() {
        await needModel();
        const editor = await selectedUntitled(TOPICS);
        const outcome = await api.essay(editor, undefined, async () => 0);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const inserted = editor.document.getText().slice(TOPICS.length);
        assert.equal(inserted, `\n\n${outcome.essay}\n`);
        // Judged here on the text itself (the word or its plural), not by the engine's own coverage.
        const found = TOPICS.split(', ').filter((w) => new RegExp(`\\b${w}(?:s|es)?\\b`, 'i').test(inserted));
        assert.ok(
          found.length >= 3,
          `the essay contains ${found.length} of the five topic words (${found.join(', ') || 'none'}): ${JSON.stringify(outcome.essay)}`,
        );
        await closeWithoutSaving(editor.document);
      },
    },
  ];
}
