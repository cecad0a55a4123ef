/**
 * Which files of a repository Draftsmith downloads (extension/engine/hub/fileChoice.ts): chosen from
 * the listing, in the stated order, the smallest layout of a data type, every file counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../extension/engine/errors';
import { chooseFiles, dtypeOrder, type ListedFile } from '../../extension/engine/hub/fileChoice';

const MB = 1_000_000;
const SIDE: ListedFile[] = [
  { path: 'config.json', size: 900 },
  { path: 'generation_config.json', size: 132 },
  { path: 'tokenizer.json', size: 2_100_000 },
  { path: 'tokenizer_config.json', size: 3_700 },
  { path: 'special_tokens_map.json', size: 655 },
  { path: 'README.md', size: 5_000 },
];
const repo = (...graphs: [string, number][]): ListedFile[] => [
  ...SIDE,
  ...graphs.map(([path, size]) => ({ path: `onnx/${path}`, size })),
];
const sum = (files: readonly ListedFile[]) => files.reduce((n, f) => n + f.size, 0);
const paths = (files: readonly ListedFile[]) => files.map((f) => f.path).sort();

test("today's layout (model*.onnx): the q4 graph, not the fp32 one, and every side file counted", () => {
  // SmolLM2-135M-Instruct's onnx/ folder: no 8-bit graph at all.
  const files = repo(
    ['model.onnx', 654 * MB],
    ['model_fp16.onnx', 327 * MB],
    ['model_q4.onnx', 200 * MB],
    ['model_q4f16.onnx', 134 * MB],
  );
  const c = chooseFiles(files, 'causal-lm', 'x/y');
  assert.equal(c.dtype, 'q4');
  assert.equal(c.modelFileName, undefined);
  assert.deepEqual(paths(c.files), [
    'config.json',
    'generation_config.json',
    'onnx/model_q4.onnx',
    'tokenizer.json',
    'tokenizer_config.json',
  ]);
  assert.equal(c.totalBytes, 900 + 132 + 2_100_000 + 3_700 + 200 * MB);
  assert.equal(c.totalBytes, sum(c.files));
});

test('the older layout (only decoder_model_merged*.onnx): opened with model_file_name', () => {
  const files = repo(
    ['decoder_model.onnx', 653 * MB],
    ['decoder_model_merged.onnx', 655 * MB],
    ['decoder_model_merged_quantized.onnx', 166 * MB],
    ['decoder_with_past_model_quantized.onnx', 165 * MB],
  );
  const c = chooseFiles(files, 'causal-lm', 'x/y');
  assert.equal(c.dtype, 'q8');
  assert.equal(c.modelFileName, 'decoder_model_merged');
  assert.deepEqual(
    c.graphs.map((g) => g.file),
    ['onnx/decoder_model_merged_quantized.onnx'],
  );
});

test('both layouts in the same data type: the smaller download wins; a better data type wins over a smaller file', () => {
  const same = repo(['model_quantized.onnx', 130 * MB], ['decoder_model_merged_quantized.onnx', 128 * MB]);
  assert.equal(chooseFiles(same, 'causal-lm', 'x/y').graphs[0].file, 'onnx/decoder_model_merged_quantized.onnx');
  // Xenova/gpt2: q4 in the new layout beats the smaller 8-bit merged decoder (4-bit weights, float32 activations).
  const gpt2 = repo(
    ['model.onnx', 498 * MB],
    ['model_q4.onnx', 200 * MB],
    ['decoder_model_merged_quantized.onnx', 128 * MB],
  );
  const c = chooseFiles(gpt2, 'causal-lm', 'x/y');
  assert.equal(c.graphs[0].file, 'onnx/model_q4.onnx');
  assert.equal(c.modelFileName, undefined);
});

test('the order on a CPU: q4, q8, uint8, int8, q4f16, bnb4, fp16, fp32; with CUDA float16 first', () => {
  assert.deepEqual(dtypeOrder(), ['q4', 'q8', 'uint8', 'int8', 'q4f16', 'bnb4', 'fp16', 'fp32']);
  assert.deepEqual(dtypeOrder({ device: 'cuda' }).slice(0, 2), ['q4f16', 'fp16']);
  // Qwen2.5-0.5B-Instruct's files: every data type there.
  const all = repo(
    ['model.onnx', 1990 * MB],
    ['model_bnb4.onnx', 764 * MB],
    ['model_fp16.onnx', 997 * MB],
    ['model_int8.onnx', 512 * MB],
    ['model_q4.onnx', 786 * MB],
    ['model_q4f16.onnx', 483 * MB],
    ['model_quantized.onnx', 512 * MB],
    ['model_uint8.onnx', 512 * MB],
  );
  assert.equal(chooseFiles(all, 'causal-lm', 'x/y').dtype, 'q4');
  assert.equal(chooseFiles(all, 'causal-lm', 'x/y', { device: 'cuda' }).dtype, 'q4f16');
  const without = (...drop: string[]) => all.filter((f) => !drop.some((d) => f.path === `onnx/model${d}.onnx`));
  assert.equal(chooseFiles(without('_q4'), 'causal-lm', 'x/y').dtype, 'q8');
  assert.equal(chooseFiles(without('_q4', '_quantized'), 'causal-lm', 'x/y').dtype, 'uint8');
  assert.equal(chooseFiles(without('_q4', '_quantized', '_uint8'), 'causal-lm', 'x/y').dtype, 'int8');
  assert.equal(chooseFiles(without('_q4', '_quantized', '_uint8', '_int8'), 'causal-lm', 'x/y').dtype, 'q4f16');
  assert.equal(chooseFiles(repo(['model.onnx', 9], ['model_fp16.onnx', 5]), 'causal-lm', 'x/y').dtype, 'fp16');
  assert.equal(chooseFiles(repo(['model.onnx', 9]), 'causal-lm', 'x/y').dtype, 'fp32');
  // A data type asked for comes first where the repository has it, and is ignored where it does not.
  assert.equal(chooseFiles(all, 'causal-lm', 'x/y', { prefer: 'fp16' }).dtype, 'fp16');
  assert.equal(chooseFiles(without('_fp16'), 'causal-lm', 'x/y', { prefer: 'fp16' }).dtype, 'q4');
});

test('an encoder-decoder: encoder_model and decoder_model_merged, each its best file, float16 never mixed with float32', () => {
  // distilbart-cnn-6-6 at its pinned revision: 8-bit and float32 graphs only.
  const bart = repo(
    ['encoder_model.onnx', 513 * MB],
    ['encoder_model_quantized.onnx', 129 * MB],
    ['decoder_model.onnx', 820 * MB],
    ['decoder_model_merged.onnx', 820 * MB],
    ['decoder_model_merged_quantized.onnx', 207 * MB],
    ['decoder_with_past_model_quantized.onnx', 194 * MB],
  );
  const c = chooseFiles(bart, 'seq2seq', 'x/y');
  assert.equal(c.dtype, 'q8');
  assert.deepEqual(
    c.graphs.map((g) => g.file),
    ['onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'],
  );
  assert.equal(c.modelFileName, undefined);
  assert.equal(c.totalBytes, sum(SIDE.slice(0, 4)) + 336 * MB);
  // The decoder has q4f16 and q4, the encoder only q8: q8 + q4 (both float32 activations), per graph.
  const mixed = repo(
    ['encoder_model_quantized.onnx', 10],
    ['decoder_model_merged_q4f16.onnx', 3],
    ['decoder_model_merged_q4.onnx', 5],
  );
  const m = chooseFiles(mixed, 'seq2seq', 'x/y');
  assert.deepEqual(m.dtype, { encoder_model: 'q8', decoder_model_merged: 'q4' });
  // Only a float16 decoder and a float32 encoder: no set can run.
  assert.throws(
    () => chooseFiles(repo(['encoder_model.onnx', 10], ['decoder_model_merged_fp16.onnx', 5]), 'seq2seq', 'x/y'),
    (e: unknown) => e instanceof EngineError && /no ONNX graphs .* encoder-decoder/.test(e.message),
  );
});

test('external weights travel with their graph, in chunk order, counted in the total and told to transformers.js', () => {
  // Qwen2.5-1.5B-Instruct's fp16 graph keeps its weights in model_fp16.onnx_data.
  const files = repo(
    ['model_fp16.onnx', 1_100_000],
    ['model_fp16.onnx_data_1', 1_000 * MB],
    ['model_fp16.onnx_data', 2_100 * MB],
    ['model.onnx', 1_060_000],
    ['model.onnx_data', 6_210 * MB],
  );
  const c = chooseFiles(files, 'causal-lm', 'x/y');
  assert.equal(c.dtype, 'fp16');
  assert.deepEqual(c.graphs[0].data, ['onnx/model_fp16.onnx_data', 'onnx/model_fp16.onnx_data_1']);
  assert.deepEqual(c.externalData, { 'model_fp16.onnx': 2 });
  assert.equal(c.totalBytes, sum(SIDE.slice(0, 4)) + 1_100_000 + 3_100 * MB);
});

test('a repository without tokenizer_config.json, or without any graph for the kind, is refused with what is missing', () => {
  const noTokenizerConfig = repo(['model_q4.onnx', 10]).filter((f) => f.path !== 'tokenizer_config.json');
  assert.throws(
    () => chooseFiles(noTokenizerConfig, 'causal-lm', 'x/y'),
    (e: unknown) =>
      e instanceof EngineError && e.code === 'bad-model' && /x\/y has no tokenizer_config\.json/.test(e.message),
  );
  assert.throws(
    () => chooseFiles(repo(['encoder_model.onnx', 10]), 'causal-lm', 'x/y'),
    (e: unknown) =>
      e instanceof EngineError && /onnx\/model\*\.onnx or onnx\/decoder_model_merged\*\.onnx/.test(e.message),
  );
});

test('a config.json of 50 MB is refused from the listing, before anything is downloaded', () => {
  const files = repo(['model_q4.onnx', 10]).map((f) => (f.path === 'config.json' ? { ...f, size: 50_000_000 } : f));
  assert.throws(
    () => chooseFiles(files, 'causal-lm', 'x/y'),
    (e: unknown) => e instanceof EngineError && /x\/y was refused: its config\.json is 50 MB/.test(e.message),
  );
});

test('a chat template kept apart (chat_template.jinja) comes along; files transformers.js does not read do not', () => {
  const files = [
    ...repo(['model_q4.onnx', 10]),
    { path: 'chat_template.jinja', size: 4_000 },
    { path: 'merges.txt', size: 466_000 },
  ];
  const c = chooseFiles(files, 'causal-lm', 'x/y');
  assert.ok(c.files.some((f) => f.path === 'chat_template.jinja'));
  assert.ok(
    !c.files.some((f) => f.path === 'merges.txt' || f.path === 'README.md' || f.path === 'special_tokens_map.json'),
  );
});
