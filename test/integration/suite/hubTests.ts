/**
 * In-host tests of Hub models: draftsmith.story.model set to a Hugging Face Hub id, the
 * model downloaded from a loopback Hub (test/unit/loopbackHub.ts, started here, inside the extension
 * host) into the extension's global storage on first use, then run by Continue Story and Write a
 * Premise; a Hub id the server does not have, and downloads turned off, fail clearly and change
 * nothing; back to "built-in", the fusion model runs again.
 *
 * The download cache (<globalStorage>/hub) outlives each test: the first test downloads
 * draftsmith/story-gpt2, later ones use it or, where a download must be tried, ids never cached.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi } from '../../../extension/host/api';
import { describe, storySoFar } from './storyTests';
import { STORY_LM, STORY_LM_WEIGHTS, SUMMARIZER, startLoopbackHub, type LoopbackHub } from '../../unit/loopbackHub';
import { article as ARTICLE } from '../../unit/helpers';
import { closeWithoutSaving, openUntitled, withSetting } from './helpers';
import type { TestCase } from './runner';

const PROMPT = 'Once upon a time, a little girl named Lily found a red ball in the park.';
/** The request that downloads the model's weights (the engine takes the int8 ONNX file first). */
const WEIGHTS = new RegExp(`^/${STORY_LM}/resolve/[^/]+/${STORY_LM_WEIGHTS.replace('.', '\\.')}$`);

