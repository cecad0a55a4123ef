/**
 * draftsmith.hub.maxDownloadGB in the editor: a Hub model whose download is larger is asked about
 * first (a modal with its size), through the engine's worker; Download goes ahead, Cancel leaves
 * nothing in the cache; a model under the limit is never asked about.
 */
import { messages } from './vscodeStub';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_MAX_DOWNLOAD_GB, GB } from '../../extension/engine/hub/downloadLimit';
import { chooseFiles } from '../../extension/engine/hub/fileChoice';
import { EngineClient, EngineError } from '../../extension/host/engineClient';
import { askLargeDownload, DOWNLOAD_CHOICE } from '../../extension/host/largeDownload';
import type { DownloadQuestion, StoryResult } from '../../extension/protocol';
import { repoRoot } from './helpers';
import { HUB_MIRRORS, STORY_LM } from './loopbackHub';
import { config, files, tempCache, withHub } from './hubTestKit';

const workerPath = path.join(repoRoot, 'dist', 'worker.js');
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const story = {
  op: 'story' as const,
  prompt: 'The cat sat by the door.',
  words: 5,
  sampling: { seed: 1 },
  model: { kind: 'hub' as const, id: STORY_LM },
};

/** An engine client whose user answers `allow` to every question, and the questions asked. */
function client(
  t: { after(fn: () => Promise<void>): void },
  hub: { endpoint: string },
  cacheDir: string,
  allow: boolean,
  maxDownloadGB?: number,
) {
  const asked: DownloadQuestion[] = [];
  const c = new EngineClient(
    workerPath,
    config({ endpoint: hub.endpoint, cacheDir, ...(maxDownloadGB !== undefined ? { maxDownloadGB } : {}) }),
    quiet,
    {
      confirmDownload: (q) => {
        asked.push(q);
        return Promise.resolve(allow);
      },
    },
  );
  t.after(() => c.shutdown());
  return { c, asked };
}

test('a download over the limit is asked about with its size; Cancel leaves nothing, Download goes ahead', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const no = client(t, hub, cacheDir, false, 0.001);
  await assert.rejects(no.c.request(story), (e: unknown) => e instanceof EngineError && e.code === 'cancelled');
  assert.equal(no.asked.length, 1);
  const [q] = no.asked;
  assert.equal(q.model, STORY_LM);
  assert.equal(q.limitBytes, 1e6);
  assert.ok(q.bytes > 1e6, `${q.bytes}`);
  assert.deepEqual(files(cacheDir), [], 'a model the user declined left files in the cache');

  const yes = client(t, hub, cacheDir, true, 0.001);
  const r = (await yes.c.request(story)) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.deepEqual(yes.asked, [q]);
});

test('a model under the limit (the default, 4 GB) downloads without a question', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const { c, asked } = client(t, hub, cacheDir, false);
  const r = (await c.request(story)) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.deepEqual(asked, []);
});

test('the question is a modal that gives the size and the limit, and only Download allows', async () => {
  const question = { model: 'Qwen/Qwen2.5-7B-Instruct', bytes: 15_230_000_000, limitBytes: 4e9 };
  messages.answer = DOWNLOAD_CHOICE;
  assert.equal(await askLargeDownload(question), true);
  messages.answer = undefined;
  assert.equal(await askLargeDownload(question), false);
  const { shown } = messages;
  assert.equal(shown[0].message, 'Download Qwen/Qwen2.5-7B-Instruct? It is 15.2 GB.');
  assert.equal(shown[0].options.modal, true);
  assert.match(shown[0].options.detail ?? '', /more than 4\.0 GB, the limit draftsmith\.hub\.maxDownloadGB sets/);
  assert.deepEqual(shown[0].items, [DOWNLOAD_CHOICE]);
});

test('every recommended model downloads under the default limit, on the CPU and on a GPU', () => {
  for (const owner of readdirSync(HUB_MIRRORS)) {
    for (const name of readdirSync(path.join(HUB_MIRRORS, owner))) {
      const mirror = JSON.parse(readFileSync(path.join(HUB_MIRRORS, owner, name), 'utf8')) as {
        siblings: { rfilename: string; size: number; lfs?: { size: number } }[];
      };
      const files = mirror.siblings.map((s) => ({ path: s.rfilename, size: s.lfs?.size ?? s.size }));
      const kind = /distilbart/.test(name) ? 'seq2seq' : 'causal-lm';
      for (const device of ['cpu', 'cuda'] as const) {
        const chosen = chooseFiles(files, kind, name, { device });
        assert.ok(
          chosen.totalBytes <= DEFAULT_MAX_DOWNLOAD_GB * GB,
          `${owner}/${name} on ${device}: ${chosen.totalBytes} bytes would be asked about`,
        );
      }
    }
  }
});
