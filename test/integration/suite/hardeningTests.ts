/**
 * In-host tests of the document and limit guarantees: a result that arrives after the user
 * edited the document is offered in a new editor, never written over their text; a summary or essay
 * cut off at the length limit is inserted with a message that names the setting that sets it;
 * hostile documents are either left as they were or changed by one edit that one Undo reverts.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi, EssayOutcome, ScoreOutcome, SummarizeOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, selectedUntitled, userTypes, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

function describe(outcome: SummarizeOutcome | EssayOutcome | ScoreOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

/** Documents a user may have open (or paste), each run through every command that reads text. */
const HOSTILE_DOCUMENTS: readonly (readonly [string, string])[] = [
  ['binary bytes', String.fromCharCode(...Array.from({ length: 600 }, (_, i) => (i * 37) % 256))],
  [
    'NUL and control characters',
    'The council met.\u0000\u0000 It voted.\u0007 \u001b[31m red \u001b[0m and the bridge opened.',
  ],
  ['lone surrogates', 'A lone \uD800 high and \uDFFF low surrogate sit in this sentence about the bridge.'],
  [
    'right-to-left and mixed scripts',
    'שלום עולם. مرحبا بالعالم. 東京は日本の首都です。 The bridge opened \u202Eevil\u202C today.',
  ],
  ['emoji sequences', '👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 The family crossed the new bridge. 🎉'],
  [
    '1 MB of text',
    'The council met on Tuesday. Café owners — and 東京 visitors 👍🏽 — asked for longer hours! '.repeat(11_000),
  ],
];

/** VS Code may store the inserted line breaks as the document's own (CRLF); compared without that. */
const lf = (text: string) => text.replace(/\r\n/g, '\n');

/**
 * After a command on a hostile document: untouched when it did not insert; otherwise the text
 * before plus exactly `insertion`, and one Undo gives back the text before, byte for byte.
 */
async function expectOneEditOrNone(
  editor: vscode.TextEditor,
  before: string,
  what: string,
  outcome: SummarizeOutcome | EssayOutcome,
  insertion: string | undefined,
): Promise<void> {
  const doc = editor.document;
  if (insertion === undefined) {
    assert.equal(doc.getText(), before, `${what}: ${describe(outcome)}, yet the document changed`);
    return;
  }
  assert.equal(lf(doc.getText()), lf(before + insertion), `${what}: not one insertion after the text`);
  await vscode.window.showTextDocument(doc, { preview: false });
  await vscode.commands.executeCommand('undo');
  assert.equal(doc.getText(), before, `${what}: one Undo did not restore the document`);
}

