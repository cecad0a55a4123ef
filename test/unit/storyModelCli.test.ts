// `draftsmith story --model ...`: a Hub id or a folder instead of the built-in story
// model, --offline and --hub-endpoint, from a terminal. Nothing here reaches the network: a Hub
// model is either in a temporary download cache ($DRAFTSMITH_CACHE) or asked of a closed local port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { StoryResult } from '../../extension/protocol';
import { fixture, repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
/** A tiny GPT-2 in transformers.js's layout (config.json, tokenizer.json, onnx/model.onnx). */
const TINY = fixture(path.join('hub', 'draftsmith', 'story-gpt2'));
const skip = existsSync(path.join(TINY, 'onnx')) ? false : `no ${TINY}`;
const work = tempDir('story-model');

/** Runs the CLI in an empty folder (so "owner/name" is never a folder there) with its own cache. */
function cli(
  args: string[],
  cache = path.join(work, 'empty-cache'),
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [CLI, 'story', '--text', 'The cat sat by the door.', '--max-words', '8', '--seed', '3', ...args],
    {
      encoding: 'utf8',
      timeout: 120_000,
      cwd: work,
      env: { ...process.env, DRAFTSMITH_CACHE: cache },
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a --model the CLI cannot take is refused before anything loads (exit 2), saying what is accepted', () => {
  for (const [value, why] of [
    ['gpt2', /not just a name/],
    ['./no-such-folder', /no folder at/],
    ['Xenova/gpt2@', /revision/],
  ] as const) {
    const r = cli(['--model', value]);
    assert.equal(r.code, 2, `${value}: ${r.stderr}`);
    assert.match(r.stderr, /^draftsmith: --model: /m);
    assert.match(r.stderr, why);
    assert.match(r.stderr, /Hugging Face Hub model id \(owner\/name/);
    assert.equal(r.stdout, '');
  }
  const endpoint = cli(['--model', 'Xenova/distilgpt2', '--hub-endpoint', 'ftp://mirror.example']);
  assert.equal(endpoint.code, 2);
  assert.match(endpoint.stderr, /^draftsmith: --hub-endpoint is "ftp:\/\/mirror\.example", not a web address/m);
});

test("a folder in transformers.js's layout writes the story, and the result names the model", { skip }, () => {
  const r = cli(['--model', TINY, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const result = StoryResult.parse(JSON.parse(r.stdout));
  assert.ok(result.continuation.trim().length > 0);
  assert.equal(result.external?.architecture, 'gpt2');
  assert.ok(
    result.tokens.every((t) => t.gate === null),
    'a plain language model has no fusion gates',
  );
  assert.match(r.stderr, /^model: .*story-gpt2 \(gpt2\)/m);
  // A folder is read in place: no download line.
  assert.doesNotMatch(r.stderr, /Downloading/);
});

test('a Hub model that cannot be downloaded fails with the reason (exit 1), as other errors do', async () => {
  const port = await closedPort();
  const r = cli(['--model', 'draftsmith/not-downloaded', '--hub-endpoint', `http://127.0.0.1:${port}/`]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^draftsmith: .*draftsmith\/not-downloaded/m);
  assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.equal(r.stdout, '');
});

test('a Hub model already in the cache loads without the Hub', { skip }, async () => {
  const cache = mkdtempSync(path.join(work, 'cache-'));
  cpSync(TINY, path.join(cache, 'draftsmith', 'story-gpt2'), { recursive: true });
  const port = await closedPort();
  const r = cli(['--model', 'draftsmith/story-gpt2', '--hub-endpoint', `http://127.0.0.1:${port}/`], cache);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.trim().length > 0);
  assert.match(r.stderr, /^model: draftsmith\/story-gpt2 \(gpt2\)/m);
});

test('--offline: a cached Hub model loads', { skip }, () => {
  const cache = mkdtempSync(path.join(work, 'cache-'));
  cpSync(TINY, path.join(cache, 'draftsmith', 'story-gpt2'), { recursive: true });
  const r = cli(['--model', 'draftsmith/story-gpt2', '--offline'], cache);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^model: draftsmith\/story-gpt2 \(gpt2\)/m);
});

test('--offline: a Hub model not in the cache says so, naming the cache and the option', () => {
  const r = cli(['--model', 'draftsmith/not-downloaded', '--offline']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^draftsmith: draftsmith\/not-downloaded is not in the download cache .*--offline/m);
});
