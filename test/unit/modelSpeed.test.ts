/**
 * Manage Models' speed measurement and recommendation: the engine times a downloaded Hub model (the
 * tiny SmolLM2 fixture as a folder) and a GGUF file (the project's tiny GGUF fixture) on the path a
 * rewrite takes, releases the model afterwards, refuses the built-in models and stops on Cancel; the
 * manager keeps the numbers per folder, device and threads (a changed download, other threads or a
 * hand-edited entry count as not measured), says what a 150-word rewrite takes, and recommends the
 * best model within the wait the writer accepts, or names the fastest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { CancelledError, EngineError } from '../../extension/engine/errors';
import { downloadedModels } from '../../extension/engine/hub/downloads';
import {
  describeSpeed,
  keepMeasurement,
  licenceOf,
  measurementOf,
  modelShape,
  recommend,
  REWRITE_OUTPUT_TOKENS,
  rewriteSeconds,
  SPEEDS_KEY,
  type Measurement,
  type SpeedStore,
} from '../../extension/host/modelSpeeds';
import { SPEED_DECODE_TOKENS, SPEED_PROMPT_TOKENS, type SpeedResult } from '../../extension/protocol';
import { fixture } from './helpers';
import { config, tempCache } from './hubTestKit';
import { countSessions } from './sessionCounter';

const HUB_SMOL = fixture('hub/fixtures/SmolLM2-135M-Instruct');
const GGUF = fixture('gguf/smollm2-tiny.gguf');

function engine(t: { after(fn: () => void): void }): Engine {
  return new Engine(config({ cacheDir: tempCache(t), offline: true }), () => {});
}

function checkNumbers(r: SpeedResult, promptTokens: number, decodeTokens: number): void {
  assert.equal(r.op, 'speed');
  assert.equal(r.promptTokens, promptTokens);
  assert.equal(r.decodeTokens, decodeTokens, 'every token is written: the end tokens are held back');
  assert.ok(r.firstTokenMs > 0 && r.loadMs > 0 && r.decodeMs > 0, JSON.stringify(r));
  assert.ok(Math.abs(r.tokensPerSecond - (decodeTokens * 1000) / r.decodeMs) < 1e-6 * r.tokensPerSecond);
}

test("Measure Speed times a downloaded Hub model's first token on a 200-token prompt and its tokens/s over 32 tokens, then releases it", async (t) => {
  const sessions = countSessions();
  t.after(() => sessions.restore());
  const e = engine(t);
  const progress: string[] = [];
  const r = await e.run(
    { op: 'speed', model: { kind: 'folder', dir: HUB_SMOL } },
    { progress: (m) => progress.push(m) },
  );
  checkNumbers(r, SPEED_PROMPT_TOKENS, SPEED_DECODE_TOKENS);
  assert.equal(r.device, 'cpu');
  assert.ok(progress.some((m) => /reading a 200-token prompt/.test(m)) && progress.some((m) => /32 of 32/.test(m)));
  // Released once measured: measuring every model does not keep them all loaded.
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(sessions.created > 0);
  assert.equal(sessions.released, sessions.created, 'the measured model is released after the measurement');
});

test('Measure Speed times a GGUF file through llama.cpp', async (t) => {
  const r = await engine(t).run({
    op: 'speed',
    model: { kind: 'gguf', file: GGUF },
    promptTokens: 48,
    decodeTokens: 8,
  });
  checkNumbers(r, 48, 8);
  assert.match(r.dtype, /\S/);
});

test('Measure Speed refuses the built-in models, and stops on Cancel', async (t) => {
  const e = engine(t);
  await assert.rejects(
    e.run({ op: 'speed', model: { kind: 'built-in' } }),
    (err: unknown) => err instanceof EngineError && err.code === 'bad-request' && /built-in/.test(err.message),
  );
  let cancelled = false;
  await assert.rejects(
    e.run(
      { op: 'speed', model: { kind: 'folder', dir: HUB_SMOL } },
      { progress: (m) => void (/tokens written/.test(m) && (cancelled = true)), isCancelled: () => cancelled },
    ),
    (err: unknown) => err instanceof CancelledError,
  );
});

// ---- what the manager keeps and recommends ---------------------------------------------------------

class MemoryStore implements SpeedStore {
  readonly values = new Map<string, unknown>();
  get(key: string): unknown {
    return this.values.get(key);
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}

const result = (firstTokenMs: number, tokensPerSecond: number): SpeedResult => ({
  op: 'speed',
  model: 'm',
  device: 'cpu',
  dtype: 'q4',
  loadMs: 100,
  promptTokens: SPEED_PROMPT_TOKENS,
  firstTokenMs,
  decodeTokens: 32,
  decodeMs: (32 * 1000) / tokensPerSecond,
  tokensPerSecond,
});

const measured = (firstTokenMs: number, tokensPerSecond: number, promptTokens = SPEED_PROMPT_TOKENS): Measurement => ({
  dir: '/m',
  stamp: 's',
  device: 'cpu',
  threads: 2,
  dtype: 'q4',
  ranOn: 'cpu',
  loadMs: 1,
  promptTokens,
  firstTokenMs,
  tokensPerSecond,
  at: '2026-01-01T00:00:00.000Z',
});

test("a 150-word rewrite's expected time is the first token on a 200-token prompt plus 200 tokens at the measured rate", () => {
  assert.equal(REWRITE_OUTPUT_TOKENS, 200);
  assert.equal(rewriteSeconds(measured(1500, 20)), 1.5 + 10);
  // A prompt the model's context cut short: its first-token time scaled to 200 tokens.
  assert.equal(rewriteSeconds(measured(500, 40, 100)), 1 + 5);
  assert.equal(describeSpeed(measured(1500, 20)), 'first token 1.5 s · 20 tokens/s · 150-word rewrite ≈ 12 s');
  assert.equal(describeSpeed(measured(45, 8.25)), 'first token 45 ms · 8.3 tokens/s · 150-word rewrite ≈ 24 s');
});

test('the recommendation is the largest measured model within the wait; with none within it, the fastest; unmeasured models are not weighed', () => {
  const small = { model: 'small', rank: 1, measurement: measured(200, 60) }; // ≈ 3.5 s
  const mid = { model: 'mid', rank: 2, measurement: measured(800, 25) }; // ≈ 8.8 s
  const big = { model: 'big', rank: 3, measurement: measured(3000, 8) }; // ≈ 28 s
  const unmeasured = { model: 'huge', rank: 9, measurement: undefined };
  const all = [small, mid, big, unmeasured];
  assert.deepEqual(recommend(all, 30), { kind: 'fits', model: 'big', seconds: 28 });
  assert.deepEqual(recommend(all, 10), { kind: 'fits', model: 'mid', seconds: 8.8 });
  assert.equal(recommend(all, 1).kind, 'none-fits');
  assert.deepEqual(recommend(all, 1), { kind: 'none-fits', fastest: 'small', seconds: 0.2 + 200 / 60 });
  assert.deepEqual(recommend([unmeasured], 30), { kind: 'none-measured' });
});

test('a measurement holds for the folder as it was, on the same device and threads; a hand-edited entry is dropped, not trusted', async () => {
  const store = new MemoryStore();
  const machine = { device: 'cpu', threads: 2 };
  await keepMeasurement(store, '/cache/a', 'stamp-1', machine, result(400, 30));
  await keepMeasurement(store, '/cache/b', 'stamp-2', machine, result(900, 12));
  const a = measurementOf(store, '/cache/a', 'stamp-1', machine);
  assert.equal(a?.tokensPerSecond, 30);
  assert.equal(measurementOf(store, '/cache/b', 'stamp-2', machine)?.firstTokenMs, 900);
  assert.equal(
    measurementOf(store, '/cache/a', 'stamp-changed', machine),
    undefined,
    'a changed download is re-measured',
  );
  assert.equal(measurementOf(store, '/cache/a', 'stamp-1', { device: 'cpu', threads: 1 }), undefined);
  assert.equal(measurementOf(store, '/cache/a', 'stamp-1', { device: 'cuda', threads: 2 }), undefined);
  // Hand-edited: a rate that is no number. That entry is dropped; the other still reads.
  const raw = store.get(SPEEDS_KEY) as Record<string, Record<string, unknown>>;
  const keyA = Object.keys(raw).find((k) => k.startsWith(path.resolve('/cache/a')));
  assert.ok(keyA);
  raw[keyA].tokensPerSecond = 'fast';
  store.values.set(SPEEDS_KEY, raw);
  assert.equal(measurementOf(store, '/cache/a', 'stamp-1', machine), undefined);
  assert.equal(measurementOf(store, '/cache/b', 'stamp-2', machine)?.tokensPerSecond, 12);
  store.values.set(SPEEDS_KEY, 'garbage');
  assert.equal(measurementOf(store, '/cache/b', 'stamp-2', machine), undefined);
});

test("a downloaded model's stamp changes when one of its files does; config.json says which models are language models, and the larger ranks higher", (t) => {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-speeds-'));
  t.after(() => rmSync(cache, { recursive: true, force: true }));
  const dir = path.join(cache, 'fixtures', 'SmolLM2-135M-Instruct');
  cpSync(HUB_SMOL, dir, { recursive: true });
  const [before] = downloadedModels(cache);
  writeFileSync(path.join(dir, 'onnx', 'model_q4.onnx'), 'replaced');
  const [after] = downloadedModels(cache);
  assert.notEqual(after.stamp, before.stamp);

  const smol = modelShape(HUB_SMOL);
  assert.equal(smol?.causal, true);
  assert.equal(modelShape(fixture('hub/fixtures/distilbart-cnn-12-6'))?.causal, false);
  assert.equal(modelShape(fixture('hub/fixtures/all-MiniLM-L6-v2'))?.causal, false);
  // SmolLM2-135M's and Qwen2.5-0.5B's real shapes: about 0.13 and 0.49 billion parameters.
  const shaped = (name: string, c: object) => {
    mkdirSync(path.join(cache, name), { recursive: true });
    writeFileSync(path.join(cache, name, 'config.json'), JSON.stringify({ architectures: ['X'], ...c }));
    return modelShape(path.join(cache, name))?.parameters ?? 0;
  };
  const arch = (a: string) => ({ architectures: [a] });
  const small = shaped('small', {
    ...arch('LlamaForCausalLM'),
    hidden_size: 576,
    num_hidden_layers: 30,
    intermediate_size: 1536,
    vocab_size: 49152,
  });
  const large = shaped('large', {
    ...arch('Qwen2ForCausalLM'),
    hidden_size: 896,
    num_hidden_layers: 24,
    intermediate_size: 4864,
    vocab_size: 151936,
  });
  assert.ok(Math.abs(small / 0.135e9 - 1) < 0.1 && Math.abs(large / 0.494e9 - 1) < 0.1, `${small} ${large}`);
  assert.equal(modelShape(cache), undefined, 'a folder without config.json');
});

test("a model's licence: the recommended list's, else its model card's front matter, else none", (t) => {
  assert.equal(licenceOf('onnx-community/Llama-3.2-1B-Instruct', '/nowhere'), 'Llama 3.2 Community License');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-card-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(licenceOf('someone/model', dir), undefined);
  writeFileSync(path.join(dir, 'README.md'), '---\nlibrary_name: transformers.js\nlicense: mit\n---\n# A model\n');
  assert.equal(licenceOf('someone/model', dir), 'mit');
});
