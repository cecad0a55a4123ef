/**
 * In-host tests of Continue Story and Write a Premise: the continuation streams into the editor
 * while the engine samples it and one Undo removes all of it; Stop keeps what was written; the
 * writer's own edits during streaming are never written over; with no prompt a premise comes first.
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DraftsmithApi, PremiseOutcome, StoryOutcome } from '../../../extension/host/api';
import { StreamedInsertion } from '../../../extension/host/streamedInsertion';
import { countWords } from '../../../extension/engine/text/words';
import { closeWithoutSaving, openUntitled, sleep, timedCommand, withSetting } from './helpers';
import type { TestCase } from './runner';

const PROMPT = 'The old lighthouse keeper had not spoken to anyone in years, until the night the boat came.';

async function needModelIn(extensionPath: string): Promise<void> {
  const file = path.join(extensionPath, 'models', 'story', 'model.json');
  await readFile(file, 'utf8').catch(() => assert.fail(`${file} is missing: the story model ships with the extension`));
}

export function describe(outcome: StoryOutcome | PremiseOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

/** An editor holding `text` with the cursor at its end: Continue Story continues all of it. */
export async function storySoFar(text: string): Promise<vscode.TextEditor> {
  const editor = await openUntitled(text, 'plaintext');
  const end = editor.document.positionAt(text.length);
  editor.selection = new vscode.Selection(end, end);
  return editor;
}

/** Counts the document's changes, and those made while the engine was still working on the request. */
function watchChanges(
  api: DraftsmithApi,
  doc: vscode.TextDocument,
  onFirst?: () => void,
): { all: number; whileWorking: number; dispose(): void } {
  const seen = { all: 0, whileWorking: 0, dispose: () => subscription.dispose() };
  const subscription = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.document !== doc || e.contentChanges.length === 0) return;
    seen.all++;
    if (api.engine.inFlight() > 0) seen.whileWorking++;
    if (seen.all === 1) onFirst?.();
  });
  return seen;
}

/**
 * The writer types `text` at the position `where()` gives, as a person would: the cursor goes
 * there and the text is typed (the 'type' command, which no document version guards, unlike an
 * extension's edit). Resolves with the offset the cursor was at.
 */
async function writerTypes(editor: vscode.TextEditor, where: () => vscode.Position, text: string): Promise<number> {
  const at = where();
  editor.selection = new vscode.Selection(at, at);
  await vscode.commands.executeCommand('type', { text });
  return editor.document.offsetAt(at);
}

/**
 * Continue Story on `editor` while the writer types `text` at `where()` as soon as the story starts
 * to appear. Resolves with the outcome, the offset typed at, and how many changes came after the typing.
 */
async function storyWhileTyping(
  api: DraftsmithApi,
  editor: vscode.TextEditor,
  where: () => vscode.Position,
  text: string,
  words: number,
) {
  let typed: Promise<number> | undefined;
  let done = false;
  let afterTyping = 0;
  const changes = watchChanges(api, editor.document, () => {
    typed = writerTypes(editor, where, text).finally(() => {
      done = true;
    });
  });
  const counter = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.document === editor.document && done) afterTyping++;
  });
  try {
    const outcome = await longStory(words, () => api.continueStory(editor));
    const typedAt = await typed;
    assert.ok(typedAt !== undefined, 'the writer never typed: the story did not start');
    return { outcome, typedAt, afterTyping };
  } finally {
    changes.dispose();
    counter.dispose();
  }
}

/**
 * The story settings for a test: a long continuation at a low temperature, so that it is still
 * streaming when the test acts (a small model at 0.8 may end a story after a few words).
 */
const longStory = <T>(words: number, work: () => Promise<T>) =>
  withSetting('story.words', words, () => withSetting('story.temperature', 0.3, work));

