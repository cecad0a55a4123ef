// The story model (models/story, a small export of models/train/train_story.sh): the ONNX step
// graphs compute what PyTorch computed, and what a writer gives Continue Story — a prompt, a long
// story so far, nothing, another language — gets a story or a clear message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { topKSample } from '../../extension/engine/decode/sampling';
import { EngineError } from '../../extension/engine/errors';
import { EMPTY_PROMPT_MESSAGE, StorySystem } from '../../extension/engine/systems/story';
import { countWords } from '../../extension/engine/text/words';
import { StoryResult } from '../../extension/protocol';
import { fixture, modelsDir } from './helpers';
import { assertPremiseParity, assertStoryParity, type StoryParity } from './storyParity';
import { tableModel } from './toyModel';

const dir = path.join(modelsDir, 'story');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
const parity = JSON.parse(readFileSync(fixture('story-parity.json'), 'utf8')) as StoryParity;
let system: Promise<StorySystem> | undefined;
const load = () => (system ??= StorySystem.load(dir, quiet));
const PROMPT = 'The old lighthouse keeper had not spoken to anyone in years, until the night the boat came.';

test("the exported story model computes PyTorch's first-step log-probabilities, greedy story and fusion gates", async () => {
  const s = await load();
  assert.deepEqual(s.name, manifest.name);
  await assertStoryParity(s, parity, manifest);
});

test("the exported premise model computes PyTorch's first-step log-probabilities and greedy premise", async () => {
  await assertPremiseParity(await load(), parity, manifest);
});

test('a prompt gets a continuation streamed token by token, with a fusion gate pair for every token', async () => {
  const s = await load();
  const partials: string[] = [];
  const r = await s.run(
    { op: 'story', prompt: PROMPT, words: 40, sampling: { seed: 3 } },
    { ...noop, partial: (t) => partials.push(t) },
  );
  assert.ok(StoryResult.safeParse(r).success, 'the result matches the protocol');
  assert.ok(r.continuation.trim().length > 0);
  assert.equal(r.truncated, false);
  assert.equal(r.usedPrompt, PROMPT);
  // Streamed: one partial text per token, each extending the one before, the last one the result.
  assert.equal(partials.length, r.tokens.length);
  partials.forEach((p, i) =>
    assert.ok(i === 0 || p.startsWith(partials[i - 1]), `partial ${i} does not extend the one before`),
  );
  assert.equal(partials.at(-1), r.continuation);
  // Each token's span holds its text; the gates are means of sigmoids.
  for (const t of r.tokens) {
    assert.equal(r.continuation.slice(t.start, t.end), t.text);
    assert.ok(t.gate && t.gate.trained >= 0 && t.gate.trained <= 1 && t.gate.pretrained >= 0 && t.gate.pretrained <= 1);
  }
  assert.equal(r.fusion, true);
  assert.deepEqual(r.sampling, { topK: 10, temperature: manifest.decoding.temperature, seed: 3 });
});

test('the same seed gives the same story; another seed another one', async () => {
  const s = await load();
  const a = await s.run({ op: 'story', prompt: PROMPT, words: 30, sampling: { seed: 11 } }, noop);
  const b = await s.run({ op: 'story', prompt: PROMPT, words: 30, sampling: { seed: 11 } }, noop);
  const c = await s.run({ op: 'story', prompt: PROMPT, words: 30, sampling: { seed: 12 } }, noop);
  assert.equal(a.continuation, b.continuation);
  assert.notEqual(a.continuation, c.continuation);
});

test('sampling never writes <unk>, padding, <s> or the mask, even where the model likes them best', async () => {
  // A toy model that puts most of its mass on the banned ids: top-k must skip them.
  const banned = manifest.architecture.neverSample as number[];
  const V = 8;
  const liking = tableModel(V, () => ({ 0: 0.3, 1: 0.3, 2: 0.2, 4: 0.1, 5: 0.05, 6: 0.04, 7: 0.01 }));
  for (let seed = 0; seed < 30; seed++) {
    const h = await topKSample(liking, [[]], { bos: 2, eos: 3, maxLength: 20, k: 10, temperature: 1, seed, banned });
    assert.equal(h.tokens.length, 20);
    assert.ok(
      h.tokens.every((t) => !banned.includes(t)),
      `seed ${seed}: ${h.tokens}`,
    );
  }
  // And the shipped model over several seeds, at a high temperature that flattens its distribution.
  const s = await load();
  for (let seed = 0; seed < 4; seed++) {
    const r = await s.run({ op: 'story', prompt: PROMPT, words: 40, sampling: { seed, temperature: 2 } }, noop);
    assert.ok(!/<unk>|<pad>|<s>|<mask>/.test(r.continuation), r.continuation);
  }
});

