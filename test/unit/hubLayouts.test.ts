/**
 * Every layout of the Hub fixtures (test/fixtures/hub/fixtures, written by hub_fixtures.py in the
 * layouts of the real repositories named in MIRRORS.json) through the repository path: the loopback
 * Hub's listing, the files fileChoice picks (the older decoder_model_merged layout opened with
 * model_file_name), downloaded and opened by transformers.js from the cache; and each data type the
 * fixture has, asked for first, opens from the files of that data type alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { chooseFiles, type Dtype, type HubModelKind } from '../../extension/engine/hub/fileChoice';
import { openHubModel } from '../../extension/engine/hub/hubModel';
import type { EngineConfig, EngineRequest } from '../../extension/protocol';
import { article, modelsDir } from './helpers';
import { HUB_FIXTURES, startLoopbackHub } from './loopbackHub';

interface Mirror {
  imitates: string;
  model_type: string;
  load: { dtype: Dtype; model_file_name?: string }[];
  files: { path: string; size: number }[];
}
const MIRRORS = (
  JSON.parse(readFileSync(path.join(HUB_FIXTURES, 'MIRRORS.json'), 'utf8')) as { repos: Record<string, Mirror> }
).repos;

const kindOf = (m: Mirror): HubModelKind =>
  m.model_type === 'bart' || m.model_type === 't5' ? 'seq2seq' : m.model_type === 'bert' ? 'encoder' : 'causal-lm';

for (const [id, mirror] of Object.entries(MIRRORS)) {
  test(`${id} (${mirror.imitates}'s layout) downloads the files fileChoice picks, exactly, and runs`, async (t) => {
    const hub = await startLoopbackHub();
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-layout-'));
    t.after(async () => {
      await hub.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    const kind = kindOf(mirror);
    const choice = chooseFiles(mirror.files, kind, id, kind === 'encoder' ? { prefer: 'fp32' } : {});
    const config: EngineConfig = {
      modelsDir,
      device: 'cpu',
      threads: 1,
      hub: { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 },
    };
    const log: string[] = [];
    const engine = new Engine(config, (_l, m) => log.push(m));
    const model = { kind: 'hub' as const, id };
    // An encoder runs as Score Draft's BERTScore; the float32 graph first (hubEncoder.ts), as here.
    const request: EngineRequest =
      kind === 'seq2seq'
        ? { op: 'summarize', text: article, decoding: { maxLength: 12 }, model }
        : kind === 'encoder'
          ? { op: 'score', hypothesis: 'The rain fell.', reference: 'It rained.', options: { bertscore: { model } } }
          : { op: 'story', prompt: 'Once upon a time', words: 5, sampling: { seed: 3 }, model };
    await engine.run(request);
    // Exactly the chosen files came, each once.
    const asked = hub.requests
      .filter((r) => r.startsWith(`/${id}/resolve/`))
      .map((r) => r.replace(/^\/[^/]+\/[^/]+\/resolve\/[^/]+\//, ''))
      .sort();
    assert.deepEqual(asked, choice.files.map((f) => f.path).sort());
    assert.equal(hub.sent.get(id), choice.totalBytes);
    const loaded = log.find((m) => m.startsWith(`loaded ${id} `)) ?? '';
    for (const g of choice.graphs) assert.ok(loaded.includes(g.file), `${loaded} / ${g.file}`);
    // transformers.js's own options for this layout (MIRRORS.json 'load') name the same file.
    const fileName = mirror.load.find((l) => l.dtype === choice.graphs[0].dtype)?.model_file_name;
    if (kind === 'causal-lm') assert.equal(choice.modelFileName, fileName);
  });
}

for (const [id, mirror] of Object.entries(MIRRORS)) {
  test(`${id}: each of its data types (${mirror.load.map((l) => l.dtype).join(', ')}) opens from its own files when asked for first`, async (t) => {
    const hub = await startLoopbackHub();
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-layout-'));
    t.after(async () => {
      await hub.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    const hubConfig = { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 };
    const log: string[] = [];
    const runtime = { device: 'cpu' as const, threads: 1, log: (_l: string, m: string) => log.push(m) };
    const watch = { progress: () => {}, isCancelled: () => false };
    for (const { dtype } of mirror.load) {
      const opened = await openHubModel({ kind: 'hub', id }, kindOf(mirror), 'the test', hubConfig, runtime, watch, {
        prefer: dtype,
      });
      try {
        assert.equal(opened.choice.graphs[0].dtype, dtype);
        assert.equal(opened.dtype, dtype);
      } finally {
        await opened.model.dispose();
      }
    }
  });
}
