/**
 * In-host tests of the layouts real Hub repositories use (test/fixtures/hub/fixtures, written by
 * hub_fixtures.py in the file layouts of the repositories MIRRORS.json names), run by the commands a
 * writer uses in VS Code: each causal layout continues a story, an instruct model writes an essay
 * through its chat template, and distilbart-cnn summarizes with its own generation settings. The
 * unit tests (hubLayouts, hubInstruct) check the same paths file by file; these check that the
 * extension host's settings, downloads into global storage and edits reach them.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi } from '../../../extension/host/api';
import { describe, storySoFar } from './storyTests';
import { HUB_FIXTURES, startLoopbackHub, type LoopbackHub } from '../../unit/loopbackHub';
import { article as ARTICLE } from '../../unit/helpers';
import { closeWithoutSaving, openUntitled, selectedUntitled, withSetting } from './helpers';
import type { TestCase } from './runner';

interface Mirror {
  imitates: string;
  model_type: string;
}
const MIRRORS = (
  JSON.parse(readFileSync(path.join(HUB_FIXTURES, 'MIRRORS.json'), 'utf8')) as { repos: Record<string, Mirror> }
).repos;
const CAUSAL = Object.keys(MIRRORS).filter((id) => !['bart', 'bert'].includes(MIRRORS[id].model_type));
const INSTRUCT = 'fixtures/Qwen2.5-0.5B-Instruct';
const BART = 'fixtures/distilbart-cnn-12-6';
const PROMPT = 'Once upon a time, a little girl named Lily found a red ball in the park.';
const TOPICS = 'garden, rain, letter';

export function hubLayoutTests(api: DraftsmithApi): TestCase[] {
  let started: Promise<LoopbackHub> | undefined;
  const loopback = () => (started ??= startLoopbackHub());
  const onHub = async <T>(work: (hub: LoopbackHub) => Promise<T>): Promise<T> => {
    const hub = await loopback();
    return withSetting('hub.endpoint', hub.endpoint, () => work(hub));
  };

  return [
    {
      name: `Continue Story runs every causal layout of the real repositories (${CAUSAL.join(', ')}): each downloads, writes its story in, and one Undo removes it`,
      timeoutMs: 600_000,
      async run() {
        assert.ok(CAUSAL.length >= 5, `MIRRORS.json lists only ${CAUSAL.length} causal layouts`);
        for (const id of CAUSAL) {
          const editor = await storySoFar(PROMPT);
          const doc = editor.document;
          const { outcome, graphs } = await onHub(async (hub) => {
            const before = hub.requests.length;
            const outcome = await withSetting('story.model', id, () =>
              withSetting('story.words', 8, () => api.continueStory(editor)),
            );
            const graphs = hub.requests
              .slice(before)
              .filter((r) => r.startsWith(`/${id}/resolve/`) && r.endsWith('.onnx'));
            return { outcome, graphs };
          });
          assert.equal(outcome.kind, 'inserted', `${id} (${MIRRORS[id].imitates}'s layout): ${describe(outcome)}`);
          if (outcome.kind !== 'inserted') return;
          assert.equal(graphs.length, 1, `${id}: not one graph downloaded: ${graphs.join(', ')}`);
          assert.equal(outcome.result.external?.id, id);
          assert.equal(outcome.result.external?.architecture, MIRRORS[id].model_type);
          assert.ok(outcome.text.trim().length > 0, `${id}: the continuation is empty`);
          assert.equal(doc.getText(), PROMPT + outcome.text);
          console.log(
            `    ${id} (${graphs[0].replace(/^.*\/resolve\/[^/]+\//, '')}): ${outcome.text.trim().slice(0, 80)}`,
          );
          await vscode.window.showTextDocument(doc, { preview: false });
          await vscode.commands.executeCommand('undo');
          assert.equal(doc.getText(), PROMPT, `${id}: one Undo did not restore the document exactly`);
          await closeWithoutSaving(doc);
        }
      },
    },
    {
      name: 'Expand into Essay with an instruct model (Qwen2.5 layout, ChatML template) inserts an essay holding every topic word, and one Undo removes it',
      timeoutMs: 300_000,
      async run() {
        const editor = await selectedUntitled(TOPICS);
        const doc = editor.document;
        const outcome = await onHub(() =>
          withSetting('essay.model', INSTRUCT, () => withSetting('essay.candidates', 1, () => api.essay(editor))),
        );
        assert.equal(outcome.kind, 'inserted', 'message' in outcome ? outcome.message : outcome.kind);
        if (outcome.kind !== 'inserted') return;
        assert.equal(outcome.result.external?.id, INSTRUCT);
        assert.equal(outcome.result.external?.architecture, 'qwen2');
        const essay = outcome.essay.toLowerCase();
        for (const word of TOPICS.split(', ')) assert.ok(essay.includes(word), `"${word}" is not in: ${outcome.essay}`);
        // The chat template's control tokens are the model's, never the writer's prose.
        assert.doesNotMatch(outcome.essay, /<\|im_(start|end)\|>|<\|endoftext\|>/);
        assert.ok(doc.getText().includes(outcome.essay), 'the essay is not in the document');
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), TOPICS, 'one Undo did not restore the topic words exactly');
        await closeWithoutSaving(doc);
      },
    },
    {
      name: "Summarize Document with distilbart-cnn's layout runs the model's own generation settings (4 beams, length penalty 2) when no setting says otherwise, and a set maximum wins",
      timeoutMs: 300_000,
      async run() {
        try {
          const summarize = async () => {
            const editor = await openUntitled(ARTICLE, 'markdown');
            editor.selection = new vscode.Selection(0, 0, 0, 0); // the whole document
            const outcome = await onHub(() => withSetting('summarize.model', BART, () => api.summarize(editor)));
            await closeWithoutSaving(editor.document);
            assert.equal(outcome.kind, 'inserted', 'message' in outcome ? outcome.message : outcome.kind);
            if (outcome.kind !== 'inserted') throw new Error('unreachable');
            return Object.fromEntries((outcome.result.external?.decoding ?? []).map((d) => [d.name, d]));
          };
          const own = await summarize();
          assert.deepEqual(
            { beams: own.beamSize?.value, lp: own.lengthPenalty?.value, max: own.maxLength?.value },
            { beams: 4, lp: 2, max: 140 },
          );
          assert.equal(own.beamSize?.from, 'model');
          const set = await withSetting('summarize.maxLength', 60, summarize);
          assert.equal(set.maxLength?.value, 60);
          assert.equal(set.maxLength?.from, 'setting');
          assert.equal(set.beamSize?.from, 'model');
        } finally {
          const hub = await started;
          started = undefined;
          await hub?.close();
        }
      },
    },
  ];
}
