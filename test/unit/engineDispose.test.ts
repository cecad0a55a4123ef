// Engine.configure with new settings drops the systems it loaded and releases their onnxruntime
// sessions (session.release()) instead of leaving them to the garbage collector; a request under way
// finishes on its sessions first. A failed load is still not kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import type { EngineConfig } from '../../extension/protocol';
import { repoRoot, tempDir } from './helpers';
import { countSessions } from './sessionCounter';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', 'standard');
const paragraph = 'The river rose in the night. The farmers moved their animals to the hills.';

/** A models folder holding the small standard Round-Trip model as <models>/roundtrip. */
async function modelsWithRoundTrip(): Promise<string> {
  const models = tempDir('dispose');
  await copyModel(models);
  return models;
}

async function copyModel(models: string): Promise<void> {
  const dir = path.join(models, 'roundtrip');
  await fs.mkdir(dir, { recursive: true });
  for (const f of await fs.readdir(fixture)) await fs.copyFile(path.join(fixture, f), path.join(dir, f));
}

/** Waits until `f` holds (the engine releases dropped sessions without blocking configure). */
async function until(f: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(f(), what);
}

test('configure with new settings releases the sessions of the systems it drops; the same settings keep them', async () => {
  const sessions = countSessions();
  try {
    const config: EngineConfig = { modelsDir: await modelsWithRoundTrip(), device: 'cpu', threads: 1 };
    const engine = new Engine(config, () => {});
    await engine.run({ op: 'roundtrip', text: paragraph });
    const opened = sessions.created;
    assert.equal(opened, 2, 'the standard model: encoder and word step');
    // Unchanged settings keep the loaded system: the next request runs on its sessions, opening none.
    engine.configure({ ...config });
    await engine.run({ op: 'roundtrip', text: paragraph });
    assert.equal(sessions.created, opened, 'unchanged settings keep the loaded system: no session opened again');
    assert.equal(sessions.released, 0, 'unchanged settings keep the loaded system: no session released');
    engine.configure({ ...config, threads: 2 });
    await until(() => sessions.released === opened, `released ${sessions.released} of ${opened} sessions`);
    // The next request loads the model again, with the new settings, and runs.
    const r = await engine.run({ op: 'roundtrip', text: paragraph });
    assert.equal(r.architecture, 'standard');
    assert.equal(sessions.created, 2 * opened);
    assert.equal(sessions.released, opened);
  } finally {
    sessions.restore();
  }
});

test('a request under way when configure drops its system finishes, and its sessions are released after it', async () => {
  const sessions = countSessions();
  try {
    const config: EngineConfig = { modelsDir: await modelsWithRoundTrip(), device: 'cpu', threads: 1 };
    const engine = new Engine(config, () => {});
    let releasedDuring = -1;
    const running = engine.run(
      { op: 'roundtrip', text: paragraph },
      {
        // Mid-run (the first progress after the load): the settings change.
        progress: (m) => {
          if (m.startsWith('Reading') && releasedDuring < 0) {
            engine.configure({ ...config, threads: 2 });
            releasedDuring = sessions.released;
          }
        },
      },
    );
    const r = await running;
    assert.equal(r.architecture, 'standard');
    assert.equal(releasedDuring, 0, 'nothing released while the request ran');
    await until(() => sessions.released === 2, `released ${sessions.released} of 2 sessions after the request`);
  } finally {
    sessions.restore();
  }
});

test('a failed load is not kept: once the folder is there, the next request loads it', async () => {
  const models = tempDir('dispose');
  const engine = new Engine({ modelsDir: models, device: 'cpu', threads: 1 }, () => {});
  await assert.rejects(engine.run({ op: 'roundtrip', text: paragraph }), /model\.json/);
  await copyModel(models);
  assert.equal((await engine.run({ op: 'roundtrip', text: paragraph })).architecture, 'standard');
});
