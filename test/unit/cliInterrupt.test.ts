/**
 * The CLI stopped mid-download, as a user stops it: Ctrl+C (SIGINT) cancels, removes the unfinished
 * file, says so in one line and exits 130; a process killed outright (SIGKILL) cannot clean up, and
 * the next download into the cache removes what it left, then downloads the file whole. A download
 * over --max-download-gb is refused before it starts, with its size and the flag that allows it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Engine } from '../../extension/engine/engine';
import { isTemporary } from '../../extension/engine/hub/cacheTemporaries';
import type { StoryResult } from '../../extension/protocol';
import { INTERRUPTED_EXIT, INTERRUPTED_LINE } from '../../extension/cli/interrupt';
import { parseArgs } from '../../extension/cli/args';
import { summarizeDocuments } from '../../extension/cli/summarizeDocuments';
import { CancelledError } from '../../extension/engine/errors';
import { repoRoot, tempDir } from './helpers';
import { HUB_FIXTURES, STORY_LM, STORY_LM_WEIGHTS, type LoopbackHub } from './loopbackHub';
import { config, files, tempCache, withHub } from './hubTestKit';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const ONNX = `${STORY_LM}/${STORY_LM_WEIGHTS}`;
const temporaries = (cacheDir: string) => files(cacheDir).filter((f) => isTemporary(f));

interface Run {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
}

/** `draftsmith story --model <the story fixture>` on the loopback Hub, asynchronously (the Hub runs in this process). */
function story(hub: LoopbackHub, cacheDir: string, more: string[] = []): Run {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'story',
      '--text',
      'The cat sat by the door.',
      '--max-words',
      '5',
      '--model',
      STORY_LM,
      '--hub-endpoint',
      hub.endpoint,
      ...more,
    ],
    { env: { ...process.env, DRAFTSMITH_CACHE: cacheDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  return {
    done: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr }))),
    kill: (signal) => child.kill(signal),
  };
}

/** Waits until the weights' temporary file has some bytes: the download is under way. */
async function midDownload(cacheDir: string, run: Run): Promise<void> {
  let exited = false;
  void run.done.then(() => (exited = true));
  for (const t0 = Date.now(); Date.now() - t0 < 60_000;) {
    if (exited) assert.fail(`the CLI ended before the download was under way: ${(await run.done).stderr}`);
    if (temporaries(cacheDir).some((f) => f.includes('model.onnx'))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('the download never started');
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('Ctrl+C mid-download: the CLI cancels, keeps no partial file, says so in one line and exits 130', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(ONNX, { slowBytesPerSecond: 200_000 });
  const run = story(hub, cacheDir);
  await midDownload(cacheDir, run);
  run.kill('SIGINT');
  const { code, signal, stderr } = await run.done;
  assert.equal(signal, null, 'killed by the signal instead of handling it');
  assert.equal(code, INTERRUPTED_EXIT, stderr);
  const said = stderr.split('\n').filter((l) => l.startsWith('draftsmith:'));
  assert.deepEqual(said, [INTERRUPTED_LINE], stderr);
  assert.deepEqual(temporaries(cacheDir), []);
  assert.ok(!existsSync(path.join(cacheDir, STORY_LM, STORY_LM_WEIGHTS)));
});

test('Ctrl+C while the CLI waits on standard input ends it the same way', async () => {
  const child = spawn(process.execPath, [CLI, 'summarize', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // More than a pipe holds: 'drain' comes once the CLI reads its input, i.e. once it has started
  // (and handles Ctrl+C); standard input then stays open, and the CLI waits for the rest.
  const full = !child.stdin.write('The council met on Tuesday. '.repeat(10_000));
  assert.ok(full, 'the pipe took it all: no way to tell when the CLI started');
  await new Promise((resolve) => child.stdin.once('drain', resolve));
  child.kill('SIGINT');
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, INTERRUPTED_EXIT, stderr);
  assert.equal(stderr.trim(), INTERRUPTED_LINE);
});

test('a download killed outright (SIGKILL) leaves its temporary; the next download removes it and fetches the file whole', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(ONNX, { slowBytesPerSecond: 200_000 });
  const run = story(hub, cacheDir);
  await midDownload(cacheDir, run);
  run.kill('SIGKILL');
  assert.equal((await run.done).signal, 'SIGKILL');
  const left = temporaries(cacheDir);
  assert.equal(left.length, 1, 'the killed download left no temporary: nothing to test');
  hub.behave.delete(ONNX);
  const log: string[] = [];
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), (_l, m) => log.push(m));
  const r = (await engine.run({
    op: 'story',
    prompt: 'The cat sat by the door.',
    words: 5,
    sampling: { seed: 1 },
    model: { kind: 'hub', id: STORY_LM },
  })) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.deepEqual(temporaries(cacheDir), []);
  assert.ok(
    log.some((m) => m.includes(left[0]) && /left over/.test(m)),
    log.join('\n'),
  );
  assert.equal(
    sha256(path.join(cacheDir, STORY_LM, STORY_LM_WEIGHTS)),
    sha256(path.join(HUB_FIXTURES, STORY_LM, STORY_LM_WEIGHTS)),
  );
});

test('a download over --max-download-gb is refused before it starts, naming its size and the flag (exit 1)', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const { code, stderr } = await story(hub, cacheDir, ['--max-download-gb', '0.001']).done;
  assert.equal(code, 1, stderr);
  assert.match(
    stderr,
    /^draftsmith: draftsmith\/story-gpt2 is a download of [\d.]+ MB, more than the 1\.0 MB that draftsmith\.hub\.maxDownloadGB allows; nothing of it was downloaded\. To allow it, give --max-download-gb 0\.1 \(or raise the setting\)\.$/m,
  );
  assert.deepEqual(files(cacheDir), []);
  assert.deepEqual(
    hub.requests.filter((r) => r.includes('/resolve/') && !r.endsWith('config.json')),
    [],
    'a file of the model was downloaded',
  );
});

test('Ctrl+C during a folder of documents ends the run, not only the file it was on', async () => {
  const dir = tempDir('interrupt-folder');
  for (const name of ['a.md', 'b.md', 'c.md'])
    writeFileSync(path.join(dir, name), '# Notes\n\nThe council met on Tuesday.\n');
  const ran: string[] = [];
  await assert.rejects(
    summarizeDocuments(parseArgs(['summarize', dir]), [dir], {
      request: (text) => ({ op: 'summarize', text }),
      run: (request) => {
        ran.push(request.text);
        return Promise.reject(new CancelledError());
      },
    }),
    CancelledError,
  );
  assert.equal(ran.length, 1, 'the files after the cancelled one were run');
});
