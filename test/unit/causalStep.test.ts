/**
 * The Hub decoder step model against a graph whose arithmetic we know: a toy session in which each
 * position's logits depend on every token before it (through the cache), so that reading a prompt in
 * chunks, feeding num_logits_to_keep, float16 caches and logits, and folding end tokens can each be
 * checked against the answer computed by hand.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { CausalStepModel } from '../../extension/engine/hub/causalStep';
import { causalLayout } from '../../extension/engine/hub/families';
import { foldEndTokens, endTokensOf, neverInText } from '../../extension/engine/hub/endTokens';
import { ort, type Session, type Tensor } from '../../extension/engine/runtime/onnx';

const VOCAB = 11;
const LAYERS = 2;
const KV_HEADS = 1;
const HEAD = 2;

/** float32 <-> float16 bits for small integers (exact in both). */
const toHalf = (x: number) => {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >> 16) & 0x8000;
  const exp = ((u >> 23) & 0xff) - 127 + 15;
  if (x === 0) return sign;
  return sign | (exp << 10) | ((u >> 13) & 0x3ff);
};
const fromHalf = (h: number) => {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return 0;
  return (h & 0x8000 ? -1 : 1) * (1 + frac / 1024) * 2 ** (exp - 15);
};

interface Toy {
  session: Session;
  calls: { tokens: number; keep: bigint | undefined; cacheLength: number }[];
}

/**
 * A toy causal LM: the cache stores each token (key[.., t, 0] = id); the logits at a position put
 * the running sum of ids mod VOCAB highest. `keepInput` adds num_logits_to_keep, `half` makes the
 * caches and logits float16.
 */
function toy({ keepInput = false, half = false } = {}): Toy {
  const calls: Toy['calls'] = [];
  const pastNames = Array.from({ length: LAYERS }, (_, i) => [
    `past_key_values.${i}.key`,
    `past_key_values.${i}.value`,
  ]).flat();
  const floatType = half ? 'float16' : 'float32';
  const inputNames = [
    'input_ids',
    'attention_mask',
    'position_ids',
    ...(keepInput ? ['num_logits_to_keep'] : []),
    ...pastNames,
  ];
  const meta = (name: string, type: string, shape: (number | string)[]) => ({ name, isTensor: true, type, shape });
  const session = {
    inputNames,
    outputNames: ['logits', ...pastNames.map((n) => n.replace('past_key_values', 'present'))],
    inputMetadata: [
      meta('input_ids', 'int64', ['batch_size', 'sequence_length']),
      meta('attention_mask', 'int64', ['batch_size', 'total_sequence_length']),
      meta('position_ids', 'int64', ['batch_size', 'sequence_length']),
      ...(keepInput ? [meta('num_logits_to_keep', 'int64', [])] : []),
      ...pastNames.map((n) => meta(n, floatType, ['batch_size', KV_HEADS, 'past_sequence_length', HEAD])),
    ],
    outputMetadata: [meta('logits', floatType, ['batch_size', 'sequence_length', VOCAB])],
    async run(feed: Record<string, Tensor>) {
      const Tensor = ort().Tensor;
      const ids = feed.input_ids;
      const [rows, n] = ids.dims as number[];
      const past = feed['past_key_values.0.key'];
      const pastLen = past.dims[2] as number;
      const read = (t: Tensor, i: number) =>
        half ? fromHalf((t.data as Uint16Array)[i]) : (t.data as Float32Array)[i];
      const keep = feed.num_logits_to_keep ? (feed.num_logits_to_keep.data as BigInt64Array)[0] : undefined;
      calls.push({ tokens: n, keep, cacheLength: pastLen });
      const positions = keep !== undefined ? Number(keep) : n;
      const total = pastLen + n;
      const logits = new Float32Array(rows * positions * VOCAB);
      const out: Record<string, Tensor> = {};
      for (const name of pastNames) {
        const cache = new Float32Array(rows * KV_HEADS * total * HEAD);
        for (let r = 0; r < rows; r++) {
          for (let t = 0; t < total; t++) {
            const v =
              t < pastLen
                ? read(feed[name], (r * pastLen + t) * HEAD)
                : Number((ids.data as BigInt64Array)[r * n + t - pastLen]);
            cache[(r * total + t) * HEAD] = v;
          }
        }
        out[name.replace('past_key_values', 'present')] = half
          ? new Tensor('float16', Uint16Array.from(cache, toHalf), [rows, KV_HEADS, total, HEAD])
          : new Tensor('float32', cache, [rows, KV_HEADS, total, HEAD]);
      }
      const keys = out['present.0.key'];
      for (let r = 0; r < rows; r++) {
        for (let p = 0; p < positions; p++) {
          const upTo = total - positions + p; // the position's index in the whole text
          let sum = 0;
          for (let t = 0; t <= upTo; t++) sum += read(keys, (r * total + t) * HEAD);
          logits[(r * positions + p) * VOCAB + (sum % VOCAB)] = 5;
        }
      }
      out.logits = half
        ? new Tensor('float16', Uint16Array.from(logits, toHalf), [rows, positions, VOCAB])
        : new Tensor('float32', logits, [rows, positions, VOCAB]);
      return out;
    },
  };
  return { session: session as unknown as Session, calls };
}

