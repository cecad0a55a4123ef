/**
 * Hub models against a loopback Hub (loopbackHub.ts): transformers.js's real download
 * and cache code, our engine around it. Every failure must say what happened and leave nothing in
 * the cache that a later run would use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import type { StoryResult, SummarizeResult } from '../../extension/protocol';
import { article, endOf, startWorker } from './helpers';
import { summaryCutNote } from '../../extension/windowNotes';
import { countWords } from '../../extension/engine/text/words';
import { HUB_FIXTURES, STORY_LM, STORY_LM_WEIGHTS, SUMMARIZER } from './loopbackHub';
import { config, files, tempCache, withHub } from './hubTestKit';

const PROMPT = 'Once upon a time, a little girl named Lily found a red ball in the park.';
const ONNX = `${STORY_LM}/${STORY_LM_WEIGHTS}`;

const story = (seed = 7, words = 25) => ({
  op: 'story' as const,
  prompt: PROMPT,
  words,
  sampling: { seed },
  model: { kind: 'hub' as const, id: STORY_LM },
});

const failsWith = (code: string, what: RegExp) => (e: unknown) =>
  e instanceof EngineError && e.code === code && what.test(e.message);

test('a Hub story model downloads on first use with progress in bytes and percent, then writes a story', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  const progress: string[] = [];
  const r = (await engine.run(story(), { progress: (m) => progress.push(m) })) as StoryResult;
  assert.ok(
    progress.some((m) => /^Downloading draftsmith\/story-gpt2: [\d.]+ of [\d.]+ MB \(100 %\)$/.test(m)),
    progress.join('\n'),
  );
  assert.ok(r.continuation.trim().length > 0);
  assert.equal(r.external?.id, STORY_LM);
  assert.equal(r.external?.architecture, 'gpt2');
  assert.equal(r.fusion, false);
  // The same seed writes the same story (our sampler runs the Hub model).
  const again = (await engine.run(story())) as StoryResult;
  assert.equal(again.continuation, r.continuation);
  assert.ok(files(cacheDir).includes(path.join(STORY_LM, STORY_LM_WEIGHTS)), files(cacheDir).join(', '));
});

test('once downloaded, a Hub model loads from the cache with the server gone (a fresh worker)', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  await new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {}).run(story());
  await hub.close();
  const { until, send, close } = startWorker();
  try {
    send({ type: 'configure', config: config({ endpoint: hub.endpoint, cacheDir }) });
    send({ type: 'request', id: 1, request: story(3) });
    const end = await until(endOf(1));
    assert.equal(end.type, 'result', JSON.stringify(end));
  } finally {
    await close();
  }
});

test('offline, a model not in the cache is refused without a request, saying downloads are off', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir, offline: true }), () => {});
  await assert.rejects(
    engine.run(story()),
    failsWith('model-unavailable', /not in the download cache.*downloads are off/),
  );
  assert.deepEqual(hub.requests, []);
  assert.deepEqual(files(cacheDir), []);
});

test('a model id the Hub does not have is "not found", and nothing is cached', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  await assert.rejects(
    engine.run({ ...story(), model: { kind: 'hub', id: 'draftsmith/no-such-model' } }),
    failsWith('model-unavailable', /draftsmith\/no-such-model was not found at http:\/\/127\.0\.0\.1/),
  );
  assert.deepEqual(files(cacheDir), []);
});

for (const [how, what] of [
  ['500', /The Hub could not send draftsmith\/story-gpt2: .*500|Internal server error/],
  ['truncate', /broke off before its end/],
] as const) {
  test(`a server answering ${how === '500' ? '500' : 'with a file cut off'} fails the load clearly, keeps no part of that file, and a later try succeeds`, async (t) => {
    const hub = await withHub(t);
    const cacheDir = tempCache(t);
    hub.behave.set(ONNX, how);
    await assert.rejects(
      new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {}).run(story()),
      failsWith('model-unavailable', what),
    );
    assert.ok(!files(cacheDir).some((f) => f.endsWith('.onnx') || f.includes('.onnx.tmp')), files(cacheDir).join(', '));
    hub.behave.delete(ONNX);
    const r = (await new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {}).run(story())) as StoryResult;
    assert.ok(r.continuation.length > 0);
  });
}

test('a server that stops answering mid-download fails after the stall time, keeping nothing of the file', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(ONNX, 'stall');
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir, stallSeconds: 1 }), () => {});
  await assert.rejects(engine.run(story()), failsWith('model-unavailable', /stopped: nothing received for 1 s/));
  assert.ok(!files(cacheDir).some((f) => f.endsWith('.onnx') || f.includes('.onnx.tmp')), files(cacheDir).join(', '));
});

test('Cancel during the download stops it at once and leaves no partial file; the next run downloads it whole', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(ONNX, { slowBytesPerSecond: 200_000 });
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  let cancelled = false;
  const t0 = Date.now();
  await assert.rejects(
    engine.run(story(), {
      progress: (m) => {
        if (/^Downloading .*\((\d+) %\)$/.test(m) && !/\(0 %\)/.test(m)) cancelled = true;
      },
      isCancelled: () => cancelled,
    }),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
  assert.ok(Date.now() - t0 < 5000, 'the cancel took effect within the download, not after it');
  assert.ok(!files(cacheDir).some((f) => f.endsWith('.onnx') || f.includes('.onnx.tmp')), files(cacheDir).join(', '));
  hub.behave.delete(ONNX);
  const r = (await engine.run(story())) as StoryResult;
  assert.ok(r.continuation.length > 0);
});

test("a local folder in transformers.js's layout runs without any download", async () => {
  const engine = new Engine(config({ cacheDir: path.join(os.tmpdir(), 'draftsmith-hub-unused') }), () => {});
  const r = (await engine.run({
    ...story(),
    model: { kind: 'folder', dir: path.join(HUB_FIXTURES, STORY_LM) },
  })) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.equal(r.external?.architecture, 'gpt2');
  const p = await engine.run({
    op: 'premise',
    sampling: { seed: 1 },
    model: { kind: 'folder', dir: path.join(HUB_FIXTURES, STORY_LM) },
  });
  assert.equal(p.op, 'premise');
});

// The editor appends the partial texts as they come and cannot take a character back: a premise opens
// a text, so its partials must be the start of the premise the result carries, never a leading space.
test("a Hub model's premise streams as it is: every partial text is the start of the premise written", async () => {
  const engine = new Engine(config({ cacheDir: path.join(os.tmpdir(), 'draftsmith-hub-unused') }), () => {});
  const model = { kind: 'folder' as const, dir: path.join(HUB_FIXTURES, STORY_LM) };
  for (let seed = 1; seed <= 30; seed++) {
    const partials: string[] = [];
    const p = await engine.run({ op: 'premise', sampling: { seed }, model }, { partial: (t) => partials.push(t) });
    assert.equal(p.op, 'premise');
    if (p.op !== 'premise') return;
    assert.ok(partials.length > 0, `seed ${seed}: nothing streamed`);
    for (const t of partials) {
      assert.ok(
        p.premise.startsWith(t.trimEnd()),
        `seed ${seed}: streamed ${JSON.stringify(t)}, wrote ${JSON.stringify(p.premise)}`,
      );
    }
  }
});

test('Restart Engine while a Hub model writes: the worker answers "stopped" only once no native call runs, and the process lives on', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const { until, send, close, w } = startWorker();
  let exited = false;
  w.on('exit', () => {
    exited = true;
  });
  send({ type: 'configure', config: config({ endpoint: hub.endpoint, cacheDir }) });
  send({ type: 'request', id: 1, request: story(5, 2000) });
  // Mid-generation: a few words streamed already.
  await until((m) => m.type === 'partial' && m.id === 1 && m.text.split(/\s+/).length > 3);
  await close(); // 'stop', wait for 'stopped', terminate: what Restart Engine does
  assert.ok(exited);
  // This process (the extension host's stand-in) is still here and runs a fresh worker.
  const again = startWorker();
  try {
    again.send({ type: 'configure', config: config({ endpoint: hub.endpoint, cacheDir }) });
    again.send({ type: 'request', id: 2, request: story(6) });
    assert.equal((await again.until(endOf(2))).type, 'result');
  } finally {
    await again.close();
  }
});

test('a Hub summarizer writes an abstractive summary with our beam search, and says what the panel cannot show', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir }), () => {});
  const request = {
    op: 'summarize' as const,
    text: article,
    mode: 'extractive' as const,
    decoding: { maxLength: 30 },
    model: { kind: 'hub' as const, id: SUMMARIZER },
  };
  const r = (await engine.run(request)) as SummarizeResult;
  // Extractive mode needs TAAS's topic-aware attention: a Hub model writes its own summary.
  assert.equal(r.mode, 'abstractive');
  assert.ok(r.summary.trim().length > 0);
  assert.ok(r.stats.outputTokens <= 30);
  assert.equal(r.external?.id, SUMMARIZER);
  assert.equal(r.external?.architecture, 'bart');
  assert.match(r.external?.note ?? '', /no topics or topic-aware attention/);
  assert.deepEqual(r.tokens, []);
  // Beam search: the same text gives the same summary.
  assert.equal(((await engine.run(request)) as SummarizeResult).summary, r.summary);
});

test('a Hub summarizer reads a long document whole, part by part; one window only when asked without a format, and says so', async (t) => {
  const hub = await withHub(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }), () => {});
  const long = Array.from({ length: 12 }, (_, i) => article.replace('Riverton', `Town${i}`)).join('\n\n');
  const request = {
    op: 'summarize' as const,
    text: long,
    decoding: { maxLength: 8, beamSize: 1 },
    model: { kind: 'hub' as const, id: SUMMARIZER },
  };
  // As every command asks (a format): section by section, each part within the encoder's window.
  const whole = (await engine.run({ ...request, format: 'plain' })) as SummarizeResult;
  const window = whole.inputLimit ?? 0;
  assert.ok(whole.stats.usedInputTokens > window, `${whole.stats.usedInputTokens} tokens: make the text longer`);
  assert.equal(whole.truncated, false);
  assert.equal(whole.usedChars, long.length);
  assert.ok((whole.sections ?? []).reduce((n, s) => n + s.parts, 0) > 1);
  assert.equal(summaryCutNote(whole), undefined);
  // Without a format (an API caller's plain request): its first window, and the note names what was read.
  const one = (await engine.run(request)) as SummarizeResult;
  assert.equal(one.truncated, true);
  assert.ok(one.usedChars < long.length && long.slice(0, one.usedChars).length > 0);
  const n = (x: number) => x.toLocaleString('en-US');
  assert.match(
    summaryCutNote(one) ?? '',
    new RegExp(
      `^the model reads one window \\(${n(window)} tokens\\): the summary covers the first ` +
        `${n(countWords(long.slice(0, one.usedChars)))} words \\(${n(one.usedChars)} of ${n(long.length)} characters\\)$`,
    ),
  );
});

test('a model of the wrong kind is refused with what the command needs', async (t) => {
  const hub = await withHub(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }), () => {});
  await assert.rejects(
    engine.run({ op: 'summarize', text: article, model: { kind: 'hub', id: STORY_LM } }),
    // A language model summarizes only when it is an instruct model (a chat template): this one is not.
    failsWith(
      'bad-model',
      /draftsmith\/story-gpt2 has no chat template, so it is no instruct model\. Summarize Document runs on an encoder-decoder summarizer .* or an instruct model/,
    ),
  );
  await assert.rejects(
    engine.run({ ...story(), model: { kind: 'hub', id: SUMMARIZER } }),
    failsWith('bad-model', /Continue Story needs a causal language model/),
  );
});

test('an essay from a Hub language model contains every topic word (constrained beam search), or says which are missing without the constraints', async (t) => {
  const hub = await withHub(t);
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }), () => {});
  const topics = 'library, students, exam';
  const r = await engine.run({
    op: 'essay',
    topics,
    decoding: { maxLength: 40 },
    model: { kind: 'hub', id: STORY_LM },
  });
  assert.deepEqual([...r.candidates[0].covered].sort(), ['exam', 'library', 'students']);
  for (const w of ['library', 'students', 'exam']) assert.match(r.candidates[0].text, new RegExp(`\\b${w}\\b`, 'i'));
  assert.equal(r.external?.id, STORY_LM);
  assert.deepEqual(r.layerWeights, []);
  const plain = await engine.run({
    op: 'essay',
    topics,
    includeAllTopics: false,
    decoding: { maxLength: 40 },
    model: { kind: 'hub', id: STORY_LM },
  });
  // Without the constraints the result still says which words the essay has (the editor names the missing ones).
  assert.ok(plain.candidates[0].covered.every((w) => ['library', 'students', 'exam'].includes(w)));
});

test('the beams of a Hub language model each keep their own cache (rows follow reorder)', async () => {
  const { causalStepOf } = await import('../../extension/engine/hub/hubSystems');
  const { openHubModel } = await import('../../extension/engine/hub/hubModel');
  const watch = { progress: () => {}, isCancelled: () => false };
  const opened = await openHubModel(
    { kind: 'folder', dir: path.join(HUB_FIXTURES, STORY_LM) },
    'causal-lm',
    'the test',
    config({ cacheDir: os.tmpdir() }).hub!,
    { device: 'cpu', threads: 1, log: () => {} },
    watch,
  );
  try {
    const { step } = causalStepOf(opened);
    const prompt = await step.run([2, 50, 60, 70], step.initial());
    const one = await step.run([80], prompt.state);
    const other = await step.run([90], prompt.state);
    const both = await step.step([80, 90], step.tile(prompt.state, 2));
    const V = one.logProbs.length;
    const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
    // int8 weights quantize each call's activations as a whole: rows agree closely, not bit for bit.
    assert.ok(maxDiff(both.logProbs.subarray(0, V), one.logProbs) < 0.05);
    assert.ok(maxDiff(both.logProbs.subarray(V), other.logProbs) < 0.05);
    // Swapped rows: row 0 now continues "... 90", row 1 "... 80".
    const swapped = await step.step([5, 5], step.reorder(both.state, [1, 0]));
    assert.ok(maxDiff(swapped.logProbs.subarray(0, V), (await step.run([5], other.state)).logProbs) < 0.05);
    assert.ok(maxDiff(swapped.logProbs.subarray(V), (await step.run([5], one.state)).logProbs) < 0.05);
    assert.ok(
      maxDiff(one.logProbs, other.logProbs) > 0.05,
      'the two continuations differ, so the test can tell rows apart',
    );
  } finally {
    await opened.model.dispose();
  }
});

test('asked for CUDA where it cannot run, a Hub model runs on the CPU and says so once, as the built-in models do', async (t) => {
  const hub = await withHub(t);
  const lines: string[] = [];
  const engine = new Engine(
    { ...config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }), device: 'cuda' },
    (_level, m) => lines.push(m),
    { missingCudaLibrary: () => 'libonnxruntime_providers_cuda.so is not installed' },
  );
  const r = (await engine.run(story())) as StoryResult;
  assert.equal(r.stats.device, 'cpu');
  assert.equal(
    lines.filter((m) =>
      /CUDA execution provider unavailable \(libonnxruntime_providers_cuda\.so is not installed\); running the story model on the CPU/.test(
        m,
      ),
    ).length,
    1,
    lines.join('\n'),
  );
});
