/** Manage Models' engine side: what the download cache holds, deleting one model, and importing a folder to run by its id offline. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { Engine } from '../../extension/engine/engine';
import { deleteDownloaded, downloadedModels, importFolder } from '../../extension/engine/hub/downloads';
import type { StoryResult } from '../../extension/protocol';
import { modelsDir } from './helpers';
import { HUB_FIXTURES } from './loopbackHub';

function cache(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-downloads-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a folder copied from another machine, imported by its id, runs offline with no server at all', async (t) => {
  const cacheDir = cache(t);
  const m = importFolder(
    cacheDir,
    path.join(HUB_FIXTURES, 'fixtures', 'SmolLM2-135M-Instruct'),
    'HuggingFaceTB/SmolLM2-135M-Instruct',
  );
  assert.ok(m.bytes > 0);
  const engine = new Engine(
    {
      modelsDir,
      device: 'cpu',
      threads: 1,
      // Nothing listens there: any request would fail the run.
      hub: { endpoint: 'http://127.0.0.1:9/', cacheDir, offline: true, stallSeconds: 5 },
    },
    () => {},
  );
  const r = (await engine.run({
    op: 'story',
    prompt: 'The river',
    words: 3,
    sampling: { seed: 2 },
    model: { kind: 'hub', id: 'HuggingFaceTB/SmolLM2-135M-Instruct' },
  })) as StoryResult;
  assert.equal(r.external?.id, 'HuggingFaceTB/SmolLM2-135M-Instruct');
  const listed = downloadedModels(cacheDir);
  assert.deepEqual(
    listed.map((d) => d.id),
    ['HuggingFaceTB/SmolLM2-135M-Instruct'],
  );
  assert.equal(listed[0].bytes, m.bytes);
});

test('a download per revision is listed with its revision, largest first; delete removes one and nothing else', (t) => {
  const cacheDir = cache(t);
  const make = (rel: string, bytes: number) => {
    mkdirSync(path.join(cacheDir, rel, 'onnx'), { recursive: true });
    writeFileSync(path.join(cacheDir, rel, 'config.json'), '{}');
    writeFileSync(path.join(cacheDir, rel, 'onnx', 'model.onnx'), Buffer.alloc(bytes));
  };
  make('a/small', 10);
  make('b/big/0123abc', 1000);
  const listed = downloadedModels(cacheDir);
  assert.deepEqual(
    listed.map((d) => [d.id, d.revision, d.bytes]),
    [
      ['b/big', '0123abc', 1002],
      ['a/small', undefined, 12],
    ],
  );
  deleteDownloaded(cacheDir, listed[1].dir);
  assert.ok(!existsSync(path.join(cacheDir, 'a')), 'the emptied owner folder goes too');
  assert.ok(existsSync(listed[0].dir));
  assert.throws(() => deleteDownloaded(cacheDir, os.tmpdir()), /is not a downloaded model/);
  assert.throws(() => deleteDownloaded(cacheDir, cacheDir), /is not a downloaded model/);
});

test('an import with an id that is no owner/name, or from a folder that is no model, is refused and writes nothing', (t) => {
  const cacheDir = cache(t);
  const src = path.join(HUB_FIXTURES, 'fixtures', 'gpt2');
  assert.throws(() => importFolder(cacheDir, src, '../escape'), /is not a Hub id/);
  assert.throws(() => importFolder(cacheDir, src, 'a/..'), /is not a Hub id/);
  assert.throws(() => importFolder(cacheDir, os.tmpdir(), 'a/b'), /not a model in transformers.js's layout/);
  assert.deepEqual(downloadedModels(cacheDir), []);
});
