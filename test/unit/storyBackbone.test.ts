// Continue Story fused with the shared backbone as its frozen half (a GPT-2 that reads the prompt first,
// then the story) and the backbone as the premise model: a tiny random export of
// models/train/story_test_models.sh. Its graphs compute what PyTorch computed, and prompt and story
// together never pass the backbone's positions, however long the story so far or the length asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { StoryLikelihood } from '../../extension/engine/eval/storyLikelihood';
import { StorySystem } from '../../extension/engine/systems/story';
import { fixture } from './helpers';
import { assertPremiseParity, assertStoryParity, type StoryParity } from './storyParity';

const dir = fixture('story-models/backbone');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
const parity = JSON.parse(readFileSync(path.join(dir, 'parity.json'), 'utf8')) as StoryParity;
let system: Promise<StorySystem> | undefined;
const load = () => (system ??= StorySystem.load(dir, quiet));

test("a story model fused with the backbone computes PyTorch's log-probabilities, greedy story and gates", async () => {
  assert.equal(manifest.architecture.pretrained.type, 'gpt2', 'the frozen half is the backbone');
  assert.equal(manifest.architecture.pretrained.readsPrompt, true);
  await assertStoryParity(await load(), parity, manifest);
});

test("the backbone as the premise model computes PyTorch's first step and greedy premise", async () => {
  assert.equal(manifest.architecture.premise.type, 'gpt2');
  await assertPremiseParity(await load(), parity, manifest);
});

test("a long story so far and a long continuation stay within the backbone's positions", async () => {
  const s = await load();
  const long = Array.from({ length: 40 }, (_, i) => `Day ${i + 1}. The fox ran to the river and back.`).join(' ');
  const r = await s.run({ op: 'story', prompt: long, words: 1000, sampling: { seed: 4, temperature: 1 } }, noop);
  assert.equal(r.truncated, true);
  assert.equal(r.stats.usedInputTokens, manifest.maxInputTokens - 1, 'the prompt fills its share');
  const room = manifest.architecture.pretrained.maxTargetPositions - manifest.maxInputTokens;
  assert.ok(
    r.tokens.length <= room + 1,
    `${r.tokens.length} story tokens after a prompt of ${manifest.maxInputTokens}`,
  );
  if (r.endedBy === 'length-limit') assert.equal(r.hitMaxLength?.limitedBy, 'model');
});

test('prompt ranking scores a story longer than the model writes under the longest prompt, inside the positions', async () => {
  const likelihood = StoryLikelihood.of(await load());
  const prompt = Array.from({ length: 30 }, (_, i) => `Day ${i + 1}, the fox ran.`).join(' ');
  const story = Array.from({ length: 120 }, () => 'The fox ran to the river and back.').join(' ');
  // Before the cut story's last token was fed to predict an end that is never scored, this read
  // one position past the backbone's last (onnxruntime: Gather indices out of bounds).
  const lps = await likelihood.tokenLogProbs(prompt, story);
  assert.equal(lps.length, manifest.architecture.maxTargetTokens, 'the story cut at the longest one the model writes');
  assert.ok(lps.every((lp) => Number.isFinite(lp) && lp <= 0));
  const short = await likelihood.tokenLogProbs(prompt, 'The fox ran.');
  assert.equal(
    short.length,
    (await load()).forcing.tokenizer.encode('The fox ran.').length + 1,
    'a whole story and its end',
  );
});
