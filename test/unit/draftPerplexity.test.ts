// `draftsmith score --perplexity` (issue 24, item 4): the drafts' perplexity under the built-in story
// LM beside the overlap metrics, in the full table and in a folder's table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const dir = tempDir('perplexity');
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const run = (...args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], { encoding: 'utf8', timeout: 300_000 });
const FLUENT = 'Once upon a time there was a little girl who loved to play in the garden.';
const SCRAMBLED = 'the the of to garden girl loved a play little in once';

test('--perplexity: a fluent draft is far likelier under the story LM than the same words scrambled; JSON and table carry it', () => {
  const ref = file('ref.txt', `${FLUENT}\n`);
  const ppl = (hyp: string) => {
    const r = run('--ref', ref, '--hyp', file('hyp.txt', `${hyp}\n`), '--perplexity', '--json');
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).perplexity as { perWord: number; perToken: number; tokens: number; words: number; model: string };
  };
  const fluent = ppl(FLUENT);
  const scrambled = ppl(SCRAMBLED);
  assert.ok(fluent.perWord > 1 && fluent.perToken > 1);
  assert.ok(scrambled.perWord > 10 * fluent.perWord, `fluent ${fluent.perWord}, scrambled ${scrambled.perWord}`);
  assert.equal(fluent.words, FLUENT.split(' ').length + 1);
  assert.match(fluent.model, /story/);
  const table = run('--ref', ref, '--hyp', file('hyp.txt', `${FLUENT}\n`), '--perplexity');
  assert.match(table.stdout, /\| Perplexity \(story LM, per word\) +\| [\d.]+ \|/);
  // Without the flag no model is loaded and no row is printed.
  assert.doesNotMatch(run('--ref', ref, '--hyp', ref).stdout, /Perplexity/);
});

test('--perplexity on a folder: a perplexity column, each draft\'s own and the corpus\'s pooled', () => {
  const drafts = path.join(dir, 'drafts');
  const refs = path.join(dir, 'refs');
  mkdirSync(drafts);
  mkdirSync(refs);
  writeFileSync(path.join(drafts, 'a.txt'), FLUENT);
  writeFileSync(path.join(drafts, 'b.txt'), SCRAMBLED);
  writeFileSync(path.join(refs, 'a.txt'), FLUENT);
  writeFileSync(path.join(refs, 'b.txt'), FLUENT);
  const r = run('--hyp', drafts, '--ref', refs, '--perplexity', '--csv');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /,perplexity$/);
  const last = (l: string) => Number(l.split(',').at(-1));
  assert.ok(last(lines[2]) > last(lines[1]), 'the scrambled draft has the higher perplexity');
  assert.ok(last(lines[3]) > last(lines[1]) && last(lines[3]) < last(lines[2]), 'the corpus figure lies between');
});
