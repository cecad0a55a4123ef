/**
 * Every decoder family Draftsmith runs (CAUSAL_FAMILIES, families.ts) from a repository in that family's
 * real layout (test/fixtures/hub, written by hub_fixtures.py; MIRRORS.json names the repository each
 * imitates), through the Hub path a writer's choice takes: the loopback Hub, the download cache,
 * transformers.js's session and tokenizer, our step model. For each family: the cache layout is what
 * config.json says (the family's own head_dim where it sets one apart), a plain prompt starts with the
 * start token exactly when the family's tokenizer puts it there, reading a text token by token through
 * the cache gives the full pass's numbers, and a chat prompt goes through the family's template with its
 * markers whole and its turn's end among the end tokens. A family without a fixture fails by name.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { chatPromptIds, type ChatMessage } from '../../extension/engine/hub/chatPrompt';
import { CAUSAL_FAMILIES } from '../../extension/engine/hub/families';
import { openHubCausalLm } from '../../extension/engine/hub/hubSystems';
import { sessionsOf } from '../../extension/engine/hub/tjsInternals';
import type { HubConfig } from '../../extension/protocol';
import { HUB_FIXTURES, startLoopbackHub } from './loopbackHub';

interface Mirror {
  imitates: string;
  family: string;
  model_type: string;
}
interface Check {
  sample: string;
  sample_ids: number[];
  chat?: ChatMessage[];
  chat_prompt?: string;
  chat_ids?: number[];
}
const read = (f: string): unknown => JSON.parse(readFileSync(path.join(HUB_FIXTURES, f), 'utf8'));
const MIRRORS = (read('MIRRORS.json') as { repos: Record<string, Mirror> }).repos;
const CHECKS = read('CHECKS.json') as Record<string, Check>;

/** The fixture repository of a family: the first in MIRRORS.json whose config.json has that model_type. */
const fixtureOf = (family: string) => Object.keys(MIRRORS).find((id) => MIRRORS[id].model_type === family);

const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };

async function hubFor(t: import('node:test').TestContext): Promise<HubConfig> {
  const hub = await startLoopbackHub();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-family-'));
  t.after(async () => {
    await hub.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  return { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 };
}

const argmax = (x: Float32Array) => x.reduce((b, v, i) => (v > x[b] ? i : b), 0);
const maxDiff = (a: Float32Array, b: Float32Array) =>
  a.reduce((m, v, i) => (Number.isFinite(v) || Number.isFinite(b[i]) ? Math.max(m, Math.abs(v - b[i])) : m), 0);

test('every family Draftsmith lists has a fixture repository in its layout', () => {
  const missing = Object.keys(CAUSAL_FAMILIES).filter((f) => !fixtureOf(f));
  assert.deepEqual(missing, [], `no fixture in test/fixtures/hub for: ${missing.join(', ')} (hub_fixtures.py)`);
});

for (const [family, { label }] of Object.entries(CAUSAL_FAMILIES)) {
  test(`${family} (${label}): layout, start token, cached decoding and chat prompt through the Hub path`, async (t) => {
    const id = fixtureOf(family);
    assert.ok(id, `${family} has no fixture repository in test/fixtures/hub: add one to hub_fixtures.py`);
    const config = read(path.join(id, 'config.json')) as Record<string, number | null | undefined>;
    const check = CHECKS[id];
    const lm = await openHubCausalLm({ kind: 'hub', id }, 'the test', await hubFor(t), runtime, watch, {
      prefer: 'fp32',
    });
    try {
      const tokenizer = lm.opened.tokenizer;
      // The cache layout config.json gives: layers, key/value heads, head size (head_dim where the family sets it).
      const heads = config.num_attention_heads ?? config.n_head;
      const headDim = config.head_dim ?? (config.hidden_size ?? config.n_embd)! / heads!;
      const expected = {
        modelType: family,
        layers: config.num_hidden_layers ?? config.n_layer,
        kvHeads: config.num_key_value_heads ?? config.n_head,
        headDim,
      };
      const { modelType, layers, kvHeads } = lm.layout;
      assert.deepEqual({ modelType, layers, kvHeads, headDim: lm.layout.headDim }, expected);
      const past = sessionsOf(lm.opened.model).model.inputMetadata.find(
        (m) => m.name === `past_key_values.${layers - 1}.key`,
      ) as { shape?: (number | string)[] } | undefined;
      assert.deepEqual(past?.shape?.slice(1, 4).filter(Number.isInteger), [kvHeads, headDim], 'the graph cache');

      // The start token goes first exactly where the family's tokenizer puts it (CHECKS.json: its ids for a text).
      const bos = config.bos_token_id ?? undefined;
      const tokenizerAddsIt = bos !== undefined && check.sample_ids[0] === bos && !lm.ends.includes(bos);
      assert.equal(
        lm.bos,
        tokenizerAddsIt ? bos : undefined,
        `start token ${bos}: ids ${check.sample_ids.slice(0, 3)}`,
      );

      // Token by token through the cache = one full pass over the same tokens.
      const prompt = [
        ...(lm.bos !== undefined ? [lm.bos] : []),
        ...tokenizer.encode('Once upon a time', { add_special_tokens: false }),
      ];
      let out = await lm.step.run(prompt, lm.step.initial());
      const written: number[] = [];
      for (let i = 0; i < 4; i++) {
        written.push(argmax(out.logProbs));
        out = await lm.step.run([written[i]], out.state);
      }
      const full = await lm.step.run([...prompt, ...written], lm.step.initial());
      assert.ok(maxDiff(out.logProbs, full.logProbs) < 1e-4, `cached vs full: ${maxDiff(out.logProbs, full.logProbs)}`);

      if (family === 'gpt2') return; // a plain language model: no chat template
      // The family's chat template renders the real prompt, its markers whole (CHECKS.json, from the real template).
      assert.ok(lm.chat, 'an instruct model');
      const rendered = tokenizer.apply_chat_template(check.chat!, { tokenize: false, add_generation_prompt: true });
      assert.equal(rendered, check.chat_prompt);
      assert.deepEqual(tokenizer.encode(rendered as string, { add_special_tokens: false }), check.chat_ids);
      // Our commands' prompts (a system prompt and the writer's text) go through it and run.
      const ids = chatPromptIds(tokenizer, 'story', 'The river rose by twelve feet.');
      assert.ok(tokenizer.decode(ids).includes('The river rose by twelve feet.'));
      // A model that reasons by default is asked not to: its template closes an empty think block.
      if (/enable_thinking/.test(String(tokenizer.chat_template)))
        assert.match(tokenizer.decode(ids), /<think>\s*<\/think>\s*$/, 'the prompt ends in an empty think block');
      const first = await lm.step.run(ids, lm.step.initial());
      assert.ok(first.logProbs.every((x) => !Number.isNaN(x) && x <= 1e-4));
      // The token the template closes a model's turn with ends a reply, and is never banned.
      const turn = tokenizer.apply_chat_template(
        [
          { role: 'user', content: 'Hi.' },
          { role: 'assistant', content: 'Done.' },
        ],
        { tokenize: false },
      ) as string;
      const after = tokenizer.encode(turn.slice(turn.lastIndexOf('Done.') + 5), { add_special_tokens: false });
      assert.ok(lm.ends.includes(after[0]), `the turn's end ${after[0]} is not an end token (${lm.ends})`);
      assert.ok(!lm.banned.includes(after[0]));
    } finally {
      await lm.opened.model.dispose();
    }
  });
}
