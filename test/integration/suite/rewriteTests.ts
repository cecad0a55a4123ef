/**
 * In-host tests of Rewrite Selection: the instruct fixture (tiny random weights with SmolLM2's real
 * chat template) downloaded from a loopback Hub started here, run on the paragraph at the cursor of
 * a Markdown document, its changes kept or dropped one by one, written as one edit that one Undo
 * reverts; nothing written into a document changed meanwhile; with no instruct model, a message
 * and, for Rephrase only, the built-in Round-Trip.
 *
 * The tiny random model writes only undecodable bytes (each shown as U+FFFD), never a word of the
 * text: the paragraph holds two U+FFFD of its own, which the rewrite keeps, so that the rewrite is
 * several changes apart (around each) and one can be kept while another is dropped. For the prose
 * checks of the changes, a copy of the fixture whose tokenizer spells that byte " teh" writes
 * "teh teh teh …" instead: a change that brings in a misspelling, every time.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi, RewriteOutcome } from '../../../extension/host/api';
import { HUB_FIXTURES, startLoopbackHub, type LoopbackHub, type RepoSpec } from '../../unit/loopbackHub';
import { closeWithoutSaving, openUntitled, userTypes, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

const MODEL = 'fixtures/SmolLM2-135M-Instruct';
const PARAGRAPH = 'The old bridge \uFFFD was closed on Tuesday \uFFFD and the council met.';
const DOCUMENT = `# Minutes\n\n${PARAGRAPH}\n\n\`\`\`sh\nmake report\n\`\`\`\n`;

const TYPO_MODEL = 'fixtures/SmolLM2-135M-Instruct-teh';

/** The instruct fixture, its tokenizer spelling " teh" for the one token the tiny random model writes. */
function typoRepo(): RepoSpec {
  const dir = path.join(HUB_FIXTURES, MODEL);
  const tokenizer = JSON.parse(readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> };
  };
  const vocab = tokenizer.model.vocab;
  // The byte the model writes (a lone UTF-8 byte, shown as U+FFFD); no prompt of plain English holds it.
  vocab['Ġteh'] = vocab['É'];
  delete vocab['É'];
  return { dir, files: { 'tokenizer.json': JSON.stringify(tokenizer) } };
}

const rewriteDiff = () =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .map((t) => t.input)
    .find(
      (i): i is vscode.TabInputTextDiff =>
        i instanceof vscode.TabInputTextDiff && i.modified.scheme === 'draftsmith-rewrite',
    );

const describe = (o: RewriteOutcome) => ('message' in o ? `${o.kind}: ${o.message}` : o.kind);

/** The editor on the document with the cursor in the paragraph. */
async function atParagraph(): Promise<vscode.TextEditor> {
  const editor = await openUntitled(DOCUMENT, 'markdown');
  const at = editor.document.positionAt(DOCUMENT.indexOf('closed'));
  editor.selection = new vscode.Selection(at, at);
  return editor;
}

