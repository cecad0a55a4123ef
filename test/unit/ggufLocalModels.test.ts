/**
 * Choose Model's list of the GGUF models already on this computer: Ollama's (manifests naming blobs by
 * digest) and LM Studio's (publisher/repository folders), in their default places on each platform,
 * and the folders of draftsmith.gguf.folders; a listed Ollama blob (no .gguf name) runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { defaultPlaces, findLocalGgufs } from '../../extension/engine/gguf/localModels';
import type { StoryResult } from '../../extension/protocol';
import { fixture } from './helpers';
import { config, tempCache } from './hubTestKit';

const GGUF = fixture('gguf/smollm2-tiny.gguf');
const DIGEST = 'a'.repeat(64);

function home(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-home-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function put(file: string, content: string | Buffer = 'x'): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** An Ollama model folder as `ollama pull` leaves it: a manifest per model:tag, the weights as a blob. */
function ollama(models: string, name: string[], digest = DIGEST): string {
  const blob = path.join(models, 'blobs', `sha256-${digest}`);
  mkdirSync(path.dirname(blob), { recursive: true });
  copyFileSync(GGUF, blob);
  put(
    path.join(models, 'manifests', ...name),
    JSON.stringify({
      schemaVersion: 2,
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: `sha256:${'c'.repeat(64)}` },
      layers: [
        { mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${digest}`, size: 385984 },
        { mediaType: 'application/vnd.ollama.image.template', digest: `sha256:${'b'.repeat(64)}`, size: 10 },
      ],
    }),
  );
  return blob;
}

test("Ollama's and LM Studio's model folders are where each keeps them, on Linux, macOS and Windows", () => {
  const linux = defaultPlaces({ home: '/home/w', platform: 'linux', env: {} });
  assert.deepEqual(linux.ollama, ['/home/w/.ollama/models', '/usr/share/ollama/.ollama/models']);
  assert.deepEqual(linux.lmStudio, ['/home/w/.lmstudio/models', '/home/w/.cache/lm-studio/models']);
  assert.deepEqual(defaultPlaces({ home: '/Users/w', platform: 'darwin', env: {} }).ollama, [
    '/Users/w/.ollama/models',
  ]);
  const win = defaultPlaces({ home: 'C:\\Users\\w', platform: 'win32', env: {} });
  assert.equal(win.ollama.length, 1);
  assert.ok(win.ollama[0].startsWith('C:\\Users\\w') && win.ollama[0].includes('.ollama'));
  // OLLAMA_MODELS moves Ollama's folder, as Ollama itself reads it.
  assert.deepEqual(
    defaultPlaces({ home: '/home/w', platform: 'linux', env: { OLLAMA_MODELS: '/data/ollama' } }).ollama,
    ['/data/ollama'],
  );
});

test("the GGUF models on this computer: Ollama's by model:tag, LM Studio's and the added folders' by path, a split model once, no vision projector", (t) => {
  const h = home(t);
  const blob = ollama(path.join(h, '.ollama', 'models'), ['registry.ollama.ai', 'library', 'llama3.2', '1b']);
  ollama(path.join(h, '.ollama', 'models'), ['hf.co', 'bartowski', 'SmolLM2-GGUF', 'Q4_K_M'], 'd'.repeat(64));
  // A manifest whose blob is gone, and a file that is no manifest: skipped.
  put(
    path.join(h, '.ollama', 'models', 'manifests', 'registry.ollama.ai', 'library', 'gone', 'latest'),
    '{"layers":[]}',
  );
  put(path.join(h, '.ollama', 'models', 'manifests', 'registry.ollama.ai', 'library', 'junk', 'latest'), 'not json');
  const lms = path.join(h, '.lmstudio', 'models', 'lmstudio-community', 'Qwen2.5-0.5B-Instruct-GGUF');
  put(path.join(lms, 'Qwen2.5-0.5B-Instruct-Q4_K_M.gguf'));
  put(path.join(lms, 'mmproj-model-f16.gguf'));
  put(path.join(lms, 'README.md'));
  const big = path.join(h, '.cache', 'lm-studio', 'models', 'org', 'Big-GGUF');
  put(path.join(big, 'big-Q4_0-00001-of-00002.gguf'));
  put(path.join(big, 'big-Q4_0-00002-of-00002.gguf'));
  const extra = path.join(h, 'my-models');
  put(path.join(extra, 'draft.gguf'));

  const found = findLocalGgufs({ home: h, platform: 'darwin', env: {}, folders: [extra] });
  assert.deepEqual(
    found.map((m) => [m.source, m.name]),
    [
      ['ollama', 'hf.co/bartowski/SmolLM2-GGUF:Q4_K_M'],
      ['ollama', 'llama3.2:1b'],
      ['lm-studio', 'lmstudio-community/Qwen2.5-0.5B-Instruct-GGUF/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf'],
      ['lm-studio', 'org/Big-GGUF/big-Q4_0-00001-of-00002.gguf'],
      ['folder', 'draft.gguf'],
    ],
  );
  const llama = found.find((m) => m.name === 'llama3.2:1b')!;
  assert.equal(llama.file, blob);
  assert.equal(llama.bytes, 385984);
});

test('no Ollama or LM Studio here: an empty list, not an error', (t) => {
  assert.deepEqual(findLocalGgufs({ home: home(t), platform: 'linux', env: { OLLAMA_MODELS: '/nowhere' } }), []);
});

test("a model listed from Ollama's folder (a blob named by its digest) writes a story", async (t) => {
  const h = home(t);
  ollama(path.join(h, '.ollama', 'models'), ['registry.ollama.ai', 'library', 'tiny', 'latest']);
  const [model] = findLocalGgufs({ home: h, platform: 'linux', env: {} });
  const cfg = config({ cacheDir: tempCache(t), offline: true });
  const engine = new Engine(cfg, () => {});
  t.after(() => engine.configure(cfg));
  const r = (await engine.run({
    op: 'story',
    prompt: 'The rain fell for three days.',
    words: 10,
    sampling: { seed: 1 },
    model: { kind: 'gguf', file: model.file },
  })) as StoryResult;
  assert.equal(r.stats.model, model.file);
  assert.ok(r.stats.outputTokens > 0);
});
