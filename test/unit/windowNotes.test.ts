// What a command says when the model's window made it read only part of the text
// (extension/windowNotes.ts): the part read in words and characters, and how to choose another,
// in the editor's, the panel's and the CLI's own terms; and the CLI's story says it on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { STORY_CHOOSE, storyCutNote } from '../../extension/windowNotes';
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

test('each place says how to choose the part read in its own terms', () => {
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
