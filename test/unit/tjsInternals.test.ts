/**
 * The transformers.js fields that are not its documented API (hub/tjsInternals.ts) still exist in
 * the installed version: an upgrade that renames one fails here, by name, before any user sees a
 * Hub model fail to load.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import { openHubModel } from '../../extension/engine/hub/hubModel';
import { addedTokenIdsOf, normalizedConfigOf, sessionsOf } from '../../extension/engine/hub/tjsInternals';
import { HUB_FIXTURES, STORY_LM } from './loopbackHub';

test("transformers.js still exposes a model's sessions, its normalised config and its generation_config", async () => {
  const opened = await openHubModel(
    { kind: 'folder', dir: path.join(HUB_FIXTURES, STORY_LM) },
    'causal-lm',
    'the test',
    { endpoint: 'http://127.0.0.1:9/', cacheDir: os.tmpdir(), offline: true, stallSeconds: 30 },
    { device: 'cpu', threads: 1, log: () => {} },
    { progress: () => {}, isCancelled: () => false },
  );
  try {
    const sessions = sessionsOf(opened.model);
    assert.ok(sessions.model, 'model.sessions.model: the decoder-only graph');
    assert.ok(sessions.model.inputNames.includes('input_ids'));
    assert.ok(Array.isArray(sessions.model.inputMetadata), "onnxruntime's inputMetadata");
    const n = normalizedConfigOf(opened.model.config);
    assert.equal(n.model_type, 'gpt2');
    assert.equal(typeof n.num_heads, 'number');
    assert.equal(typeof n.num_layers, 'number');
    assert.equal(typeof n.hidden_size, 'number');
    assert.equal(typeof opened.model.generation_config, 'object', 'model.generation_config');
    assert.ok(Array.isArray(addedTokenIdsOf(opened.tokenizer)), "the tokenizer's added tokens");
  } finally {
    await opened.model.dispose();
  }
});
