/**
 * The real families' fixtures (test/fixtures/hub/fixtures: tiny random weights in the layouts and
 * with the tokenizers, chat templates and generation settings of the repositories MIRRORS.json
 * names) through our own decoding: a tiny random model writes noise, so these tests check what
 * Draftsmith controls: the prompt through the chat template, every end token, no end token banned,
 * each data type's graph (float16 caches included) writing through our step model, the topic words
 * of an essay all in, and a summarizer's own generation settings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { Engine } from '../../extension/engine/engine';
import { chatPromptText } from '../../extension/engine/hub/chatPrompt';
import type { Dtype } from '../../extension/engine/hub/fileChoice';
import { openHubCausalLm } from '../../extension/engine/hub/hubSystems';
import type { EngineConfig, EssayResult, HubConfig, StoryResult, SummarizeResult } from '../../extension/protocol';
import { article, modelsDir } from './helpers';
import { HUB_FIXTURES, startLoopbackHub } from './loopbackHub';

const SMOL = 'fixtures/SmolLM2-135M-Instruct';
const QWEN = 'fixtures/Qwen2.5-0.5B-Instruct';
const QWEN_KEEP = 'fixtures/Qwen2.5-0.5B-Instruct-num-logits';
const GPT2_OLD = 'fixtures/gpt2';
const BART = 'fixtures/distilbart-cnn-12-6';

const mirrors = (
  JSON.parse(readFileSync(path.join(HUB_FIXTURES, 'MIRRORS.json'), 'utf8')) as {
    repos: Record<string, { load: { dtype: Dtype }[] }>;
  }
).repos;

async function hubFor(t: import('node:test').TestContext): Promise<HubConfig> {
  const hub = await startLoopbackHub();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-instruct-'));
  t.after(async () => {
    await hub.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  return { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 };
}

const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };

for (const id of [SMOL, QWEN, QWEN_KEEP, GPT2_OLD]) {
  test(`${id}: every data type it has writes through our step model (${mirrors[id].load.map((l) => l.dtype).join(', ')})`, async (t) => {
    const hub = await hubFor(t);
    for (const { dtype } of mirrors[id].load) {
      const lm = await openHubCausalLm({ kind: 'hub', id }, 'the test', hub, runtime, watch, { prefer: dtype });
      try {
        assert.equal(lm.opened.choice.graphs[0].dtype, dtype);
        // float16 caches where the file has them (fp16, q4f16), float32 otherwise.
        assert.equal(lm.step.cacheType, /16/.test(dtype) ? 'float16' : 'float32', dtype);
        const prompt = lm.opened.tokenizer.encode('Once upon a time', { add_special_tokens: false });
        let out = await lm.step.run(prompt, lm.step.initial());
        for (let i = 0; i < 3; i++) {
          assert.ok(
            out.logProbs.every((x) => x <= 1e-4 && !Number.isNaN(x)),
            `${dtype}: log-probs`,
          );
          const best = out.logProbs.reduce((b, x, j) => (x > out.logProbs[b] ? j : b), 0);
          out = await lm.step.run([best], out.state);
        }
        assert.equal(out.state.length, prompt.length + 3);
      } finally {
        await lm.opened.model.dispose();
      }
    }
  });
}

test("Qwen2.5's two end tokens both end a text and neither is banned; its control tokens never enter prose", async (t) => {
  const lm = await openHubCausalLm({ kind: 'hub', id: QWEN }, 'the test', await hubFor(t), runtime, watch);
  try {
    const imEnd = lm.opened.tokenizer.encode('<|im_end|>', { add_special_tokens: false });
    const textEnd = lm.opened.tokenizer.encode('<|endoftext|>', { add_special_tokens: false });
    assert.equal(imEnd.length, 1);
    assert.equal(textEnd.length, 1);
    assert.deepEqual([...lm.ends].sort(), [imEnd[0], textEnd[0]].sort());
    assert.equal(lm.eos, imEnd[0], "the turn's end first: an instruct reply ends there");
    for (const e of lm.ends) assert.ok(!lm.banned.includes(e), `end token ${e} is banned`);
    // Its added tokens that are not marked special (fill-in-the-middle, tool calls) never enter prose.
    for (const marker of ['<|fim_pad|>', '<tool_call>', '<|im_start|>']) {
      const [id] = lm.opened.tokenizer.encode(marker, { add_special_tokens: false });
      assert.ok(lm.banned.includes(id), `${marker} is not banned`);
    }
    assert.equal(lm.bos, undefined, 'Qwen2 prepends no start token');
    assert.ok(lm.chat);
  } finally {
    await lm.opened.model.dispose();
  }
});

test("SmolLM2's <|im_start|> start token is not put before a chat prompt: the template writes the turns itself", async (t) => {
  const lm = await openHubCausalLm({ kind: 'hub', id: SMOL }, 'the test', await hubFor(t), runtime, watch);
  try {
    const text = chatPromptText(lm.opened.tokenizer, 'essay', 'Words: river, bridge');
    assert.match(text, /^<\|im_start\|>system\nYou write short essays\./);
    assert.match(text, /<\|im_start\|>user\nWords: river, bridge<\|im_end\|>\n<\|im_start\|>assistant\n$/);
    assert.ok(lm.chat);
  } finally {
    await lm.opened.model.dispose();
  }
});

function engineOn(hub: HubConfig): Engine {
  const config: EngineConfig = { modelsDir, device: 'cpu', threads: 1, hub };
  return new Engine(config, () => {});
}

for (const id of [SMOL, QWEN]) {
  test(`${id}: Expand into Essay reads the topic words as a chat turn and still puts every topic word in`, async (t) => {
    const hub = await hubFor(t);
    const engine = engineOn(hub);
    const topics = ['library', 'exam', 'coffee'];
    const r = (await engine.run({
      op: 'essay',
      topics: topics.join(', '),
      decoding: { beamSize: 8, maxLength: 160 },
      model: { kind: 'hub', id },
    })) as EssayResult;
    const lm = await openHubCausalLm({ kind: 'hub', id }, 'the test', hub, runtime, watch);
    try {
      const expected = lm.opened.tokenizer.encode(
        chatPromptText(lm.opened.tokenizer, 'essay', `Words: ${topics.join(', ')}`),
        {
          add_special_tokens: false,
        },
      );
      assert.equal(r.stats.inputTokens, expected.length, 'the prompt is the chat template around the words');
    } finally {
      await lm.opened.model.dispose();
    }
    for (const w of topics) assert.ok(r.candidates[0].covered.includes(w), `${w} missing: ${r.candidates[0].text}`);
  });
}

test('Continue Story with an instruct model: the story is the user turn, and a prompt longer than the cap is read from its end', async (t) => {
  const hub = { ...(await hubFor(t)), contextTokens: 256 };
  const engine = engineOn(hub);
  const long = Array.from({ length: 400 }, (_, i) => `word${i % 37}`).join(' ');
  const r = (await engine.run({
    op: 'story',
    prompt: long,
    words: 5,
    sampling: { seed: 1 },
    model: { kind: 'hub', id: QWEN },
  })) as StoryResult;
  assert.ok(r.truncated);
  assert.ok(r.usedFrom > 0);
  assert.ok(r.external?.contextCut, 'the result says the text was cut to the cap');
  assert.ok(r.external!.contextCut!.usedTokens < r.external!.contextCut!.totalTokens);
  assert.ok((r.stats.usedInputTokens ?? 0) <= 256);
});

test("Continue Story samples at Qwen2.5's own temperature and k (generation_config.json) unless a setting says otherwise; SmolLM2, without its own, at ours", async (t) => {
  // A small context: noise from random weights is never words, so the story ends at the context's end.
  const engine = engineOn({ ...(await hubFor(t)), contextTokens: 64 });
  const story = async (id: string, sampling: { topK?: number }) => {
    const r = (await engine.run({
      op: 'story',
      prompt: 'Once upon a time',
      words: 3,
      sampling: { seed: 2, ...sampling },
      model: { kind: 'hub', id },
    })) as StoryResult;
    const ran = Object.fromEntries((r.external?.decoding ?? []).map((d) => [d.name, `${d.value} (${d.from})`]));
    return { sampling: { topK: r.sampling.topK, temperature: r.sampling.temperature }, ran };
  };
  assert.deepEqual(await story(QWEN, {}), {
    sampling: { topK: 20, temperature: 0.7 },
    ran: { topK: '20 (model)', temperature: '0.7 (model)' },
  });
  assert.deepEqual((await story(QWEN, { topK: 5 })).ran, { topK: '5 (setting)', temperature: '0.7 (model)' });
  assert.deepEqual((await story(SMOL, {})).ran, { topK: '10 (draftsmith)', temperature: '0.8 (draftsmith)' });
});

test("distilbart-cnn's own generation settings run unless a setting says otherwise, and the result says whose each was", async (t) => {
  const engine = engineOn(await hubFor(t));
  const own = (await engine.run({
    op: 'summarize',
    text: article,
    model: { kind: 'hub', id: BART },
  })) as SummarizeResult;
  const ran = Object.fromEntries((own.external?.decoding ?? []).map((d) => [d.name, d]));
  assert.deepEqual(
    { beams: ran.beamSize?.value, min: ran.minLength?.value, max: ran.maxLength?.value, lp: ran.lengthPenalty?.value },
    { beams: 4, min: 54, max: 140, lp: 2 },
  );
  assert.equal(ran.beamSize?.from, 'model');
  assert.ok(own.stats.outputTokens >= 54, `at least the model's minimum: ${own.stats.outputTokens}`);
  const set = (await engine.run({
    op: 'summarize',
    text: article,
    decoding: { maxLength: 60, minLength: 5 },
    model: { kind: 'hub', id: BART },
  })) as SummarizeResult;
  const ranSet = Object.fromEntries((set.external?.decoding ?? []).map((d) => [d.name, d]));
  assert.equal(ranSet.maxLength?.value, 60);
  assert.equal(ranSet.maxLength?.from, 'setting');
  assert.ok(set.stats.outputTokens <= 60);
});
