/**
 * In-host tests of issue 9's document and limit guarantees: a result that arrives after the user
 * edited the document is offered in a new editor, never written over their text; a summary or essay
 * cut off at the length limit is inserted with a message that names the setting that sets it.
 */
import * as assert from 'node:assert/strict';
import type { DraftsmithApi, EssayOutcome, SummarizeOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, selectedUntitled, userTypes, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

function describe(outcome: SummarizeOutcome | EssayOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

export function hardeningTests(api: DraftsmithApi, sampleText: string): TestCase[] {
  return [
    {
      name: 'an edit while the summary is being written: the user\'s text stays as they left it, the summary is offered in a new editor',
      async run() {
        const editor = await openUntitled(sampleText);
        const doc = editor.document;
        const pending = api.summarize(editor);
        await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
        await userTypes(doc, 'Draft 2. ');
        const edited = `Draft 2. ${sampleText}`;
        assert.equal(doc.getText(), edited);

        const outcome = await pending;
        assert.equal(outcome.kind, 'changed', describe(outcome));
        if (outcome.kind !== 'changed') return;
        assert.match(outcome.message, /document changed while the summary was being written.*Open in New Editor/);
        assert.equal(doc.getText(), edited, 'the document holds more than the user\'s own edit');
        // The summary of the text as it was sent, as it would have been inserted (without the blank lines).
        const result = api.lastResult();
        assert.ok(result && result.source === sampleText, 'the result is not the summary of the text sent');
        assert.equal(outcome.offer.text, `Summary: ${result.summary}\n`);

        // The message's "Open in New Editor" runs this: a new untitled document with the summary.
        const offered = await outcome.offer.open();
        assert.ok(offered.document.isUntitled && offered.document !== doc, 'not a new untitled document');
        assert.equal(offered.document.getText(), outcome.offer.text);
        assert.equal(offered.document.languageId, doc.languageId);
        assert.equal(doc.getText(), edited, 'opening the offer touched the user\'s document');
        await closeWithoutSaving(offered.document);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'a summary cut off at draftsmith.summarize.maxLength is inserted, and its message names that setting',
      async run() {
        // 4 tokens is below the model's minimum summary length: the end token cannot come first.
        await withSetting('summarize.maxLength', 4, async () => {
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
        });
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
          assert.ok(outcome.result.candidates.every((c) => c.hitMaxLength?.maxLength === 16), 'an essay is not reported as cut off at 16 tokens');
          assert.equal(editor.document.getText(), `${topics}\n\n${outcome.essay}\n`);
          assert.ok(
            outcome.notices.some((n) => /limit of 16 tokens .* Raise draftsmith\.essay\.maxLength for a longer essay\.$/.test(n)),
            `no length-limit message naming draftsmith.essay.maxLength among ${JSON.stringify(outcome.notices)}`,
          );
          await closeWithoutSaving(editor.document);
        });
      },
    },
  ];
}