export function storyTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  const needModel = () => needModelIn(extensionPath);
  return [
    {
      name: 'Continue Story streams the continuation into the editor as it is written, and one Undo removes all of it',
      async run() {
        await needModel();
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        const changes = watchChanges(api, doc);
        const outcome = await timedCommand('story, 60 words', 'inserted story', () =>
          longStory(60, () => api.continueStory(editor)),
        );
        changes.dispose();
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const story = outcome.result.continuation;
        assert.ok(story.trim().length > 0, 'the continuation is empty');
        assert.equal(outcome.text, ` ${story}`, 'a space after the last word, then the story');
        assert.equal(doc.getText(), PROMPT + outcome.text);
        assert.equal(outcome.premise, undefined, 'a premise was written although there was a prompt');
        // Streamed: the text grew in several edits, some while the engine was still sampling.
        assert.ok(changes.all > 1, `the story arrived in ${changes.all} edit(s), not streamed`);
        assert.ok(changes.whileWorking > 0, 'nothing was written before the engine had finished');
        console.log(
          `    story (${outcome.result.wordCount} words in ${changes.all} edits, ${changes.whileWorking} while sampling): ${story.slice(0, 120)}…`,
        );
        // ONE undo step for all of it.
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), PROMPT, 'one Undo did not restore the story so far exactly');
        // The panel has the story, with a fusion gate pair for every token (the paper's Figure 8).
        const shown = api.insights.lastMessage();
        assert.ok(shown?.type === 'story', 'the story did not reach the insights panel');
        assert.equal(shown.view.tokens.length, outcome.result.tokens.length);
        assert.ok(
          shown.view.tokens.every((t) => t.gate !== null),
          'a token without fusion gates',
        );
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'streamed text with a lone carriage return, a CR LF split between pieces and an emoji split between pieces: the text reported written is the text the document holds',
      async run() {
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        const log = vscode.window.createOutputChannel('Draftsmith streaming test', { log: true });
        const insertion = new StreamedInsertion(editor, doc.positionAt(PROMPT.length), log);
        // A model may write any of these (a byte-level tokenizer can end a piece on a CR or half an emoji).
        for (const piece of [' one\rtwo', '\r', '\nthree ', '\uD83D', '\uDE00 four']) insertion.append(piece);
        const written = await insertion.finish();
        log.dispose();
        assert.equal(insertion.interrupted, false, 'our own edits were taken for the writer editing the story');
        const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
        assert.equal(written, ` one${eol}two${eol}three \u{1F600} four`);
        assert.equal(doc.getText(), PROMPT + written);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'a selected prompt is continued after the selection, which stays selected',
      async run() {
        await needModel();
        const editor = await openUntitled(`${PROMPT}\n\nNotes for later.`, 'plaintext');
        const selection = new vscode.Selection(0, 0, 0, PROMPT.length);
        editor.selection = selection;
        const outcome = await withSetting('story.words', 8, () => api.continueStory(editor));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.equal(editor.document.getText(), `${PROMPT}${outcome.text}\n\nNotes for later.`);
        assert.ok(outcome.result.wordCount <= 8, `${outcome.result.wordCount} words for a setting of 8`);
        assert.ok(editor.selection.isEqual(selection), 'the prompt is no longer the selection');
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Stop keeps what was written so far, writes nothing after it, and one Undo removes it',
      async run() {
        await needModel();
        // Stop must land while the story streams; a sampled story may end first: then once more.
        for (let attempt = 1; ; attempt++) {
          const editor = await storySoFar(PROMPT);
          const doc = editor.document;
          const stop = new vscode.CancellationTokenSource();
          // Stop as soon as the story starts to appear.
          const changes = watchChanges(api, doc, () => stop.cancel());
          const outcome = await longStory(300, () => api.continueStory(editor, stop.token));
          changes.dispose();
          stop.dispose();
          if (outcome.kind === 'inserted' && attempt < 3) {
            console.log(`    the story (${outcome.result.wordCount} words) ended before Stop; again`);
            await closeWithoutSaving(doc);
            continue;
          }
          assert.equal(outcome.kind, 'stopped', describe(outcome));
          assert.ok(outcome.text.trim().length > 0, 'nothing was kept');
          assert.match(describe(outcome), /written so far stays?/);
          assert.equal(doc.getText(), PROMPT + outcome.text);
          await sleep(500); // the engine may still send a few tokens: none of them is written
          assert.equal(doc.getText(), PROMPT + outcome.text, 'text was written after Stop');
          await vscode.window.showTextDocument(doc, { preview: false });
          await vscode.commands.executeCommand('undo');
          assert.equal(doc.getText(), PROMPT);
          await closeWithoutSaving(doc);
          return;
        }
      },
    },
    {
      name: 'Stop pressed at once leaves the document exactly as it was',
      async run() {
        await needModel();
        const editor = await storySoFar(PROMPT);
        const stop = new vscode.CancellationTokenSource();
        const pending = api.continueStory(editor, stop.token);
        stop.cancel();
        const outcome = await pending;
        stop.dispose();
        assert.equal(outcome.kind, 'stopped', describe(outcome));
        assert.equal(outcome.text, '');
        await sleep(500);
        assert.equal(editor.document.getText(), PROMPT);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: "an edit elsewhere while the story streams: the writer's text stays as typed and the story goes on after the prompt",
      async run() {
        await needModel();
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        const TITLE = 'The Keeper. ';
        // As soon as the story starts to appear, the writer adds a title at the top.
        const { outcome, afterTyping } = await storyWhileTyping(
          api,
          editor,
          () => new vscode.Position(0, 0),
          TITLE,
          60,
        );
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.ok(afterTyping > 0, 'the story did not go on after the title was typed');
        assert.equal(
          doc.getText(),
          TITLE + PROMPT + outcome.text,
          'the title, the prompt and the whole story, each whole and in place',
        );
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'typing into the story while it streams stops the streaming, keeps the typing, and offers the rest',
      async run() {
        await needModel();
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        const TYPED = ' mine!';
        // At the end of the text written so far: exactly where the next piece would go.
        const { outcome, typedAt } = await storyWhileTyping(
          api,
          editor,
          () => doc.positionAt(doc.getText().length),
          TYPED,
          300,
        );
        assert.equal(outcome.kind, 'changed', describe(outcome));
        if (outcome.kind !== 'changed') return;
        assert.match(outcome.message, /stopped writing into it.*Open in New Editor/);
        // The typing went where the cursor was (a piece of the story may have landed just before it).
        const text = doc.getText();
        const at = text.indexOf(TYPED);
        assert.ok(
          at >= typedAt && at <= PROMPT.length + outcome.text.length,
          `the typing is not where it was typed: ${JSON.stringify(text.slice(PROMPT.length))}`,
        );
        assert.equal(
          text.slice(0, at) + text.slice(at + TYPED.length),
          PROMPT + outcome.text,
          'the document holds more than the prompt, the story written before the edit, and the typing',
        );
        assert.ok(outcome.offer.text.length > 0, 'nothing was offered');
        await sleep(300);
        assert.equal(doc.getText(), text, 'text was written after the streaming stopped');
        const offered = await outcome.offer.open();
        assert.equal(offered.document.getText(), outcome.offer.text);
        await closeWithoutSaving(offered.document);
        await closeWithoutSaving(doc);
      },
    },
    {
      name: 'closing the document while the story streams stops it and offers all of the story, saying the document was closed',
      async run() {
        await needModel();
        const editor = await storySoFar(PROMPT);
        const doc = editor.document;
        let closing: Promise<void> | undefined;
        const changes = watchChanges(api, doc, () => {
          closing = closeWithoutSaving(doc);
        });
        try {
          const outcome = await longStory(300, () => api.continueStory(editor));
          await closing;
          assert.ok(closing, 'the story never started');
          assert.equal(outcome.kind, 'changed', describe(outcome));
          if (outcome.kind !== 'changed') return;
          assert.match(outcome.message, /document was closed.*Open in New Editor shows all of it/);
          assert.ok(doc.isClosed);
          // Written before the close, and what came after: the offer holds the whole story.
          assert.ok(outcome.offer.text.startsWith(outcome.text), 'the offer does not begin with what was written');
          assert.ok(outcome.offer.text.trim().length > 0, 'nothing was offered');
          const offered = await outcome.offer.open();
          assert.equal(offered.document.getText(), outcome.offer.text);
          await closeWithoutSaving(offered.document);
        } finally {
          changes.dispose();
        }
      },
    },
    {
      name: 'Write a Premise on an empty document writes a premise as a paragraph of its own, the cursor after it',
      async run() {
        await needModel();
        const editor = await openUntitled('', 'plaintext');
        const outcome = await api.writePremise(editor);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const premise = outcome.result.premise;
        assert.ok(premise.trim().length > 0, 'the premise is empty');
        assert.equal(editor.document.getText(), `${premise}\n\n`);
        assert.ok(
          editor.selection.active.isEqual(editor.document.positionAt(editor.document.getText().length)),
          'the cursor is not after the premise',
        );
        console.log(`    premise: ${premise}`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Continue Story on more than the model reads says what it read and how to choose, not only in the log',
      async run() {
        await needModel();
        const long = Array.from({ length: 8 }, () => PROMPT).join(' ');
        const editor = await storySoFar(long);
        const outcome = await withSetting('story.words', 8, () => api.continueStory(editor));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const r = outcome.result;
        assert.equal(r.truncated, true, 'the prompt fit the model: make it longer');
        const note = outcome.notices.find((n) => /longer than the model reads/.test(n)) ?? '';
        const words = countWords(r.usedPrompt);
        assert.match(
          note,
          new RegExp(`its last ${words} words \\(${long.length - r.usedFrom} of ${long.length} characters\\)`),
        );
        assert.match(note, /select that passage and run Continue Story again/);
        // What it read is the end of the story so far, as the note says.
        assert.ok(long.endsWith(r.usedPrompt));
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Continue Story with no prompt writes a premise first and the story from it, one Undo for both',
      async run() {
        await needModel();
        const editor = await openUntitled('', 'plaintext');
        const doc = editor.document;
        const outcome = await withSetting('story.words', 20, () => api.continueStory(editor));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.ok(outcome.premise && outcome.premise.trim().length > 0, 'no premise was written');
        assert.equal(outcome.result.usedPrompt, outcome.premise, 'the story was not written from the premise');
        assert.equal(doc.getText(), `${outcome.premise}\n\n${outcome.result.continuation}`);
        await vscode.window.showTextDocument(doc, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(doc.getText(), '', 'one Undo did not remove the premise and the story');
        await closeWithoutSaving(doc);
      },
    },
  ];
}
