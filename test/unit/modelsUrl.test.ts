/**
 * Draftsmith models from a URL: a folder exported by models/train, served over
 * HTTP, is downloaded once with every file checked against model.json's sha256, and only a complete,
 * checked folder is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { urlCacheFolder } from '../../extension/engine/runtime/urlSource';
import type { EngineConfig } from '../../extension/protocol';
import { modelsDir } from './helpers';
import { startModelServer, type ModelServer } from './modelServer';

const ESSAY = { op: 'essay' as const, topics: 'library, students, exam', decoding: { maxLength: 12, beamSize: 2 } };

function setup(t: { after(fn: () => unknown): void }) {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-url-'));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  return cacheDir;
}

async function serve(t: { after(fn: () => Promise<void>): void }): Promise<ModelServer> {
  const s = await startModelServer(modelsDir);
  t.after(() => s.close());
  return s;
}

const config = (modelsUrl: string, cacheDir: string, offline = false): EngineConfig => ({
  modelsDir: path.join(os.tmpdir(), 'draftsmith-no-such-models'),
  modelsUrl,
  device: 'cpu',
  threads: 1,
  hub: { endpoint: 'https://huggingface.co/', cacheDir, offline, stallSeconds: 30 },
});

/** What the cache holds for this server: its folders (a half-written one would show as <name>.part-*). */
const kept = (server: ModelServer, cacheDir: string) => {
  const dir = urlCacheFolder(server.endpoint, cacheDir);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

test('a model folder from a URL downloads once with progress, every file checked, then loads from the cache with the server gone', async (t) => {
  const server = await serve(t);
  const cacheDir = setup(t);
  const progress: string[] = [];
  const r = await new Engine(config(server.endpoint, cacheDir), () => {}).run(ESSAY, {
    progress: (m) => progress.push(m),
  });
  assert.equal(r.op, 'essay');
  assert.ok(
    progress.some((m) => /^Downloading the essay model: file \d+ of \d+, [\d.]+ MB$/.test(m)),
    progress.join('\n'),
  );
  assert.deepEqual(kept(server, cacheDir), ['essay']);
  await server.close();
  const again = await new Engine(config(server.endpoint, cacheDir, true), () => {}).run(ESSAY);
  assert.equal(again.op, 'essay');
});

test('a served file that does not match its sha256 fails the load and keeps nothing', async (t) => {
  const server = await serve(t);
  const cacheDir = setup(t);
  server.behave.set('essay/decoder.onnx', 'corrupt');
  await assert.rejects(
    new Engine(config(server.endpoint, cacheDir), () => {}).run(ESSAY),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-model' &&
      /decoder\.onnx does not match its model\.json: sha256/.test(e.message),
  );
  assert.deepEqual(kept(server, cacheDir), []);
});

test('a download cut off mid-file, or a folder the server does not have, is reported and keeps nothing', async (t) => {
  const server = await serve(t);
  const cacheDir = setup(t);
  server.behave.set('essay/encoder.onnx', 'truncate');
  await assert.rejects(
    new Engine(config(server.endpoint, cacheDir), () => {}).run(ESSAY),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'model-unavailable' &&
      /essay model could not be downloaded/.test(e.message),
  );
  assert.deepEqual(kept(server, cacheDir), []);
  server.behave.set('essay/model.json', '404');
  await assert.rejects(
    new Engine(config(server.endpoint, cacheDir), () => {}).run(ESSAY),
    (e: unknown) =>
      e instanceof EngineError && e.code === 'model-unavailable' && /There is no essay model at/.test(e.message),
  );
  assert.deepEqual(kept(server, cacheDir), []);
});

test('offline, a folder not yet downloaded is refused without a request', async (t) => {
  const server = await serve(t);
  const cacheDir = setup(t);
  await assert.rejects(
    new Engine(config(server.endpoint, cacheDir, true), () => {}).run(ESSAY),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'model-unavailable' &&
      /has not been downloaded, and downloads are off/.test(e.message),
  );
  assert.deepEqual(server.requests, []);
});
