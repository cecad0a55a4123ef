/**
 * GGUF models through llama.cpp (node-llama-cpp) on the tiny fixture test/fixtures/gguf/smollm2-tiny.gguf
 * (random weights, SmolLM2's vocabulary and chat template: test/fixtures/generators/gguf_fixture.py):
 * they load, read prompts as the Hub model of the same vocabulary does, run our decoding loops with
 * llama.cpp's numbers, stream, cancel, keep their prefix, and a broken file is refused by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Token } from 'node-llama-cpp';
import { greedy } from '../../extension/engine/decode/sampling';
import { Engine } from '../../extension/engine/engine';
import { CancelledError, EngineError } from '../../extension/engine/errors';
import type { CausalLm } from '../../extension/engine/hub/causalLm';
import { chatPromptText } from '../../extension/engine/hub/chatPrompt';
import { llamaGpuFor, llamaRuntime } from '../../extension/engine/gguf/llamaRuntime';
import { openCausalLm } from '../../extension/engine/hub/hubSystems';
import { PrefixCache } from '../../extension/engine/hub/prefixCache';
import { transformersJs } from '../../extension/engine/hub/transformersJs';
import { NativeCalls } from '../../extension/engine/runtime/onnx';
import type { StoryResult } from '../../extension/protocol';
import { endOf, fixture, repoRoot, startWorker } from './helpers';
import { config, tempCache } from './hubTestKit';

const GGUF = fixture('gguf/smollm2-tiny.gguf');
const HUB_SMOL = fixture('hub/fixtures/SmolLM2-135M-Instruct');
const hub = { endpoint: 'http://127.0.0.1:9/', cacheDir: os.tmpdir(), offline: true, stallSeconds: 30 };
const logs: string[] = [];
const runtime = { device: 'cpu' as const, threads: 1, log: (_l: string, m: string) => void logs.push(m) };
const watch = { progress: () => {}, isCancelled: () => false };
const TEXT = 'The writer opened the draft and read the first line again.';

async function open(t: { after(fn: () => Promise<void>): void }, rows = 1): Promise<CausalLm> {
  const lm = await openCausalLm({ kind: 'gguf', file: GGUF }, 'the test', hub, runtime, watch, { rows });
  t.after(() => lm.opened.model.dispose().then(() => {}));
  return lm;
}

function tempFile(t: { after(fn: () => void): void }, name: string, bytes: Uint8Array): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-gguf-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

const argmax = (xs: Float32Array, from = 0, n = xs.length) => {
  let best = from;
  for (let i = from; i < from + n; i++) if (xs[i] > xs[best]) best = i;
  return best - from;
};

test('a GGUF file loads with llama.cpp: its architecture, vocabulary, context, chat template and end tokens come from the file, and the log says which build ran', async (t) => {
  logs.length = 0;
  const lm = await open(t);
  assert.equal(lm.opened.source, 'gguf');
  assert.equal(lm.opened.architecture, 'llama');
  assert.equal(lm.opened.device, 'cpu');
  assert.equal(lm.step.vocabSize, 320);
  assert.equal(lm.contextTokens, 2048, "the file's own context (2048) is below the cap");
  assert.equal(lm.chat, true);
  // <|im_end|> (the file's eos) first, then <|endoftext|>: llama.cpp ends a generation on both.
  assert.equal(lm.eos, 2);
  assert.ok(lm.ends.includes(0) && lm.ends.includes(2), `ends ${lm.ends}`);
  // The chat markers and the other control tokens never appear in prose.
  assert.ok(lm.banned.includes(1) && !lm.banned.some((t) => lm.ends.includes(t)), `banned ${lm.banned}`);
  assert.ok(
    logs.some((m) => /loaded .*smollm2-tiny\.gguf \(llama, F32\) with llama\.cpp .* on cpu/.test(m)),
    logs.join('\n'),
  );
});

test('a GGUF prompt goes through the chat template in the file and reads into the same ids as the Hub model with the same vocabulary', async (t) => {
  const lm = await open(t);
  const tjs = transformersJs(new NativeCalls());
  tjs.env.allowRemoteModels = false;
  tjs.env.allowLocalModels = true;
  tjs.env.localModelPath = path.dirname(HUB_SMOL);
  const hubTokenizer = await tjs.AutoTokenizer.from_pretrained(path.basename(HUB_SMOL), { local_files_only: true });
  const fromGguf = chatPromptText(lm.opened.tokenizer, 'story', TEXT);
  assert.equal(fromGguf, chatPromptText(hubTokenizer, 'story', TEXT));
  assert.ok(fromGguf.startsWith('<|im_start|>system\n') && fromGguf.endsWith('<|im_start|>assistant\n'), fromGguf);
  assert.deepEqual(lm.opened.tokenizer.encode(fromGguf), hubTokenizer.encode(fromGguf, { add_special_tokens: false }));
  const ids = lm.opened.tokenizer.encode(TEXT);
  assert.equal(lm.opened.tokenizer.decode(ids, { skip_special_tokens: true }), TEXT);
});

test("greedy decoding through our loop writes the tokens llama.cpp's own greedy sampler writes", async (t) => {
  const lm = await open(t);
  const prompt = lm.opened.tokenizer.encode(chatPromptText(lm.opened.tokenizer, 'story', TEXT));
  const read = await lm.step.run(prompt.slice(0, -1), lm.step.initial());
  const ours = await greedy(lm.step, read.state, { bos: prompt[prompt.length - 1], eos: lm.eos, maxLength: 12 }, {});
  assert.equal(ours.tokens.length > 0, true);

  // llama.cpp alone, on a context of its own: the same file, the same prompt, temperature 0.
  // (The engine's llama.cpp: another getLlama would take over its log.)
  const { llama } = await llamaRuntime('cpu', () => {});
  const model = await llama.loadModel({ modelPath: GGUF });
  const context = await model.createContext({ contextSize: 512, threads: 1 });
  t.after(async () => {
    await context.dispose();
    await model.dispose();
  });
  const theirs: number[] = [];
  for await (const token of context
    .getSequence()
    .evaluate(prompt as unknown as Token[], { temperature: 0, yieldEogToken: true })) {
    theirs.push(token);
    if (lm.ends.includes(token) || theirs.length === ours.tokens.length) break;
  }
  assert.deepEqual(ours.tokens, theirs.slice(0, ours.tokens.length));
});

test('every end token llama.cpp knows ends the text: their probabilities are folded into the one the loops stop on', async (t) => {
  const lm = await open(t);
  const prompt = lm.opened.tokenizer.encode(TEXT);
  const { logProbs } = await lm.step.run(prompt, lm.step.initial());
  // llama.cpp's own distribution after the same prompt, on a sequence of its own.
  const { llama } = await llamaRuntime('cpu', () => {});
  const model = await llama.loadModel({ modelPath: GGUF });
  const context = await model.createContext({ contextSize: 256, threads: 1 });
  t.after(async () => {
    await context.dispose();
    await model.dispose();
  });
  const raw = (
    await context
      .getSequence()
      .controlledEvaluate([
        ...(prompt.slice(0, -1) as unknown as Token[]),
        [prompt[prompt.length - 1] as unknown as Token, { generateNext: { probabilities: true } }],
      ])
  ).at(-1)!.next.probabilities!;
  const ending = lm.ends.reduce((p, t) => p + (raw.get(t as unknown as Token) ?? 0), 0);
  assert.ok(ending > (raw.get(lm.eos as unknown as Token) ?? 0), 'the other end tokens have some probability');
  assert.ok(Math.abs(Math.exp(logProbs[lm.eos]) - ending) < 1e-5, `${Math.exp(logProbs[lm.eos])} vs ${ending}`);
  for (const other of lm.ends.slice(1)) assert.equal(logProbs[other], -Infinity);
  let total = 0;
  for (const x of logProbs) total += Math.exp(x);
  assert.ok(Math.abs(total - 1) < 1e-3, `the distribution sums to ${total}`);
});

test('the prefix cache on a GGUF model: a longer prompt reads only its new tokens, and gives the numbers of a fresh read', async (t) => {
  const lm = await open(t);
  const cache = new PrefixCache(lm.step);
  const story = lm.opened.tokenizer.encode(TEXT);
  const more = lm.opened.tokenizer.encode(' The rain fell for three days.');
  await cache.read(story);
  const on = await cache.read([...story, ...more]);
  assert.equal(on.reused, story.length);
  const probe = more[0];
  const cached = (await lm.step.step([probe], on.state)).logProbs;
  const fresh = (await lm.step.step([probe], (await lm.step.run([...story, ...more], lm.step.initial())).state))
    .logProbs;
  let d = 0;
  for (let i = 0; i < cached.length; i++)
    if (Number.isFinite(cached[i]) || Number.isFinite(fresh[i])) d = Math.max(d, Math.abs(cached[i] - fresh[i]));
  assert.ok(d < 1e-3, `the cache read on differs from a fresh read by ${d}`);
});

test('beams on a GGUF model: more rows than llama.cpp sequences give the same numbers as one sequence per row', async (t) => {
  const one = await open(t, 1);
  const three = await open(t, 3);
  const prompt = one.opened.tokenizer.encode(TEXT);
  const next = [5 + 17, 40, 41];
  const run = async (lm: CausalLm) => {
    const read = await lm.step.run(prompt, lm.step.initial());
    let state = lm.step.tile(read.state, 3);
    let out = await lm.step.step(next, state);
    state = lm.step.reorder(out.state, [2, 0, 0]);
    out = await lm.step.step([50, 60, 70], state);
    return out.logProbs;
  };
  const a = await run(one);
  const b = await run(three);
  for (let r = 0; r < 3; r++) assert.equal(argmax(a, r * 320, 320), argmax(b, r * 320, 320), `row ${r}`);
});

test('Continue Story on a GGUF model streams into the editor as it writes, and Cancel stops it between tokens', async (t) => {
  const cfg = config({ cacheDir: tempCache(t), offline: true });
  const engine = new Engine(cfg, () => {});
  // A configure releases the loaded models (the llama.cpp context and model).
  t.after(() => engine.configure(cfg));
  const request = {
    op: 'story' as const,
    prompt: TEXT,
    words: 30,
    sampling: { seed: 3 },
    model: { kind: 'gguf' as const, file: GGUF },
  };
  const partials: string[] = [];
  const r = (await engine.run(request, { partial: (p) => partials.push(p) })) as StoryResult;
  assert.ok(partials.length > 1, `${partials.length} partial texts`);
  assert.ok(r.external?.note.includes('GGUF'), r.external?.note);
  assert.equal(r.stats.model, GGUF);
  const again = (await engine.run(request)) as StoryResult;
  assert.equal(again.continuation, r.continuation, 'the same seed wrote another story');

  let seen = 0;
  await assert.rejects(
    engine.run({ ...request, sampling: { seed: 4 } }, { partial: () => void seen++, isCancelled: () => seen >= 2 }),
    (e: unknown) => e instanceof CancelledError,
  );
});

test('a GGUF file cut short (in its tensors or in its header) is refused with a message naming the file and what is wrong', async (t) => {
  const whole = readFileSync(GGUF);
  const cut = tempFile(t, 'cut.gguf', whole.subarray(0, Math.floor(whole.length / 2)));
  await assert.rejects(
    openCausalLm({ kind: 'gguf', file: cut }, 'Continue Story', hub, runtime, watch),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-model' &&
      e.message.includes(cut) &&
      /corrupted or incomplete: its tensors need [\d,]+ bytes and the file has [\d,]+/.test(e.message),
  );
  const headerCut = tempFile(t, 'header-cut.gguf', whole.subarray(0, 4000));
  await assert.rejects(
    openCausalLm({ kind: 'gguf', file: headerCut }, 'Continue Story', hub, runtime, watch),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-model' &&
      e.message.includes(`${headerCut} is corrupted or incomplete: its header (settings and vocabulary) is cut short`),
  );
});

test('a file that is not GGUF, or is not there, is refused by name before llama.cpp reads it', async (t) => {
  const notGguf = tempFile(t, 'notes.gguf', new TextEncoder().encode('{"this": "is JSON, not a model"}'.repeat(4)));
  await assert.rejects(
    openCausalLm({ kind: 'gguf', file: notGguf }, 'Rewrite Selection', hub, runtime, watch),
    (e: unknown) => e instanceof EngineError && e.message.includes(`${notGguf} is not a GGUF file`),
  );
  const missing = path.join(repoRoot, 'no-such-model.gguf');
  await assert.rejects(
    openCausalLm({ kind: 'gguf', file: missing }, 'Rewrite Selection', hub, runtime, watch),
    (e: unknown) => e instanceof EngineError && e.message.includes(`There is no GGUF file at ${missing}`),
  );
});

test('a GGUF instruct model asked to summarize writes the summary itself, through its chat template (systems/instructSummarize.ts)', async (t) => {
  const engine = new Engine(config({ cacheDir: tempCache(t), offline: true }), () => {});
  const copy = tempFile(t, 'model.gguf', readFileSync(GGUF));
  const r = await engine.run({
    op: 'summarize',
    text: TEXT,
    decoding: { maxLength: 8 },
    model: { kind: 'gguf', file: copy },
  });
  assert.equal(r.mode, 'abstractive');
  assert.equal(r.stats.model, copy);
});

test("draftsmith.device picks llama.cpp's build: CUDA for cuda, Metal for CoreML's Apple GPU, Vulkan for DirectML and WebGPU, the CPU for cpu", () => {
  assert.equal(llamaGpuFor('auto'), 'auto');
  assert.equal(llamaGpuFor('cpu'), false);
  assert.equal(llamaGpuFor('cuda'), 'cuda');
  assert.equal(llamaGpuFor('coreml'), 'metal');
  assert.equal(llamaGpuFor('dml'), 'vulkan');
  assert.equal(llamaGpuFor('webgpu'), 'vulkan');
});

test('a GPU build asked for that does not load here falls back to the CPU build with a warning, and the load says which build ran', async (t) => {
  const lines: { level: string; message: string }[] = [];
  const lm = await openCausalLm(
    { kind: 'gguf', file: GGUF },
    'the test',
    hub,
    { device: 'cuda', threads: 1, log: (level, message) => void lines.push({ level, message }) },
    watch,
  );
  t.after(() => lm.opened.model.dispose().then(() => {}));
  const loaded = lines.find((l) => /^loaded .* with llama\.cpp/.test(l.message));
  assert.ok(loaded, lines.map((l) => l.message).join('\n'));
  assert.ok(loaded.message.endsWith(`on ${lm.opened.device}, context 2048 tokens × 1`), loaded.message);
  if (lm.opened.device === 'cpu')
    assert.ok(
      lines.some(
        (l) => l.level === 'warn' && /llama\.cpp's cuda build does not load here .* run on the CPU/.test(l.message),
      ),
      lines.map((l) => l.message).join('\n'),
    );
  else assert.equal(lm.opened.device, 'cuda');
});

test("the engine's worker runs a GGUF model, and stops and terminates with llama.cpp loaded", async (t) => {
  const { until, send, close } = startWorker();
  try {
    send({ type: 'configure', config: config({ cacheDir: tempCache(t), offline: true }) });
    send({
      type: 'request',
      id: 1,
      request: { op: 'story', prompt: TEXT, words: 8, sampling: { seed: 2 }, model: { kind: 'gguf', file: GGUF } },
    });
    const end = await until(endOf(1));
    assert.equal(end.type, 'result', JSON.stringify(end));
  } finally {
    await close();
  }
});

test('an inline suggestion on a GGUF model: the same text gives the same suggestion, read again from the kept prefix', async (t) => {
  const cfg = config({ cacheDir: tempCache(t), offline: true });
  const engine = new Engine(cfg, () => {});
  t.after(() => engine.configure(cfg));
  const request = {
    op: 'story' as const,
    prompt: `${TEXT} The rain`,
    inline: { sentences: 1, maxWords: 6 },
    model: { kind: 'gguf' as const, file: GGUF },
  };
  const first = (await engine.run(request)) as StoryResult;
  assert.ok(first.stats.usedInputTokens > 0);
  const again = (await engine.run(request)) as StoryResult;
  assert.equal(again.suggestion, first.suggestion);
  assert.equal(again.continuation, first.continuation);
  assert.ok((again.wordCount ?? 0) <= 6, `${again.wordCount} words for at most 6`);
});
