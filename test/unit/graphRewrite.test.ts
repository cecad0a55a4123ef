/**
 * Model files rewritten once after download (runtime/graphRewrite.ts, kept by runtime/graphCache.ts):
 * the rewritten graph must write exactly the tokens the file it came from writes, be made once,
 * and be made again when the file changes.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { CausalStepModel } from '../../extension/engine/hub/causalStep';
import { CAUSAL_FAMILIES } from '../../extension/engine/hub/families';
import { cachedGraphPath, preparedGraph } from '../../extension/engine/runtime/graphCache';
import { rewriteGraph } from '../../extension/engine/runtime/graphRewrite';
import { ort, type Session } from '../../extension/engine/runtime/onnx';
import { HUB_FIXTURES } from './loopbackHub';

const FIXTURES = path.join(HUB_FIXTURES, 'fixtures');
const MODELS = ['SmolLM2-135M-Instruct', 'Qwen2.5-0.5B-Instruct'];
const EXACT = { outputs: true, int8Compute: false };

const tempDir = (t: { after(fn: () => void): void }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'draftsmith-graphs-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const open = (file: string) =>
  ort().InferenceSession.create(file, { graphOptimizationLevel: 'all', intraOpNumThreads: 1 }) as Promise<Session>;

/** Greedy tokens of a fixture's graph after a prompt, through our step model (the cache fed back each step). */
async function greedy(model: string, file: string, n = 24): Promise<number[]> {
  const config = JSON.parse(fs.readFileSync(path.join(FIXTURES, model, 'config.json'), 'utf8')) as Record<
    string,
    number & string
  >;
  const layout = {
    family: CAUSAL_FAMILIES[config.model_type],
    modelType: config.model_type,
    layers: config.num_hidden_layers,
    kvHeads: config.num_key_value_heads,
    headDim: config.hidden_size / config.num_attention_heads,
  };
  const session = await open(file);
  try {
    const step = new CausalStepModel(session, { layout, vocabSize: config.vocab_size, ends: [-1] });
    const prompt = Array.from({ length: 40 }, (_, i) => (i * 37 + 5) % 200);
    let out = await step.run(prompt, step.initial());
    const tokens: number[] = [];
    for (let i = 0; i < n; i++) {
      let best = 0;
      for (let v = 1; v < out.logProbs.length; v++) if (out.logProbs[v] > out.logProbs[best]) best = v;
      tokens.push(best);
      const s = await step.step([best], out.state);
      out = { logProbs: s.logProbs, state: s.state };
    }
    return tokens;
  } finally {
    await session.release();
  }
}

for (const model of MODELS) {
  const dir = path.join(FIXTURES, model, 'onnx');
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.onnx'))) {
    test(`${model} ${name}: the graph without its output copies writes the very same greedy tokens`, async (t) => {
      const { file, stamp } = preparedGraph(path.join(dir, name), tempDir(t), EXACT);
      // Every cache output (two per layer) and the logits were copies.
      assert.ok(stamp?.rewritten && stamp.identitiesRemoved >= 3, JSON.stringify(stamp));
      assert.notEqual(file, path.join(dir, name));
      assert.deepEqual(await greedy(model, file), await greedy(model, path.join(dir, name)));
    });
  }
}

test('4-bit products in int8 are asked of every MatMulNBits, and the graph still writes tokens', async (t) => {
  const model = 'SmolLM2-135M-Instruct';
  const source = path.join(FIXTURES, model, 'onnx', 'model_q4.onnx');
  const r = rewriteGraph(fs.readFileSync(source), { outputs: false, int8Compute: true });
  assert.equal(r.identitiesRemoved, 0);
  assert.ok(r.int8ComputeNodes > 0);
  const bytes = Buffer.concat(r.bytes!);
  assert.ok(bytes.includes(Buffer.from('accuracy_level')));
  assert.ok(!fs.readFileSync(source).includes(Buffer.from('accuracy_level')));
  const { file } = preparedGraph(source, tempDir(t), { outputs: true, int8Compute: true });
  assert.equal((await greedy(model, file, 8)).length, 8);
});

test('a model file is rewritten once, and again when it changes', async (t) => {
  const work = tempDir(t);
  const source = path.join(work, 'model_int8.onnx');
  fs.copyFileSync(path.join(FIXTURES, 'SmolLM2-135M-Instruct', 'onnx', 'model_int8.onnx'), source);
  const cache = path.join(work, 'graphs');
  const lines: string[] = [];
  const first = preparedGraph(source, cache, EXACT, (l) => lines.push(l));
  assert.equal(first.file, cachedGraphPath(cache, source, EXACT));
  assert.equal(lines.length, 1, 'rewritten on first use');
  const again = preparedGraph(source, cache, EXACT, (l) => lines.push(l));
  assert.equal(again.file, first.file);
  assert.equal(lines.length, 1, 'not rewritten while the file is unchanged');
  // A new download of the file (another modification time) makes the rewrite stale.
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(source, later, later);
  preparedGraph(source, cache, EXACT, (l) => lines.push(l));
  assert.equal(lines.length, 2, 'rewritten after the file changed');
  // Other options are another rewrite, kept beside the first.
  const int8 = preparedGraph(source, cache, { outputs: true, int8Compute: true }, (l) => lines.push(l));
  assert.equal(lines.length, 3);
  assert.notEqual(int8.file, first.file);
  preparedGraph(source, cache, EXACT, (l) => lines.push(l));
  assert.equal(lines.length, 3, 'each kept while the file is unchanged');
});

test('a file that is not a graph is opened as it is, with the reason in the log', (t) => {
  const work = tempDir(t);
  const source = path.join(work, 'model.onnx');
  fs.writeFileSync(source, Buffer.from([0x3a, 0x05, 0x01]));
  const lines: string[] = [];
  const r = preparedGraph(source, path.join(work, 'graphs'), EXACT, (l) => lines.push(l));
  assert.equal(r.file, source);
  assert.match(lines.join('\n'), /could not rewrite .*model\.onnx \(truncated protobuf/);
});
