/**
 * In-host tests of Round-Trip Paragraph: the reconstruction opens in a diff beside the original and
 * the document stays as it was; Apply replaces the paragraph as one edit that one Undo reverts, and
 * refuses once the document has changed; Cancel leaves everything as it was; unusable selections get
 * a clear message and no change; the commands (palette, diff title) reach the same code.
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApplyOutcome, DraftsmithApi, RoundTripOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, selectedUntitled, sleep, timedCommand, userTypes, waitFor } from './helpers';
import type { TestCase } from './runner';
import { toPanel } from '../../../extension/panelViews';

const FIRST =
  'The river rose after three days of rain. Farmers moved their cattle to the hills. The mayor opened the school as a shelter.';
const SECOND = 'By Friday the water had gone down. The town began to clean the streets.';
/** Two paragraphs: with the cursor in the first and nothing selected, only the first is round-tripped. */
const DOCUMENT = `# Flood\n\n${FIRST}\n\n${SECOND}\n`;

function describe(outcome: RoundTripOutcome | ApplyOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

async function needModelIn(extensionPath: string): Promise<void> {
  const file = path.join(extensionPath, 'models', 'roundtrip', 'model.json');
  await readFile(file, 'utf8').catch(() =>
    assert.fail(`${file} is missing: the round-trip model ships with the extension`),
  );
}

/** An editor on DOCUMENT with the cursor inside the first paragraph and nothing selected. */
async function cursorInFirstParagraph(): Promise<vscode.TextEditor> {
  const editor = await openUntitled(DOCUMENT);
  const at = new vscode.Position(2, 10);
  editor.selection = new vscode.Selection(at, at);
  return editor;
}

/** The diff tabs whose right side is this round trip's reconstruction. */
function diffTabs(uri: vscode.Uri): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === uri.toString());
}

const isRoundTripDiff = (t: vscode.Tab) =>
  t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'draftsmith-roundtrip';

async function closeRoundTripDiffs(): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(isRoundTripDiff);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}

/** An unusable selection or paragraph: the message matches, and nothing in the editor or the panel changes. */
async function expectRefused(
  api: DraftsmithApi,
  editor: vscode.TextEditor,
  kind: RoundTripOutcome['kind'],
  expected: RegExp,
): Promise<void> {
  const before = editor.document.getText();
  const shownBefore = api.insights.lastMessage();
  const diffsBefore = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(isRoundTripDiff).length;
  const outcome = await api.roundTrip(editor);
  assert.equal(outcome.kind, kind, describe(outcome));
  assert.match(describe(outcome), expected);
  assert.equal(editor.document.getText(), before);
  assert.equal(api.insights.lastMessage(), shownBefore, 'the panel was sent something');
  assert.equal(
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(isRoundTripDiff).length,
    diffsBefore,
    'a diff was opened',
  );
  await closeWithoutSaving(editor.document);
}

