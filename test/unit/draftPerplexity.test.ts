// `draftsmith score --perplexity`: the drafts' perplexity under the built-in story
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
const run = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
const FLUENT = 'Once upon a time there was a little girl who loved to play in the garden.';
const SCRAMBLED = 'the the of to garden girl loved a play little in once';

test('--perplexity: a fluent draft is far likelier under the story LM than the same words scrambled; JSON and table carry it', () => {
  const ref = file('ref.txt', `${FLUENT}\n`);
  const ppl = (hyp: string) => {
    const r = run('--ref', ref, '--hyp', file('hyp.txt', `${hyp}\n`), '--perplexity', '--json');
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).perplexity as {
      perWord: number;
      perToken: number;
      tokens: number;
      words: number;
      model: string;
    };
  };
  const fluent = ppl(FLUENT);
  const scrambled = ppl(SCRAMBLED);
  assert.ok(fluent.perWord > 1 && fluent.perToken > 1);
  assert.ok(scrambled.perWord > 10 * fluent.perWord, `fluent ${fluent.perWord}, scrambled ${scrambled.perWord}`);
  assert.equal(fluent.words, FLUENT.split(' ').length + 1);
  assert.match(fluent.model, /story/);
  const table = run('--ref', ref, '--hyp', file('hyp.txt', `${FLUENT}\n`), '--perplexity');
  assert.match(table.stdout, /\| Perplexity per word +\| [\d.]+ \|/);
  // Without the flag no model is loaded and no row is printed.
  assert.doesNotMatch(run('--ref', ref, '--hyp', ref).stdout, /Perplexity/);
});

test("--perplexity on a folder: a perplexity column, each draft's own and the corpus's pooled", () => {
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

test('Score Draft with draftsmith.score.perplexity: the engine scores the draft on its story model, as the CLI does; a long draft is read whole, in windows', async () => {
  const { Engine } = await import('../../extension/engine/engine');
  const { modelsDir } = await import('./helpers');
  const engine = new Engine({ modelsDir, device: 'cpu', threads: 1 }, () => {});
  const progress: string[] = [];
  const r = await engine.run(
    { op: 'score', hypothesis: FLUENT, reference: FLUENT, options: { perplexity: true } },
    { progress: (m) => progress.push(m) },
  );
  const p = r.scores.perplexity;
  assert.ok(p, 'the score carries the perplexity');
  assert.ok(progress.includes('Loading the story model…'), progress.join(' | '));
  const cli = JSON.parse(
    run('--ref', file('r1.txt', `${FLUENT}\n`), '--hyp', file('h1.txt', `${FLUENT}\n`), '--perplexity', '--json')
      .stdout,
  ).perplexity as { perWord: number; tokens: number };
  assert.ok(Math.abs(p.perWord - cli.perWord) < 1e-6 * cli.perWord, `engine ${p.perWord}, CLI ${cli.perWord}`);
  assert.equal(p.tokens, cli.tokens);
  assert.equal(
    (await engine.run({ op: 'score', hypothesis: FLUENT, reference: FLUENT })).scores.perplexity,
    undefined,
    'not asked: none',
  );
  // 120 sentences, far past the decoder's 256 target tokens: every token counts (not the first 256).
  const long = Array.from({ length: 120 }, () => FLUENT).join(' ');
  const q = (await engine.run({ op: 'score', hypothesis: long, reference: FLUENT, options: { perplexity: true } }))
    .scores.perplexity;
  assert.ok(q && q.tokens > 10 * p.tokens, `${q?.tokens} tokens`);
  assert.equal(q.words, 120 * FLUENT.split(' ').length + 1);
});
