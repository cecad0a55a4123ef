/**
 * The last prompt's cache, kept for the next prompt that starts the same way (a story continued
 * again, an inline suggestion at the next pause): what it reads again, and that the state it gives
 * is the state a fresh read gives. Run on the SmolLM2 fixture (grouped-query attention, float32 and
 * float16 caches) from the loopback Hub.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import type { Dtype } from '../../extension/engine/hub/fileChoice';
import { openHubCausalLm, type CausalLm, type HubCausalLm } from '../../extension/engine/hub/hubSystems';
import { PrefixCache } from '../../extension/engine/hub/prefixCache';
import { startLoopbackHub } from './loopbackHub';

const SMOL = 'fixtures/SmolLM2-135M-Instruct';

async function lmFor(t: import('node:test').TestContext, dtype: Dtype): Promise<HubCausalLm> {
  const hub = await startLoopbackHub();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-prefix-'));
  const lm = await openHubCausalLm(
    { kind: 'hub', id: SMOL },
    'the test',
    { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 },
    { device: 'cpu', threads: 1, log: () => {} },
    { progress: () => {}, isCancelled: () => false },
    { prefer: dtype },
  );
  t.after(async () => {
    await lm.opened.model.dispose();
    await hub.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  return lm;
}

const ids = (lm: CausalLm, text: string) => lm.opened.tokenizer.encode(text, { add_special_tokens: false });

/** The log-probs of the token after `state` when it reads `next`. */
async function nextLogProbs(lm: HubCausalLm, state: Parameters<HubCausalLm['step']['run']>[1], next: number) {
  return (await lm.step.run([next], state)).logProbs;
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

for (const dtype of ['fp32', 'q4f16'] as const) {
  test(`${dtype}: a story read again is not read again, and a story written on reads only its new words, to the same state as a fresh read`, async (t) => {
    const lm = await lmFor(t, dtype);
    const story = ids(lm, 'Once upon a time, a little girl named Lily found a red ball in the park.');
    const more = ids(lm, ' She threw it to her dog, who ran after it across the grass.');
    const cache = new PrefixCache(lm.step);

    const first = await cache.read(story);
    assert.equal(first.reused, 0);
    const again = await cache.read(story);
    assert.equal(again.reused, story.length, 'the same story was read again');
    assert.equal(again.state, first.state, 'the same story did not give the very same cache');

    const longer = [...story, ...more];
    const on = await cache.read(longer);
    assert.equal(on.reused, story.length);
    assert.equal(on.state.length, longer.length);
    const fresh = (await lm.step.run(longer, lm.step.initial())).state;
    const probe = more[0];
    const tolerance = dtype === 'fp32' ? 1e-4 : 2e-2;
    const d = maxDifference(await nextLogProbs(lm, on.state, probe), await nextLogProbs(lm, fresh, probe));
    assert.ok(d < tolerance, `the cache read on differs from a fresh read by ${d}`);
  });
}

test('an edited ending: the shared beginning is kept, what follows is read again, and the state is a fresh read of the new text', async (t) => {
  const lm = await lmFor(t, 'fp32');
  const cache = new PrefixCache(lm.step);
  const start = ids(lm, 'The river ran low that summer, and the children walked its dry bed');
  const a = [...start, ...ids(lm, ' every morning.')];
  const b = [...start, ...ids(lm, ' looking for coins and bells.')];
  await cache.read(a);
  const edited = await cache.read(b);
  assert.ok(edited.reused >= start.length && edited.reused < a.length, `reused ${edited.reused} of ${a.length}`);
  assert.equal(edited.state.length, b.length);
  const fresh = (await lm.step.run(b, lm.step.initial())).state;
  const d = maxDifference(await nextLogProbs(lm, edited.state, 13), await nextLogProbs(lm, fresh, 13));
  assert.ok(d < 1e-4, `differs from a fresh read by ${d}`);
  // The cut kept the earlier state intact: reading the first text again still matches a fresh read.
  const back = await cache.read(a);
  const freshA = (await lm.step.run(a, lm.step.initial())).state;
  assert.ok(maxDifference(await nextLogProbs(lm, back.state, 13), await nextLogProbs(lm, freshA, 13)) < 1e-4);
});