export function hubTests(api: DraftsmithApi): TestCase[] {
  let started: Promise<LoopbackHub> | undefined;
  const loopback = () => (started ??= startLoopbackHub());
  /** `work` with draftsmith.hub.endpoint the loopback Hub and draftsmith.story.model `model` (both removed after). */
  const withStoryModel = async <T>(
    model: string,
    work: (hub: LoopbackHub) => Promise<T>,
    more: Record<string, unknown> = {},
  ): Promise<T> => {
    const hub = await loopback();
    let run = () => work(hub);
    for (const [key, value] of Object.entries(more)) {
      const inner = run;
      run = () => withSetting(key, value, inner);
    }
    return withSetting('hub.endpoint', hub.endpoint, () => withSetting('story.model', model, run));
  };

  return [
    {
      name: 'Continue Story with a Hub model (draftsmith.story.model = draftsmith/story-gpt2) downloads it on first use and writes its story in; one Undo removes it',
      timeoutMs: 300_000,
      async run() {
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        const { outcome, downloads } = await withStoryModel(
          STORY_LM,
          async (hub) => {
            const outcome = await api.continueStory(editor);
            return { outcome, downloads: hub.requests.filter((r) => WEIGHTS.test(r)).length };
          },
          { 'story.words': 20 },
        );
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        // Downloaded from the loopback Hub (the cache in global storage was empty), and run
        // (the listing first, then each file the engine chose from it).
        assert.ok(downloads >= 1, 'the weights were not downloaded from the configured Hub endpoint');
        const result = outcome.result;
        assert.equal(result.external?.id, STORY_LM);
        assert.equal(result.external?.architecture, 'gpt2');
        assert.equal(result.fusion, false);
        assert.ok(
          result.tokens.every((t) => t.gate === null),
          'a Hub model reported fusion gates',
        );
        const story = result.continuation;
        assert.ok(story.trim().length > 0, 'the continuation is empty');
        assert.ok(
          outcome.text.endsWith(story) && outcome.text.trim() === story.trim(),
          `inserted ${JSON.stringify(outcome.text)} for the story ${JSON.stringify(story)}`,
        );
        assert.equal(doc.getText(), PROMPT + outcome.text);
        assert.equal(outcome.premise, undefined);
        console.log(
          `    story from ${STORY_LM} (${result.wordCount} words, ${result.stats.model}): ${story.slice(0, 120)}`,
        );
        // The panel gets the Hub model's story, marked as such.
        const shown = api.insights.lastMessage();
        assert.ok(
          shown?.type === 'story' && shown.result.external?.id === STORY_LM,
          'the Hub story did not reach the insights panel',
        );
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), PROMPT, 'one Undo did not restore the document exactly');
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'Write a Premise with the Hub model writes its premise as a paragraph of its own, without downloading the model again',
      timeoutMs: 240_000,
      async run() {
        const editor = await openUntitled('', 'plaintext');
        const { outcome, asked } = await withStoryModel(STORY_LM, async (hub) => {
          const before = hub.requests.length;
          const outcome = await api.writePremise(editor);
          return { outcome, asked: hub.requests.slice(before) };
        });
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.deepEqual(
          asked.filter((r) => WEIGHTS.test(r)),
          [],
          'the weights were downloaded again',
        );
        assert.equal(outcome.result.external?.id, STORY_LM);
        const premise = outcome.result.premise;
        assert.ok(premise.trim().length > 0, 'the premise is empty');
        assert.equal(editor.document.getText(), `${premise}\n\n`);
        console.log(`    premise from ${STORY_LM}: ${premise}`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'a Hub id the server does not have: Continue Story ends in an error saying it was not found, and the document is unchanged',
      async run() {
        const MISSING = 'draftsmith/no-such-model';
        const editor = await storySoFar(PROMPT);
        const { outcome, asked } = await withStoryModel(MISSING, async (hub) => {
          const outcome = await api.continueStory(editor);
          return {
            outcome,
            asked: hub.requests.some((r) => r.startsWith(`/${MISSING}/`) || r.startsWith(`/api/models/${MISSING}/`)),
          };
        });
        assert.equal(outcome.kind, 'error', describe(outcome));
        assert.match(describe(outcome), /draftsmith\/no-such-model was not found at http:\/\/127\.0\.0\.1:\d+/);
        assert.ok(asked, 'the configured Hub endpoint was never asked for the model');
        assert.equal(outcome.text, '');
        assert.equal(editor.document.getText(), PROMPT);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'with draftsmith.hub.offline on, a Hub model not yet downloaded is refused without a request, saying downloads are off',
      async run() {
        const NOT_CACHED = 'draftsmith/not-downloaded';
        const editor = await storySoFar(PROMPT);
        const { outcome, asked } = await withStoryModel(
          NOT_CACHED,
          async (hub) => {
            const before = hub.requests.length;
            const outcome = await api.continueStory(editor);
            return { outcome, asked: hub.requests.slice(before) };
          },
          { 'hub.offline': true },
        );
        assert.equal(outcome.kind, 'error', describe(outcome));
        assert.match(describe(outcome), /not in the download cache.*downloads are off/);
        assert.deepEqual(asked, [], 'a request went to the Hub while offline');
        assert.equal(editor.document.getText(), PROMPT);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Summarize Document with a Hub summarizer (draftsmith.summarize.model = draftsmith/summarize-taas) downloads it, inserts its summary, and one Undo removes it',
      timeoutMs: 300_000,
      async run() {
        const hub = await loopback();
        const editor = await openUntitled(ARTICLE, 'markdown');
        const doc = editor.document;
        editor.selection = new vscode.Selection(0, 0, 0, 0); // the whole document
        const outcome = await withSetting('hub.endpoint', hub.endpoint, () =>
          withSetting('summarize.model', SUMMARIZER, () => api.summarize(editor)),
        );
        assert.equal(
          outcome.kind,
          'inserted',
          'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind,
        );
        if (outcome.kind !== 'inserted') return;
        assert.ok(
          hub.requests.some((r) => r.startsWith(`/${SUMMARIZER}/resolve/`) && r.endsWith('.onnx')),
          'the summarizer was not downloaded from the configured Hub endpoint',
        );
        const shown = api.insights.lastMessage();
        assert.ok(
          shown?.type === 'summarize' && shown.result.external?.id === SUMMARIZER,
          "the Hub summary did not reach the insights panel, marked as the Hub model's",
        );
        assert.ok(
          shown?.type === 'summarize' &&
            shown.result.summary.length > 0 &&
            doc.getText().includes(shown.result.summary),
          'the summary is not in the document',
        );
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), ARTICLE, 'one Undo did not restore the document exactly');
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'back to "built-in", Continue Story runs the built-in fusion model again, without asking the Hub',
      async run() {
        const hub = await loopback();
        try {
          const editor = await storySoFar(PROMPT);
          const doc = editor.document;
          const before = hub.requests.length;
          const outcome = await withStoryModel('built-in', () => api.continueStory(editor), { 'story.words': 12 });
          assert.equal(outcome.kind, 'inserted', describe(outcome));
          if (outcome.kind !== 'inserted') return;
          assert.equal(
            outcome.result.external,
            undefined,
            `a Hub model wrote it: ${JSON.stringify(outcome.result.external)}`,
          );
          assert.equal(outcome.result.fusion, true);
          assert.ok(
            outcome.result.tokens.length > 0 && outcome.result.tokens.every((t) => t.gate !== null),
            'a token without fusion gates',
          );
          assert.equal(doc.getText(), PROMPT + outcome.text);
          assert.deepEqual(hub.requests.slice(before), [], 'the built-in model asked the Hub for something');
          await closeWithoutSaving(doc);
        } finally {
          await hub.close();
          started = undefined;
        }
      },
    },
  ];
}
