// The registry of systems (extension/engine/systems/registry.ts): every op of the protocol's requests
// is answered by exactly one entry, so an op added without an entry fails here (and in the type check);
// every model system releases every onnxruntime session it opened when disposed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { EngineRequest } from '../../extension/protocol';
import { modelsFolder } from '../../extension/engine/runtime/modelSource';
import { ENTRIES, loadSystem, modelDir, SYSTEMS, systemFor, textScorer } from '../../extension/engine/systems/registry';
import { modelsDir } from './helpers';
import { countSessions } from './sessionCounter';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const protocolOps = EngineRequest.options.map((o) => o.shape.op.value);

test('every op of EngineRequest is answered by exactly one registry entry', () => {
  assert.ok(protocolOps.length >= 8, `the protocol's ops: ${protocolOps.join(', ')}`);
  for (const op of protocolOps) {
    const answering = ENTRIES.filter(([, e]) => e.ops.includes(op)).map(([id]) => id);
    assert.equal(
      answering.length,
      1,
      `"${op}" is answered by ${answering.length ? answering.join(' and ') : 'no entry'}`,
    );
    assert.equal(systemFor(op), answering[0]);
  }
});

test('no registry entry claims an op the protocol does not have', () => {
  for (const [id, e] of ENTRIES) {
    for (const op of e.ops)
      assert.ok(protocolOps.includes(op), `${id} claims "${op}", which is not an op of EngineRequest`);
  }
});

test('every system with a model says what it loads and has a folder; Round-Trip variants have their own', () => {
  for (const [id, e] of ENTRIES) {
    if (!e.folder) continue;
    assert.match(e.loading ?? '', /^Loading the .+ model…$/, id);
  }
  assert.equal(SYSTEMS.roundtrip.folder(undefined), 'roundtrip');
  assert.equal(SYSTEMS.roundtrip.folder('hier-attn'), 'roundtrip-hier-attn');
  assert.equal(modelDir('/m', 'roundtrip', 'hier'), path.join('/m', 'roundtrip-hier'));
  assert.equal(modelDir('/m', 'roundtrip'), path.join('/m', 'roundtrip'));
  assert.equal(modelDir('/m', 'reply'), path.join('/m', 'reply'));
});

test("one system's built-in model scores texts (Score Draft's perplexity): the story model, given to a run as a TextScorer", async () => {
  const { id, scorer } = textScorer();
  assert.equal(id, 'story');
  const story = await loadSystem('story', modelsFolder(modelsDir), { device: 'cpu', threads: 1, log: () => {} });
  try {
    const scored = await scorer(story).textPerplexity('The dog ran home.');
    assert.ok(scored.tokens > 0 && scored.words === 5 && scored.nll > 0, JSON.stringify(scored));
    assert.equal(scorer(story).name, story.name);
  } finally {
    await story.dispose();
  }
});

test('dispose releases every session a system opened, once', async () => {
  const sessions = countSessions();
  try {
    for (const [id, e] of ENTRIES) {
      if (!e.folder) continue;
      const before = { created: sessions.created, released: sessions.released };
      const system = await loadSystem(id, modelsFolder(modelsDir), quiet);
      const opened = sessions.created - before.created;
      assert.ok(opened >= 2, `${id} opened ${opened} sessions`);
      assert.equal(system.describe().system, id);
      assert.equal(sessions.released, before.released, `${id}: nothing released before dispose`);
      await system.dispose();
      assert.equal(
        sessions.released - before.released,
        opened,
        `${id} released ${sessions.released - before.released} of its ${opened} sessions`,
      );
      await system.dispose();
      assert.equal(sessions.released - before.released, opened, `${id}: a second dispose releases nothing`);
    }
  } finally {
    sessions.restore();
  }
});
