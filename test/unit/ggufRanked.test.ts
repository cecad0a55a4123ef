/**
 * Greedy and sampled decoding on a GGUF model read llama.cpp's own ranking of each row (its top-k
 * sampler hands over the best candidates, not the whole vocabulary): the tokens written are those the
 * whole distribution gives, with the same seed, the same bans and the same guards, and a banned token
 * is never written. On the tiny fixture (320 tokens), whose candidates (64) are a fifth of the row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import type { RowGuard } from '../../extension/engine/decode/guards';
import { greedy, topKSample, type SamplingOptions } from '../../extension/engine/decode/sampling';
import type { StepModel } from '../../extension/engine/decode/types';
import type { CausalLm } from '../../extension/engine/hub/causalLm';
import { chatPromptText } from '../../extension/engine/hub/chatPrompt';
import { openCausalLm } from '../../extension/engine/hub/hubSystems';
import { fixture } from './helpers';

const GGUF = fixture('gguf/smollm2-tiny.gguf');
const hub = { endpoint: 'http://127.0.0.1:9/', cacheDir: os.tmpdir(), offline: true, stallSeconds: 30 };
const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };
const TEXT = 'The writer opened the draft and read the first line again.';

async function open(t: { after(fn: () => Promise<void>): void }): Promise<CausalLm> {
  const lm = await openCausalLm({ kind: 'gguf', file: GGUF }, 'the test', hub, runtime, watch);
  t.after(() => lm.opened.model.dispose().then(() => {}));
  return lm;
}

/** The model as a loop sees it, counting which step it reads: the ranked candidates, or (`whole`) only the full row. */
function counted(lm: CausalLm, whole: boolean) {
  const calls = { ranked: 0, full: 0 };
  const step = lm.step as StepModel<unknown>;
  const model: StepModel<unknown> = {
    vocabSize: step.vocabSize,
    step: (tokens, state) => (calls.full++, step.step(tokens, state)),
    reorder: (state, rows) => step.reorder(state, rows),
    ...(whole ? {} : { stepRanked: (tokens, state, want) => (calls.ranked++, step.stepRanked!(tokens, state, want)) }),
  };
  return { model, calls };
}

async function both(
  t: { after(fn: () => Promise<void>): void },
  decode: (model: StepModel<unknown>, state: unknown, opts: SamplingOptions) => Promise<{ tokens: number[] }>,
  extra: Partial<SamplingOptions> = {},
) {
  const lm = await open(t);
  const prompt = lm.opened.tokenizer.encode(chatPromptText(lm.opened.tokenizer, 'story', TEXT));
  const opts: SamplingOptions = {
    bos: prompt[prompt.length - 1],
    eos: lm.eos,
    maxLength: 24,
    banned: lm.banned,
    ...extra,
  };
  const run = async (whole: boolean) => {
    const { model, calls } = counted(lm, whole);
    const read = await lm.step.run(prompt.slice(0, -1), lm.step.initial());
    return { ...(await decode(model, read.state, opts)), calls };
  };
  const fast = await run(false);
  const full = await run(true);
  assert.ok(fast.calls.ranked >= fast.tokens.length, `the fast path read ${fast.calls.ranked} ranked steps`);
  assert.ok(fast.calls.full < fast.calls.ranked, `the whole row was read ${fast.calls.full} times`);
  assert.ok(fast.tokens.length > 4, `${fast.tokens.length} tokens`);
  return { fast, full };
}

test("greedy decoding from llama.cpp's ranked candidates writes the tokens the whole distribution gives", async (t) => {
  const { fast, full } = await both(t, (m, s, o) => greedy(m, s, o));
  assert.deepEqual(fast.tokens, full.tokens);
});

test('a seeded top-k sample from the ranked candidates draws the tokens the whole distribution draws', async (t) => {
  for (const seed of [1, 7, 42]) {
    const { fast, full } = await both(t, (m, s, o) => topKSample(m, s, { ...o, k: 10, temperature: 0.9, seed }), {
      minLength: 8,
    });
    assert.deepEqual(fast.tokens, full.tokens, `seed ${seed}`);
  }
});

test('banned tokens are never written from the ranked candidates, and the rest is what the whole row gives', async (t) => {
  const lm = await open(t);
  const prompt = lm.opened.tokenizer.encode(chatPromptText(lm.opened.tokenizer, 'story', TEXT));
  const read = await lm.step.run(prompt.slice(0, -1), lm.step.initial());
  const free = await greedy(lm.step, read.state, { bos: prompt[prompt.length - 1], eos: lm.eos, maxLength: 24 });
  // Ban what greedy wrote unbanned: each of those would have been the best candidate at some step.
  const banned = [...new Set(free.tokens)];
  const { fast, full } = await both(t, (m, s, o) => greedy(m, s, o), { banned: [...lm.banned, ...banned] });
  for (const token of fast.tokens) assert.ok(!banned.includes(token), `banned ${token} was written`);
  assert.deepEqual(fast.tokens, full.tokens);
});

test('a guard that refuses most candidates: the ranked path asks it as the whole row would, and reads the whole row when too few pass', async (t) => {
  // Only every fifth id may follow: among 64 candidates about 13 pass, fewer than a 20-token sample needs.
  const guard: RowGuard = { forRow: () => (token) => token % 5 === 0 };
  const greedyRun = await both(t, (m, s, o) => greedy(m, s, o), { guard });
  assert.deepEqual(greedyRun.fast.tokens, greedyRun.full.tokens);
  for (const token of greedyRun.fast.tokens) assert.equal(token % 5, 0, `token ${token}`);
  const lm = await open(t);
  const prompt = lm.opened.tokenizer.encode(chatPromptText(lm.opened.tokenizer, 'story', TEXT));
  const opts = { bos: prompt[prompt.length - 1], eos: lm.eos, maxLength: 12, guard, k: 20, temperature: 1, seed: 5 };
  const fast = counted(lm, false);
  const a = await topKSample(fast.model, (await lm.step.run(prompt.slice(0, -1), lm.step.initial())).state, opts);
  const whole = counted(lm, true).model;
  const b = await topKSample(whole, (await lm.step.run(prompt.slice(0, -1), lm.step.initial())).state, opts);
  assert.deepEqual(a.tokens, b.tokens);
  assert.ok(fast.calls.full > 0, 'the whole row was read where the candidates held too few allowed');
});
