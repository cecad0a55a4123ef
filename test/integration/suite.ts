/**
 * The in-host integration tests: this module runs INSIDE VS Code's extension host (the
 * extensionTestsPath contract of @vscode/test-electron) and exports run(), which throws on failure.
 * It drives the real extension through the API that activate() returns and through its commands.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi, SummarizeOutcome } from '../../extension/host/api';
import { closeWithoutSaving, openUntitled, sampleDocument, sleep, waitFor, withSetting } from './suite/helpers';
import { essayTests } from './suite/essayTests';
import { ggufTests } from './suite/ggufTests';
import { hardeningTests } from './suite/hardeningTests';
import { hubTests } from './suite/hubTests';
import { hubLayoutTests } from './suite/hubLayoutTests';
import { checksTests } from './suite/checksTests';
import { loadTests } from './suite/loadTests';
import { replyTests } from './suite/replyTests';
import { rewriteTests } from './suite/rewriteTests';
import { roundtripTests } from './suite/roundtripTests';
import { runTests, TestCase } from './suite/runner';
import { scoreTests } from './suite/scoreTests';
import { scoreDraftsTests } from './suite/scoreDraftsTests';
import { sectionsTests } from './suite/sectionsTests';
import { storyTests } from './suite/storyTests';
import { inlineTests } from './suite/inlineTests';

const EXTENSION_ID = 'draftsmith.draftsmith';

function describe(outcome: SummarizeOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension<DraftsmithApi>(EXTENSION_ID);
  assert.ok(extension, `extension ${EXTENSION_ID} is not installed in this VS Code`);
  const api = await extension.activate();
  const sample = await sampleDocument();

  // Shared by (a) and (b): the document summarized in (a) is the one (b) undoes.
  let summarized: { doc: vscode.TextDocument; original: string } | undefined;

  const tests: TestCase[] = [
    {
      name: 'an empty document gives a clear message and no change',
      async run() {
        const editor = await openUntitled('   \n\t\n  ');
        const before = editor.document.getText();
        const outcome = await api.summarize(editor);
        assert.equal(outcome.kind, 'empty', describe(outcome));
        assert.match(describe(outcome), /nothing to summarize/);
        assert.equal(editor.document.getText(), before);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'summarize inserts a summary, not a copy of the input, after the document text',
      async run() {
        const doc = sample.uri
          ? await vscode.workspace.openTextDocument(sample.uri)
          : await vscode.workspace.openTextDocument({ content: sample.text, language: 'markdown' });
        const editor = await vscode.window.showTextDocument(doc, { preview: false });
        editor.selection = new vscode.Selection(0, 0, 0, 0); // empty selection: the whole document
        const original = doc.getText();
        const started = performance.now();
        const outcome = await api.summarize(editor);
        // Printed, never asserted: the model card and closing notes quote it.
        console.log(`summarize: ${Math.round(performance.now() - started)} ms from command to inserted summary`);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        summarized = { doc, original };
        const summary = outcome.summary;
        assert.ok(summary.trim().length > 0, 'the summary is empty');
        assert.equal(doc.getText(), `${original}\n\nSummary: ${summary}\n`);
        // A summary may quote a sentence (the model can copy names and phrases), but it must not be the input.
        assert.notEqual(summary.trim(), original.trim(), 'the summary is a copy of the input');
        assert.ok(
          summary.length < original.length / 2,
          `the summary is not shorter than the input: ${JSON.stringify(summary)}`,
        );
        assert.equal(api.lastSummary(), outcome.result);
        assert.equal(outcome.result.source, original);
        // The model ended this summary well inside the default length limit: no message about that.
        assert.equal(outcome.result.hitMaxLength, null);
        assert.deepEqual(
          outcome.notices.filter((n) => /length limit/.test(n)),
          [],
        );
        console.log(`    summary: ${summary}`);
      },
    },
    {
      name: 'one undo restores the document exactly',
      async run() {
        assert.ok(summarized, 'needs the previous test to have inserted a summary');
        const { doc, original } = summarized;
        await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), original);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'a second Summarize Document, the engine and the model loaded, inserts its summary too',
      async run() {
        const editor = await openUntitled(sample.text);
        const started = performance.now();
        const outcome = await api.summarize(editor);
        // Printed, never asserted (the bench reads it from test/integration/.out/in-host.log).
        console.log(
          `summarize (engine warm): ${Math.round(performance.now() - started)} ms from command to inserted summary`,
        );
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'cancel mid-generation leaves the document unchanged',
      async run() {
        // A long text, summarized by the abstractive decoder (the extractive default takes ~0.2 s), so the
        // request is still running when the cancel arrives.
        const editor = await openUntitled([sample.text, sample.text, sample.text].join('\n\n'));
        const before = editor.document.getText();
        const cancel = new vscode.CancellationTokenSource();
        const outcome = await withSetting('summarize.mode', 'abstractive', async () => {
          const pending = api.summarize(editor, cancel.token);
          await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
          await sleep(5);
          cancel.cancel();
          return pending;
        });
        assert.equal(outcome.kind, 'cancelled', describe(outcome));
        await sleep(500); // a late result must not be inserted either
        assert.equal(editor.document.getText(), before);
        cancel.dispose();
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'a worker crash fails the request clearly and the next summarize works',
      async run() {
        const editor = await openUntitled(sample.text);
        const before = editor.document.getText();
        // The abstractive decoder: still running when the crash comes (the extractive default is quicker).
        const failed = await withSetting('summarize.mode', 'abstractive', async () => {
          const pending = api.summarize(editor);
          await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
          api.engine.crashForTest();
          return pending;
        });
        assert.equal(failed.kind, 'error', describe(failed));
        assert.match(describe(failed), /engine stopped unexpectedly/);
        assert.match(describe(failed), /Try again/);
        assert.equal(editor.document.getText(), before);

        const retried = await api.summarize(editor);
        assert.equal(retried.kind, 'inserted', describe(retried));
        if (retried.kind === 'inserted')
          assert.equal(editor.document.getText(), `${before}\n\nSummary: ${retried.summary}\n`);
        await closeWithoutSaving(editor.document);
      },
    },
    ...hardeningTests(api, sample.text),
    // Long Markdown documents, section by section.
    ...sectionsTests(api, sample.text),
    // Before Show Insights: they check that an essay does not open the panel by itself.
    ...essayTests(api, extension.extensionPath),
    ...storyTests(api, extension.extensionPath),
    // Inline suggestions: off by default, then on.
    ...inlineTests(api),
    // Hub models: a loopback Hub started in this extension host; also before Show Insights.
    ...hubTests(api),
    ...hubLayoutTests(api),
    // Prose checks: diagnostics kept to the text while it changes.
    ...checksTests(),
    // Also before Show Insights: a round trip does not open the panel by itself either.
    ...roundtripTests(api, extension.extensionPath),
    ...replyTests(api, extension.extensionPath),
    // Rewrite Selection with the instruct fixture from a loopback Hub; before Show Insights too.
    ...rewriteTests(api),
    ...ggufTests(api, extension.extensionPath),
    {
      name: 'Show Insights opens the insights webview panel',
      async run() {
        await vscode.commands.executeCommand('draftsmith.showInsights');
        const isInsights = (tab: vscode.Tab): boolean =>
          tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('draftsmith.insights');
        await waitFor(
          () => vscode.window.tabGroups.all.some((group) => group.tabs.some(isInsights)),
          'a Draftsmith Insights tab',
          10_000,
          50,
        );
      },
    },
    ...scoreTests(api, extension.extensionPath),
    ...scoreDraftsTests(api, extension.extensionPath),
    ...loadTests(api),
  ];

  await runTests(tests);
}