test('the length is asked in words: the continuation stops at that many words unless the model ends it sooner', async () => {
  const s = await load();
  for (const words of [5, 25]) {
    const r = await s.run({ op: 'story', prompt: PROMPT, words, sampling: { seed: 1 } }, noop);
    assert.equal(r.words, words);
    assert.equal(r.wordCount, countWords(r.continuation));
    assert.ok(r.wordCount <= words, `${r.wordCount} words for a setting of ${words}`);
    if (r.endedBy === 'words') assert.equal(r.wordCount, words);
    assert.equal(r.hitMaxLength, null);
  }
  // The model's own limit: 1000 words are more than the 256 tokens it was trained to write.
  const long = await s.run({ op: 'story', prompt: PROMPT, words: 1000, sampling: { seed: 2, temperature: 1 } }, noop);
  if (long.endedBy === 'length-limit')
    assert.deepEqual(long.hitMaxLength, { maxLength: manifest.architecture.maxTargetTokens, limitedBy: 'model' });
  else assert.equal(long.endedBy, 'end');
});

test('a story so far longer than the model reads is continued from its end, and the result says so', async () => {
  const s = await load();
  const long = Array.from(
    { length: 60 },
    (_, i) => `Chapter ${i + 1}. The keeper climbed the stairs again and looked at the sea.`,
  ).join('\n\n');
  const r = await s.run({ op: 'story', prompt: long, words: 5, sampling: { seed: 1 } }, noop);
  assert.equal(r.truncated, true);
  assert.equal(r.promptChars, long.length);
  assert.ok(r.usedFrom > 0 && r.usedFrom < long.length);
  assert.equal(r.usedPrompt, long.slice(r.usedFrom));
  assert.ok(r.usedPrompt.endsWith('looked at the sea.'), 'the end of the story so far was read');
  assert.equal(r.stats.usedInputTokens, manifest.maxInputTokens - 1, 'all the room but the </s> is used');
});

test('an empty prompt asks for a premise first; another language is refused with a clear message', async () => {
  const s = await load();
  for (const prompt of ['', '   \n\t ', '?!…']) {
    await assert.rejects(
      s.run({ op: 'story', prompt }, noop),
      (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && e.message === EMPTY_PROMPT_MESSAGE,
    );
  }
  assert.match(EMPTY_PROMPT_MESSAGE, /Write a Premise/);
  await assert.rejects(
    s.run({ op: 'story', prompt: '灯塔看守人在一个瓶子里发现了一封信，那是她自己写的。' }, noop),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && /English/.test(e.message),
  );
});

test("a premise is written up to the end-of-prompt token (or the premise model's limit), reproducibly from its seed", async () => {
  const s = await load();
  const a = await s.premise({ op: 'premise', sampling: { seed: 5 } }, noop);
  const b = await s.premise({ op: 'premise', sampling: { seed: 5 } }, noop);
  assert.equal(a.premise, b.premise);
  assert.ok(a.premise.trim().length > 0);
  assert.ok(a.stats.outputTokens <= manifest.architecture.premise.maxTokens);
  assert.equal(a.hitMaxLength !== null, a.stats.outputTokens === manifest.architecture.premise.maxTokens);
  // The premise is a prompt the story model can continue.
  const r = await s.run({ op: 'story', prompt: a.premise, words: 10, sampling: { seed: 5 } }, noop);
  assert.ok(r.continuation.length > 0);
});

test('a cancel stops the story between tokens', async () => {
  const s = await load();
  let partials = 0;
  await assert.rejects(
    s.run(
      { op: 'story', prompt: PROMPT, words: 200, sampling: { seed: 1 } },
      {
        ...noop,
        partial: () => {
          partials++;
        },
        checkCancelled: () => {
          if (partials >= 3) throw new EngineError('cancelled', 'Cancelled.');
        },
      },
    ),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
  assert.equal(partials, 3);
});