export function rewriteTests(api: DraftsmithApi): TestCase[] {
  let started: Promise<LoopbackHub> | undefined;
  const withModel = async <T>(key: 'rewrite.model' | 'essay.model', work: () => Promise<T>): Promise<T> => {
    const hub = await (started ??= startLoopbackHub());
    return withSetting('hub.endpoint', hub.endpoint, () => withSetting(key, MODEL, work));
  };

  return [
    {
      name: 'Rewrite Selection streams the rewrite into a diff, keeps one change and drops another as one edit of the paragraph only, and one Undo restores it',
      timeoutMs: 300_000,
      async run() {
        const editor = await atParagraph();
        const doc = editor.document;
        let shown = '';
        const outcome = await withModel('rewrite.model', () =>
          api.rewriteSelection(editor, undefined, {
            ask: { preset: 'grammar' },
            review: async (changes, result) => {
              // The diff beside the text shows the rewrite, streamed there while it was written.
              const diff = vscode.window.tabGroups.all
                .flatMap((g) => g.tabs)
                .map((t) => t.input)
                .find(
                  (i): i is vscode.TabInputTextDiff =>
                    i instanceof vscode.TabInputTextDiff && i.modified.scheme === 'draftsmith-rewrite',
                );
              assert.ok(diff, 'no rewrite diff is open');
              const side = await vscode.workspace.openTextDocument(diff.modified);
              await waitFor(() => side.getText() === result.rewrite, 'the diff to show the rewrite', 10_000, 20);
              shown = side.getText();
              assert.equal(result.source, PARAGRAPH, 'only the paragraph was sent');
              assert.ok(changes.length >= 2, `${changes.length} changes`);
              return changes.map((_, i) => i === 0);
            },
          }),
        );
        assert.equal(outcome.kind, 'applied', describe(outcome));
        if (outcome.kind !== 'applied') return;
        assert.equal(shown, outcome.result.rewrite);
        const first = outcome.result.changes[0];
        const expected = PARAGRAPH.slice(0, first.start) + first.after + PARAGRAPH.slice(first.end);
        assert.equal(outcome.text, expected, 'the first change kept, the others dropped');
        assert.equal(
          doc.getText(),
          DOCUMENT.replace(PARAGRAPH, expected),
          'the heading and the code block are as they were',
        );
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), DOCUMENT, 'one Undo restores the paragraph');
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'Rewrite Selection marks a change that adds a prose-check finding, in the review and on the diff, and drops it when the writer does',
      timeoutMs: 180_000,
      async run() {
        const hub = await (started ??= startLoopbackHub());
        hub.repos.set(TYPO_MODEL, typoRepo());
        const text = '# Notes\n\nThe bridge was closed.\n';
        const editor = await openUntitled(text, 'markdown');
        const at = editor.document.positionAt(text.indexOf('bridge'));
        editor.selection = new vscode.Selection(at, at);
        let marks: readonly vscode.Diagnostic[] = [];
        let diffSide: vscode.Uri | undefined;
        const outcome = await withSetting('hub.endpoint', hub.endpoint, () =>
          withSetting('rewrite.model', TYPO_MODEL, () =>
            api.rewriteSelection(editor, undefined, {
              ask: { preset: 'grammar' },
              review: async (changes, result, findings) => {
                assert.match(result.rewrite, /^teh teh/, 'the fixture writes "teh"');
                assert.equal(changes.length, 1);
                assert.ok(
                  findings[0].some((f) => f.family === 'spelling' && f.flagged === 'teh'),
                  `the change is marked with the misspelling: ${JSON.stringify(findings)}`,
                );
                // The diff marks it too: a diagnostic on the rewrite's side that says what the change adds.
                diffSide = rewriteDiff()?.modified;
                assert.ok(diffSide, 'no rewrite diff is open');
                const side = diffSide;
                await waitFor(() => vscode.languages.getDiagnostics(side).length > 0, 'the diff to mark the change');
                marks = vscode.languages.getDiagnostics(side);
                return changes.map(() => false);
              },
            }),
          ),
        );
        assert.equal(outcome.kind, 'kept-none', describe(outcome));
        assert.equal(marks.length, 1);
        assert.match(marks[0].message, /^This change adds: .*“teh”/);
        assert.equal(marks[0].source, 'Draftsmith');
        assert.equal(editor.document.getText(), text, 'the marked change dropped, nothing written');
        if (diffSide) assert.equal(vscode.languages.getDiagnostics(diffSide).length, 0, 'the marks go with the diff');
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Rewrite Selection writes nothing into a document changed while the changes were reviewed, and offers the text instead',
      timeoutMs: 120_000,
      async run() {
        const editor = await atParagraph();
        const doc = editor.document;
        const outcome = await withModel('rewrite.model', () =>
          api.rewriteSelection(editor, undefined, {
            ask: { instruction: 'Make it formal.' },
            review: async (changes) => {
              await userTypes(doc, 'Typed meanwhile. ');
              return changes.map(() => true);
            },
          }),
        );
        assert.equal(outcome.kind, 'changed', describe(outcome));
        assert.equal(doc.getText(), `Typed meanwhile. ${DOCUMENT}`);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'with draftsmith.rewrite.model built-in, Rewrite Selection runs the essay model when it is an instruct model',
      timeoutMs: 120_000,
      async run() {
        const editor = await atParagraph();
        const outcome = await withModel('essay.model', () =>
          api.rewriteSelection(editor, undefined, { ask: { preset: 'shorter' }, review: async () => undefined }),
        );
        assert.equal(outcome.kind, 'kept-none', describe(outcome));
        if (outcome.kind === 'kept-none') assert.match(outcome.result.stats.model, /SmolLM2-135M-Instruct/);
        assert.equal(editor.document.getText(), DOCUMENT, 'nothing kept, nothing written');
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'an essay model that is no instruct model is refused for rewriting, saying why, and the text stays as it was',
      timeoutMs: 120_000,
      async run() {
        const editor = await atParagraph();
        const hub = await (started ??= startLoopbackHub());
        const outcome = await withSetting('hub.endpoint', hub.endpoint, () =>
          withSetting('essay.model', 'fixtures/distilgpt2', () =>
            api.rewriteSelection(editor, undefined, {
              ask: { preset: 'shorter' },
              review: async () => assert.fail('no review without an instruct model'),
            }),
          ),
        );
        assert.equal(outcome.kind, 'error', describe(outcome));
        assert.match(describe(outcome), /no chat template.*instruct model/s);
        assert.equal(editor.document.getText(), DOCUMENT);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'with no instruct model, Rewrite Selection says so and changes nothing; Rephrase may run on the built-in Round-Trip instead',
      timeoutMs: 120_000,
      async run() {
        const editor = await atParagraph();
        const none = await api.rewriteSelection(editor, undefined, {
          ask: { preset: 'shorter' },
          review: async () => assert.fail('no review without a model'),
          fallback: true,
        });
        assert.equal(none.kind, 'no-model', describe(none));
        assert.match(describe(none), /instruct model.*Choose Model/s);
        const rephrase = await api.rewriteSelection(editor, undefined, {
          ask: { preset: 'rephrase' },
          review: async () => assert.fail('Round-Trip has its own review'),
          fallback: true,
        });
        assert.equal(rephrase.kind, 'round-trip', describe(rephrase));
        if (rephrase.kind === 'round-trip') assert.equal(rephrase.outcome.kind, 'shown');
        assert.equal(editor.document.getText(), DOCUMENT);
        await closeWithoutSaving(editor.document);
      },
    },
  ];
}