export function roundtripTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  const needModel = () => needModelIn(extensionPath);
  // Shared by the first two tests: the round trip shown, and the document it came from.
  let shown: { editor: vscode.TextEditor; outcome: Extract<RoundTripOutcome, { kind: 'shown' }> } | undefined;

  return [
    {
      name: 'Round-Trip Paragraph opens the reconstruction in a diff beside the original; the document does not change',
      async run() {
        await needModel();
        await closeRoundTripDiffs();
        const editor = await cursorInFirstParagraph();
        const outcome = await timedCommand('roundtrip', 'reconstruction shown in a diff', () => api.roundTrip(editor));
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        shown = { editor, outcome };
        assert.equal(editor.document.getText(), DOCUMENT, 'the document changed before Apply');
        const r = outcome.result;
        // The paragraph at the cursor, not the heading or the second paragraph.
        assert.equal(r.source, FIRST);
        assert.equal(r.input.length, 3);
        assert.ok(r.reconstruction.length > 0, 'the model wrote nothing back');
        // The diff: original sentences on the left, the reconstruction's on the right, one per line.
        const tabs = diffTabs(outcome.pending.reconstructionUri);
        assert.equal(tabs.length, 1, 'no diff tab for the reconstruction');
        const input = tabs[0].input as vscode.TabInputTextDiff;
        assert.equal(input.original.toString(), outcome.pending.originalUri.toString());
        const left = await vscode.workspace.openTextDocument(input.original);
        const right = await vscode.workspace.openTextDocument(input.modified);
        assert.equal(left.getText(), `${r.input.map((s) => s.text).join('\n')}\n`);
        assert.equal(right.getText(), `${r.output.map((s) => s.text).join('\n')}\n`);
        // Beside the original: another editor group than the document's.
        const docGroup = vscode.window.tabGroups.all.find((g) =>
          g.tabs.some(
            (t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === editor.document.uri.toString(),
          ),
        );
        assert.ok(docGroup && tabs[0].group.viewColumn !== docGroup.viewColumn, 'the diff is not beside the document');
        // The panel has the scores and the alignment (it is not opened for them).
        const message = api.insights.lastMessage();
        assert.ok(message?.type === 'roundtrip', 'the result did not reach the insights panel');
        assert.deepEqual(message, toPanel(r));
        assert.equal(r.scores.coherence.alignment.length, r.output.length);
        console.log(`    reconstruction: ${r.reconstruction.slice(0, 160)}`);
        console.log(
          `    BLEU ${r.scores.bleu.score.toFixed(2)}, ROUGE-1 ${r.scores.rouge1.f1.toFixed(3)}, ROUGE-2 ${r.scores.rouge2.f1.toFixed(3)}, ROUGE-W ${r.scores.rougeW.f1.toFixed(3)}, L ${r.scores.coherence.L}`,
        );
      },
    },
    {
      name: 'Apply replaces the paragraph with the reconstruction as one edit, and one Undo restores it exactly',
      async run() {
        await needModel();
        assert.ok(shown, 'needs the previous test to have shown a reconstruction');
        const { editor, outcome } = shown;
        const doc = editor.document;
        const applied = await outcome.pending.apply();
        assert.equal(applied.kind, 'applied', describe(applied));
        assert.equal(doc.getText(), `# Flood\n\n${outcome.result.reconstruction}\n\n${SECOND}\n`);
        assert.equal(diffTabs(outcome.pending.reconstructionUri).length, 0, 'the diff stayed open after Apply');
        // A second Apply (the notification's button after the title button) changes nothing more.
        assert.equal((await outcome.pending.apply()).kind, 'applied');
        assert.equal(doc.getText(), `# Flood\n\n${outcome.result.reconstruction}\n\n${SECOND}\n`);
        await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), DOCUMENT);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: "an edit after the diff opened: Apply refuses, the user's text stays as they left it, the reconstruction is offered in a new editor",
      async run() {
        await needModel();
        const editor = await cursorInFirstParagraph();
        const doc = editor.document;
        const outcome = await api.roundTrip(editor);
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        await userTypes(doc, 'Draft 2. ');
        const applied = await outcome.pending.apply();
        assert.equal(applied.kind, 'changed', describe(applied));
        if (applied.kind !== 'changed') return;
        assert.match(applied.message, /document changed since the round trip.*Open in New Editor/);
        assert.equal(doc.getText(), `Draft 2. ${DOCUMENT}`);
        assert.equal(applied.offer.text, outcome.result.reconstruction);
        const offered = await applied.offer.open();
        assert.equal(offered.document.getText(), outcome.result.reconstruction);
        assert.equal(doc.getText(), `Draft 2. ${DOCUMENT}`);
        await closeWithoutSaving(offered.document);
        await closeRoundTripDiffs();
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'cancel while the round trip runs: no diff, no change, nothing to apply',
      async run() {
        await needModel();
        await closeRoundTripDiffs();
        // A new engine: the request is still loading the model when the cancel arrives.
        api.engine.restart();
        const editor = await cursorInFirstParagraph();
        const cancel = new vscode.CancellationTokenSource();
        const pending = api.roundTrip(editor, cancel.token);
        await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
        cancel.cancel();
        const outcome = await pending;
        assert.equal(outcome.kind, 'cancelled', describe(outcome));
        await sleep(500); // a late result must not open a diff or change the text either
        assert.equal(editor.document.getText(), DOCUMENT);
        assert.equal(
          vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(isRoundTripDiff).length,
          0,
          'a diff was opened',
        );
        cancel.dispose();
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: "the commands: Round-Trip Paragraph on the active editor's selection, then Apply Round-Trip Reconstruction from the palette",
      async run() {
        await needModel();
        const editor = await selectedUntitled(FIRST);
        const outcome = await vscode.commands.executeCommand<RoundTripOutcome>('draftsmith.roundTrip');
        assert.equal(outcome?.kind, 'shown', outcome && describe(outcome));
        if (outcome?.kind !== 'shown') return;
        assert.equal(editor.document.getText(), FIRST);
        const applied = await vscode.commands.executeCommand<ApplyOutcome>('draftsmith.applyRoundTrip');
        assert.equal(applied?.kind, 'applied', applied && describe(applied));
        assert.equal(editor.document.getText(), outcome.result.reconstruction);
        // Nothing is left to apply.
        const again = await api.applyRoundTrip();
        assert.equal(again.kind, 'nothing', describe(again));
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'the cursor on an empty line: "put the cursor in a paragraph", no change',
      async run() {
        const editor = await openUntitled(DOCUMENT);
        editor.selection = new vscode.Selection(1, 0, 1, 0);
        await expectRefused(api, editor, 'empty', /put the cursor in a paragraph or select one/);
      },
    },
    {
      name: 'a selection of binary junk: "binary data", no change',
      async run() {
        await needModel();
        const junk = String.fromCharCode(...Array.from({ length: 600 }, (_, i) => 1 + ((i * 37) % 250)));
        await expectRefused(api, await selectedUntitled(junk), 'error', /binary data/);
      },
    },
    {
      name: 'a code block or a list: "not a paragraph of prose", no change',
      async run() {
        await needModel();
        await expectRefused(
          api,
          await selectedUntitled('```js\nconst x = 1;\nconsole.log(x);\n```'),
          'error',
          /code block.*not a paragraph of prose/,
        );
        await expectRefused(
          api,
          await selectedUntitled('- apples\n- bread\n- milk'),
          'error',
          /list.*not a paragraph of prose/,
        );
      },
    },
    {
      name: 'a paragraph in another script: "reads English text", no change',
      async run() {
        await needModel();
        await expectRefused(
          api,
          await selectedUntitled('东京是日本的首都。这座城市很大。'),
          'error',
          /reads English text/,
        );
      },
    },
    {
      name: 'a huge selection: the first sentences are round-tripped, the message says how many, the document is untouched',
      async run() {
        await needModel();
        await closeRoundTripDiffs();
        const text = 'The council met on Tuesday. Café owners asked for longer hours! '.repeat(8_000);
        const editor = await selectedUntitled(text);
        const outcome = await api.roundTrip(editor);
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        assert.equal(outcome.result.input.length, 8);
        assert.ok(
          outcome.notices.some((n) =>
            /read the first 8 of 16000 sentences.*draftsmith\.roundtrip\.maxSentences/.test(n),
          ),
          outcome.notices.join('\n'),
        );
        assert.equal(editor.document.getText(), text);
        await closeRoundTripDiffs();
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: "Markdown: the cursor in a list item: the model reads the item's prose only; Apply keeps the marker, the other item and the code block; one Undo",
      async run() {
        await needModel();
        await closeRoundTripDiffs();
        const tail = `- ${SECOND}\n\n\`\`\`sh\ncodeword --build\n\`\`\`\n`;
        const markdown = `# Flood\n\n- ${FIRST.replace('three days', '**three** days')}\n${tail}`;
        const editor = await openUntitled(markdown);
        editor.selection = new vscode.Selection(2, 0, 2, 0); // on the item's marker
        const outcome = await api.roundTrip(editor);
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        assert.equal(outcome.result.source, FIRST, "the model read something else than the item's words");
        assert.ok(
          outcome.result.readNotes?.some((n) =>
            /read as Markdown: the model read the prose of one paragraph or list item \(line 3\)/.test(n),
          ),
          JSON.stringify(outcome.result.readNotes),
        );
        assert.ok(
          outcome.notices.some((n) => /hold markup.*plain text/.test(n)),
          outcome.notices.join('\n'),
        );
        assert.equal(editor.document.getText(), markdown);
        const applied = await outcome.pending.apply();
        assert.equal(applied.kind, 'applied', describe(applied));
        assert.equal(editor.document.getText(), `# Flood\n\n- ${outcome.result.reconstruction}\n${tail}`);
        await vscode.window.showTextDocument(editor.document, { preview: false, preserveFocus: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(editor.document.getText(), markdown);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Markdown: the cursor in a code block: "not prose", no change',
      async run() {
        const editor = await openUntitled('# Build\n\nRun it.\n\n```sh\nnpm run build\n```\n');
        editor.selection = new vscode.Selection(5, 3, 5, 3);
        await expectRefused(api, editor, 'empty', /the cursor is in a code block, not prose/);
      },
    },
  ];
}