const layout = causalLayout(
  { model_type: 'llama', num_heads: KV_HEADS, num_attention_heads: 2, num_layers: LAYERS, hidden_size: 4 },
  'llama',
);
const argmax = (a: Float32Array) => a.reduce((b, x, i) => (x > a[b] ? i : b), 0);

test('a long prompt read in chunks gives the same next token and cache as one pass, in bounded calls', async () => {
  const whole = toy();
  const chunked = toy();
  const prompt = Array.from({ length: 23 }, (_, i) => (i * 7) % VOCAB);
  const expected = prompt.reduce((a, b) => a + b, 0) % VOCAB;
  const one = new CausalStepModel(whole.session, { layout, vocabSize: VOCAB, ends: [0], prefillChunk: 1000 });
  const many = new CausalStepModel(chunked.session, { layout, vocabSize: VOCAB, ends: [0], prefillChunk: 5 });
  const a = await one.run(prompt, one.initial());
  const b = await many.run(prompt, many.initial());
  assert.equal(argmax(a.logProbs), expected);
  assert.equal(argmax(b.logProbs), expected);
  assert.equal(b.state.length, 23);
  assert.deepEqual(
    chunked.calls.map((c) => c.tokens),
    [5, 5, 5, 5, 3],
    'no call reads more than the chunk',
  );
  // The cache goes on the same way after either.
  const next = await many.step([4], b.state);
  assert.equal(argmax(next.logProbs), (expected + 4) % VOCAB);
});

test('a graph with num_logits_to_keep is fed 1 and returns one position per row', async () => {
  const g = toy({ keepInput: true });
  const m = new CausalStepModel(g.session, { layout, vocabSize: VOCAB, ends: [0] });
  const r = await m.run([3, 4, 5], m.initial());
  assert.equal(argmax(r.logProbs), 12 % VOCAB);
  assert.ok(g.calls.every((c) => c.keep === 1n));
});

test('float16 caches and logits run, and beams keep their own float16 cache rows', async () => {
  const g = toy({ half: true });
  const m = new CausalStepModel(g.session, { layout, vocabSize: VOCAB, ends: [0] });
  assert.equal(m.cacheType, 'float16');
  const read = await m.run([1, 2], m.initial());
  assert.equal(argmax(read.logProbs), 3);
  const two = await m.step([4, 6], m.tile(read.state, 2));
  assert.equal(argmax(two.logProbs.subarray(0, VOCAB)), 7);
  assert.equal(argmax(two.logProbs.subarray(VOCAB)), 9);
  const swapped = await m.step([0, 0], m.reorder(two.state, [1, 0]));
  assert.equal(argmax(swapped.logProbs.subarray(0, VOCAB)), 9, 'row 0 now continues the other beam');
  assert.equal(argmax(swapped.logProbs.subarray(VOCAB)), 7);
});

test('a cache whose declared heads disagree with config.json is refused, naming the input', () => {
  const g = toy();
  const wrong = causalLayout(
    { model_type: 'qwen2', num_heads: 3, num_attention_heads: 6, num_layers: LAYERS, hidden_size: 12 },
    'qwen2',
  );
  assert.throws(
    () => new CausalStepModel(g.session, { layout: wrong, vocabSize: VOCAB, ends: [0] }),
    /past_key_values\.0\.key has 1 at axis 1; config\.json gives 3/,
  );
});

test('a family Draftsmith does not know is named in the message, with the ones it knows', () => {
  assert.throws(
    () => causalLayout({ num_heads: 1, num_layers: 1, hidden_size: 4 }, 'rwkv'),
    /does not run rwkv models yet; it runs these families: gpt2, llama, qwen2/,
  );
});

test('every end token ends the text: their probabilities are summed into the first, none is banned', () => {
  const ends = endTokensOf({ eos_token_id: 7, bos_token_id: 7, pad_token_id: 2 }, { eos_token_id: [5, 7] }, 7);
  assert.deepEqual(ends, [5, 7]);
  assert.deepEqual(
    neverInText({ bos_token_id: 7, pad_token_id: 2 }, ends),
    [2],
    'the start token is also an end token',
  );
  const row = new Float32Array(VOCAB).fill(Math.log(0.01));
  row[5] = Math.log(0.2);
  row[7] = Math.log(0.3);
  foldEndTokens(row, VOCAB, 5, [7]);
  assert.ok(Math.abs(Math.exp(row[5]) - 0.5) < 1e-6);
  assert.equal(row[7], -Infinity);
});