export function hardeningTests(api: DraftsmithApi, sampleText: string): TestCase[] {
  return [
    {
      name: "an edit while the summary is being written: the user's text stays as they left it, the summary is offered in a new editor",
      async run() {
        const editor = await openUntitled(sampleText);
        const doc = editor.document;
        // A summary takes ~0.1 s, less than the edit below: a wide beam that a length
        // penalty of 5 keeps going to the length limit gives the edit its second or so.
        // The abstractive decoder with a wide beam: the extractive default finishes before any edit.
        const slowly = <T>(work: () => Promise<T>) =>
          withSetting('summarize.mode', 'abstractive', () =>
            withSetting('summarize.beamSize', 16, () =>
              withSetting('summarize.lengthPenalty', 5, () => withSetting('summarize.maxLength', 512, work)),
            ),
          );
        const { outcome, edited } = await slowly(async () => {
          const pending = api.summarize(editor);
          await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
          await userTypes(doc, 'Draft 2. ');
          const text = `Draft 2. ${sampleText}`;
          assert.equal(doc.getText(), text);
          return { outcome: await pending, edited: text };
        });
        assert.equal(outcome.kind, 'changed', describe(outcome));
        if (outcome.kind !== 'changed') return;
        assert.match(outcome.message, /document changed while the summary was being written.*Open in New Editor/);
        assert.equal(doc.getText(), edited, "the document holds more than the user's own edit");
        // The summary of the text as it was sent, as it would have been inserted (without the blank lines).
        const result = api.lastSummary();
        assert.ok(result && result.source === sampleText, 'the result is not the summary of the text sent');
        assert.equal(outcome.offer.text, `Summary: ${result.summary}\n`);

        // The message's "Open in New Editor" runs this: a new untitled document with the summary.
        const offered = await outcome.offer.open();
        assert.ok(offered.document.isUntitled && offered.document !== doc, 'not a new untitled document');
        assert.equal(offered.document.getText(), outcome.offer.text);
        assert.equal(offered.document.languageId, doc.languageId);
        assert.equal(doc.getText(), edited, "opening the offer touched the user's document");
        await closeWithoutSaving(offered.document);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'a summary cut off at draftsmith.summarize.maxLength is inserted, and its message names that setting',
      async run() {
        // 4 tokens is below the model's minimum summary length: the end token cannot come first.
        await withSetting('summarize.mode', 'abstractive', () =>
          withSetting('summarize.maxLength', 4, async () => {
            const editor = await openUntitled(sampleText);
            const outcome = await api.summarize(editor);
            assert.equal(outcome.kind, 'inserted', describe(outcome));
            if (outcome.kind !== 'inserted') return;
            assert.deepEqual(outcome.result.hitMaxLength, { maxLength: 4, limitedBy: 'request' });
            assert.equal(editor.document.getText(), `${sampleText}\n\nSummary: ${outcome.summary}\n`);
            const notice = outcome.notices.find((n) => /length limit/.test(n));
            assert.ok(notice, `no length-limit message among ${JSON.stringify(outcome.notices)}`);
            assert.match(notice, /limit of 4 tokens .* Raise draftsmith\.summarize\.maxLength for a longer summary\.$/);
            await closeWithoutSaving(editor.document);
          }),
        );
      },
    },
    {
      name: 'an essay cut off at draftsmith.essay.maxLength is inserted, and its message names that setting',
      async run() {
        // 16 tokens, the setting's minimum, is below the model's minimum essay length.
        await withSetting('essay.maxLength', 16, async () => {
          const topics = 'bee, frog, garden';
          const editor = await selectedUntitled(topics);
          const outcome = await api.essay(editor, undefined, async () => 0);
          assert.equal(outcome.kind, 'inserted', describe(outcome));
          if (outcome.kind !== 'inserted') return;
          assert.ok(
            outcome.result.candidates.every((c) => c.hitMaxLength?.maxLength === 16),
            'an essay is not reported as cut off at 16 tokens',
          );
          assert.equal(editor.document.getText(), `${topics}\n\n${outcome.essay}\n`);
          assert.ok(
            outcome.notices.some((n) =>
              /limit of 16 tokens .* Raise draftsmith\.essay\.maxLength for a longer essay\.$/.test(n),
            ),
            `no length-limit message naming draftsmith.essay.maxLength among ${JSON.stringify(outcome.notices)}`,
          );
          await closeWithoutSaving(editor.document);
        });
      },
    },
    {
      name: 'hostile documents (binary, NUL, lone surrogates, right-to-left, emoji, 1 MB): summarize, essay and score draft each leave the document as it was or change it by one edit that one Undo reverts',
      timeoutMs: 300_000,
      async run() {
        const reference = { text: sampleText, name: 'sample.md' };
        for (const [name, content] of HOSTILE_DOCUMENTS) {
          const editor = await openUntitled(content, 'plaintext');
          const doc = editor.document;
          const before = doc.getText(); // as VS Code holds it (it may have normalised line breaks)

          const summary = await api.summarize(editor);
          assert.ok(
            ['inserted', 'error', 'empty'].includes(summary.kind),
            `summarize on ${name}: ${describe(summary)}`,
          );
          await expectOneEditOrNone(
            editor,
            before,
            `summarize on ${name}`,
            summary,
            summary.kind === 'inserted' ? `\n\nSummary: ${summary.summary}\n` : undefined,
          );

          editor.selection = new vscode.Selection(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
          const essay = await api.essay(editor, undefined, async () => 0);
          assert.ok(['inserted', 'error', 'empty'].includes(essay.kind), `essay on ${name}: ${describe(essay)}`);
          await expectOneEditOrNone(
            editor,
            before,
            `essay on ${name}`,
            essay,
            essay.kind === 'inserted' ? `\n\n${essay.essay}\n` : undefined,
          );

          editor.selection = new vscode.Selection(0, 0, 0, 0);
          const score = await api.scoreDraft(editor, reference);
          assert.ok(['shown', 'error', 'empty'].includes(score.kind), `score draft on ${name}: ${describe(score)}`);
          assert.equal(doc.getText(), before, `score draft on ${name} changed the document`);
          console.log(`    ${name}: summarize ${summary.kind}, essay ${essay.kind}, score draft ${score.kind}`);
          await closeWithoutSaving(doc);
        }
      },
    },
  ];
}
