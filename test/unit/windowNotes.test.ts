// What a command says when the model's window made it read only part of the text
// (extension/windowNotes.ts): the part read in words and characters, and how to choose another,
// in the editor's, the panel's and the CLI's own terms; and the CLI's story says it on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import {
  beforeCursorRead,
  INLINE_CHOOSE,
  inlineCutNote,
  STORY_CHOOSE,
  storyCutNote,
  SUMMARY_CHOOSE,
  summaryCutNote,
} from '../../extension/windowNotes';
import { countWords } from '../../extension/engine/text/words';
import { repoRoot } from './helpers';

test('a story continued from part of its prompt says how many words and characters it read', () => {
  const prompt = `${'Once the harbour was quiet. '.repeat(18)}Then the storm came over the hill.`;
  const usedFrom = prompt.length - 188;
  const usedPrompt = prompt.slice(usedFrom);
  const note = storyCutNote({ truncated: true, promptChars: prompt.length, usedFrom, usedPrompt }, 48);
  assert.equal(
    note,
    `the story so far is longer than the model reads (48 tokens): it continued from its last ${countWords(usedPrompt)} words (188 of ${prompt.length} characters)`,
  );
});

test('a story that read its whole prompt says nothing', () => {
  assert.equal(
    storyCutNote({ truncated: false, promptChars: 12, usedFrom: 0, usedPrompt: 'Once upon a.' }, 5),
    undefined,
  );
});

test('a summary of one window names the words and characters it covers, thousands grouped', () => {
  const source = `${'The council met on Tuesday and voted for the bridge. '.repeat(100)}The end.`;
  const usedChars = 2_000;
  const words = countWords(source.slice(0, usedChars));
  assert.equal(
    summaryCutNote({ truncated: true, usedChars, source, inputLimit: 1024 }),
    `the model reads one window (1,024 tokens): the summary covers the first ${words} words ` +
      `(2,000 of ${source.length.toLocaleString('en-US')} characters)`,
  );
  assert.equal(summaryCutNote({ truncated: false, usedChars: source.length, source }), undefined);
});

test('an inline suggestion names what it read of all the text before the cursor, not of the part sent', () => {
  // The editor sent the last 3,000 of 5,210 characters; the model read the last 188 of those.
  const sent = `${'word '.repeat(561)}and more.`.slice(-3_000);
  const onSent = {
    truncated: true,
    promptChars: sent.length,
    usedFrom: sent.length - 188,
    usedPrompt: sent.slice(-188),
  };
  const read = beforeCursorRead(onSent, 5_210);
  assert.deepEqual(read, { truncated: true, promptChars: 5_210, usedFrom: 5_210 - 188, usedPrompt: sent.slice(-188) });
  assert.equal(
    inlineCutNote(read, 48),
    `the suggestion continues the last ${countWords(sent.slice(-188))} words before the cursor ` +
      '(188 of 5,210 characters; the model reads 48 tokens)',
  );
  // All of a short text read: nothing to say; a long one cut only by the editor is still a cut.
  const whole = { truncated: false, promptChars: 40, usedFrom: 0, usedPrompt: 'x'.repeat(40) };
  assert.equal(inlineCutNote(beforeCursorRead(whole, 40)), undefined);
  assert.match(inlineCutNote(beforeCursorRead(whole, 4_000)) ?? '', /\(40 of 4,000 characters\)$/);
});

test('each place says how to choose the part read in its own terms', () => {
  assert.match(SUMMARY_CHOOSE.editor, /select it and run Summarize Document again/);
  assert.match(SUMMARY_CHOOSE.panel, /select it in the editor/);
  assert.match(SUMMARY_CHOOSE.cli, /--text/);
  assert.match(INLINE_CHOOSE, /select it and run Continue Story/);
  assert.match(STORY_CHOOSE.editor, /select that passage and run Continue Story again/);
  assert.match(STORY_CHOOSE.editor, /Select What It Read/);
  assert.match(STORY_CHOOSE.panel, /select that passage in the editor/);
  assert.match(STORY_CHOOSE.cli, /--text/);
});

test('the CLI story with a prompt longer than the model reads says so on stderr, with the words it read', () => {
  const prompt = Array.from(
    { length: 12 },
    (_, i) => `On day ${i + 1} the girl walked to the old mill by the river and waited for her brother.`,
  ).join(' ');
  const r = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'dist', 'cli.js'), 'story', '--text', prompt, '--max-words', '5', '--seed', '1', '--json'],
    { encoding: 'utf8', timeout: 180_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout) as { truncated: boolean; usedPrompt: string; usedFrom: number };
  assert.equal(result.truncated, true);
  const words = countWords(result.usedPrompt);
  assert.match(
    r.stderr,
    new RegExp(
      `^note: the story so far is longer than the model reads \\(\\d+ tokens\\): it continued from its last ${words} words \\(${prompt.length - result.usedFrom} of ${prompt.length} characters\\)\\. To choose what it reads, give that passage as FILE, - or --text\\.$`,
      'm',
    ),
  );
});
