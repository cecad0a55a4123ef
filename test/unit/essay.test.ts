// The shipped essay model (models/essay): the exported ONNX graphs compute what PyTorch computed,
// and what a writer selects — five words, one word, too many, other scripts — gets an essay or a
// clear message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { EssaySystem } from '../../extension/engine/systems/essay';
import { EngineError } from '../../extension/engine/errors';
import { float32Tensor, int64Tensor, openSession } from '../../extension/engine/runtime/onnx';
import { emptyCaches, feedCaches, layerViews, readCaches } from '../../extension/engine/runtime/layerCaches';
import { fixture, modelsDir } from './helpers';

const dir = path.join(modelsDir, 'essay');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const parity = JSON.parse(readFileSync(fixture('essay-parity.json'), 'utf8')) as {
  topics: string[];
  input_ids: number[];
  word_ids: number[];
  layer_weights: number[][];
  first_log_probs_top: number[];
  first_log_probs_values: number[];
  greedy_ids: number[];
};
let system: Promise<EssaySystem> | undefined;
const load = () => (system ??= EssaySystem.load(dir, quiet));
const short = { beamSize: 2, maxLength: 24, minLength: 0 };

test('the exported essay model computes the same layer weights and greedy essay as PyTorch did', async () => {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const a = manifest.architecture;
  const { session: enc } = await openSession(path.join(dir, 'encoder.onnx'), quiet);
  const ids = parity.input_ids;
  const out = await enc.run({
    input_ids: int64Tensor(ids, [1, ids.length]),
    word_ids: int64Tensor(parity.word_ids, [1, ids.length]),
    attention_mask: int64Tensor(
      ids.map(() => 1),
      [1, ids.length],
    ),
  });
  const lw = out.layer_weights.data as Float32Array;
  const S = a.encoderLayers + 1;
  parity.layer_weights.forEach((row, l) => {
    row.forEach((w, s) =>
      assert.ok(Math.abs(lw[l * S + s] - w) < 1e-5, `weight of encoder layer ${s} for decoder layer ${l}`),
    );
    const sum = Array.from(lw.subarray(l * S, (l + 1) * S)).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, "each decoder layer's weights are a softmax over the encoder layers (Eq. 2)");
  });
  // Twelve greedy steps through the key/value and context-sum caches give PyTorch's tokens.
  const { session: dec } = await openSession(path.join(dir, 'decoder.onnx'), quiet);
  const dh = a.dModel / a.heads;
  let past = emptyCaches(a.decoderLayers, 1, a.heads, dh);
  let sum: Tensor = float32Tensor(new Float32Array(a.decoderLayers * a.dModel), [a.decoderLayers, 1, a.dModel]);
  let token = manifest.specialTokens.bos as number;
  const greedy: number[] = [];
  for (let i = 0; i < parity.greedy_ids.length; i++) {
    const feeds: Record<string, Tensor> = {
      input_ids: int64Tensor([token], [1, 1]),
      memory_mask: out.memory_mask,
      past_context_sum: sum,
    };
    feedCaches(feeds, 'cross_key_values', layerViews(out.cross_key_values, 'cross_key_values'));
    feedCaches(feeds, 'past_key_values', past);
    if (dec.inputNames.includes('source_ids')) feeds.source_ids = int64Tensor(ids, [1, ids.length]);
    if (dec.inputNames.includes('source_context')) feeds.source_context = out.source_context;
    const step = await dec.run(feeds);
    const lp = step.log_probs.data as Float32Array;
    if (i === 0)
      parity.first_log_probs_top.forEach((id, k) =>
        assert.ok(Math.abs(lp[id] - parity.first_log_probs_values[k]) < 1e-3, `token ${id}`),
      );
    token = lp.indexOf(Math.max(...lp));
    greedy.push(token);
    past = readCaches(step, 'present', a.decoderLayers);
    sum = step.present_context_sum;
  }
  assert.deepEqual(greedy, parity.greedy_ids);
});

test('five topic words give an essay, with the words it covers and a weight row per decoder layer', async () => {
  const s = await load();
  const r = await s.run({ op: 'essay', topics: 'bee, swallow, geese, flower, frog', decoding: short }, noop);
  assert.deepEqual(r.topics, ['bee', 'swallow', 'geese', 'flower', 'frog']);
  const best = r.candidates[0];
  assert.ok(best.text.trim().length > 0);
  for (const w of best.covered) assert.ok(r.topics.includes(w));
  assert.equal(
    r.layerWeights.length,
    JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')).architecture.decoderLayers,
  );
  assert.equal(r.encoderLayers[0], 'embeddings');
});

test('one topic word is enough, and several candidates come back different, best first', async () => {
  const s = await load();
  const r = await s.run({ op: 'essay', topics: 'river', candidates: 3, decoding: { ...short, beamSize: 3 } }, noop);
  assert.equal(r.candidates.length, 3);
  assert.equal(new Set(r.candidates.map((c) => c.text)).size, 3);
  assert.ok(r.candidates[0].score >= r.candidates[1].score);
});

test('fifty words, punctuation only and other scripts get a clear message, not an essay of noise', async () => {
  const s = await load();
  const fifty = Array.from({ length: 50 }, (_, i) => `word${i}`).join(', ');
  const reject = async (topics: string, message: RegExp) =>
    assert.rejects(
      s.run({ op: 'essay', topics, decoding: short }, noop),
      (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && message.test(e.message),
    );
  await reject(fifty, /at most 10 topic words/);
  await reject(' ,;.!? ', /no words/);
  await reject('蜜蜂，燕子，青蛙', /English words only/);
});

test('a word in another script beside English ones is left out and reported; unknown words still work', async () => {
  const s = await load();
  const r = await s.run({ op: 'essay', topics: 'bee, 燕子, flower, zxqwv', decoding: short }, noop);
  assert.deepEqual(r.skippedTopics, ['燕子']);
  assert.deepEqual(r.topics, ['bee', 'flower', 'zxqwv']);
  assert.ok(r.unknownTopics.includes('zxqwv'), 'a made-up word has no word vector');
});
