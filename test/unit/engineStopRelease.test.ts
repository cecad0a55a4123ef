// Restart Engine gives the old engine's memory back. Stopping a worker releases
// every onnxruntime session it opened (session.release(), through its gate: never while a run is
// inside one), and the new worker starts only once the old thread has exited: a thread started
// beside a live one gets a malloc arena of its own, and the old arena's freed pages stayed in the
// process (a 1,000-command session grew 51 % from its one restart; with these, under 10 %).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { int64Tensor, NativeCalls, openSession } from '../../extension/engine/runtime/onnx';
import { EngineClient } from '../../extension/host/engineClient';
import { modelsDir, repoRoot } from './helpers';
import { countSessions } from './sessionCounter';
import { STORY_LM, startLoopbackHub } from './loopbackHub';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';

const encoder = path.join(modelsDir, 'summarize', 'encoder.onnx');
const feeds = () => ({
  input_ids: int64Tensor([5, 6, 7, 8], [1, 4]),
  attention_mask: int64Tensor([1, 1, 1, 1], [1, 4]),
});
const text =
  'The city council voted on Tuesday to build a new bridge over the river. The mayor said construction would begin in the spring.';

test('stopping the engine releases every onnxruntime session its systems opened, each once', async () => {
  const sessions = countSessions();
  try {
    const calls = new NativeCalls();
    const engine = new Engine({ modelsDir, device: 'cpu', threads: 1 }, () => {}, { calls });
    await engine.run({ op: 'summarize', text, decoding: { maxLength: 8 } });
    await engine.run({ op: 'reply', text: 'I love walking by the river on a sunny day.', maxCandidates: 1 });
    await engine.run({ op: 'coherence', output: text, source: text });
    const opened = sessions.created;
    assert.ok(opened >= 4, `only ${opened} sessions were opened`);
    assert.equal(sessions.released, 0, 'a loaded model was released before the stop');
    await calls.close(); // the worker's 'stop'
    assert.equal(sessions.released, opened, `released ${sessions.released} of ${opened} sessions`);
    assert.deepEqual(calls.sessions, { opened, released: opened });
    // A system disposed afterwards (a configure arriving late) releases nothing twice.
    engine.configure({ modelsDir, device: 'cpu', threads: 2 });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(sessions.released, opened);
  } finally {
    sessions.restore();
  }
});

test("stopping the engine releases a Hub model's sessions too (transformers.js opens them through the same gate)", async (t) => {
  const hub = await startLoopbackHub();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-hub-'));
  t.after(async () => {
    await hub.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const sessions = countSessions();
  try {
    const calls = new NativeCalls();
    const engine = new Engine(
      {
        modelsDir,
        device: 'cpu',
        threads: 1,
        hub: { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 },
      },
      () => {},
      { calls },
    );
    await engine.run({
      op: 'story',
      prompt: 'Once upon a time, a girl found a red ball.',
      words: 5,
      sampling: { seed: 7 },
      model: { kind: 'hub', id: STORY_LM },
    });
    const opened = sessions.created;
    assert.ok(
      opened >= 1 && calls.sessions.opened === opened,
      `opened ${opened}, through the gate ${calls.sessions.opened}`,
    );
    await calls.close();
    assert.equal(sessions.released, opened, `released ${sessions.released} of ${opened} sessions`);
  } finally {
    sessions.restore();
  }
});

test('a session is released by the stop only after the run inside it has finished, and a load under way is released too', async () => {
  const sessions = countSessions();
  try {
    const calls = new NativeCalls();
    const { session } = await openSession(encoder, { device: 'cpu', threads: 1, log: () => {}, calls });
    const run = session.run(feeds());
    // A load that has started but not finished when the stop comes: its session is opened, then released.
    const loading = openSession(encoder, { device: 'cpu', threads: 1, log: () => {}, calls });
    let releasedDuringRun = -1;
    const closing = calls.close();
    void run.then(() => (releasedDuringRun = sessions.released));
    assert.ok((await run).topic_attention, 'the run under way finished on its session');
    await closing;
    await loading;
    assert.equal(releasedDuringRun, 0, 'a session was released while a run was under way');
    assert.equal(sessions.created, 2);
    assert.equal(sessions.released, 2, 'the session of the load under way was not released');
    await assert.rejects(session.run(feeds()), (e: unknown) => e instanceof EngineError && e.code === 'stopped');
    // The owner's own release afterwards does nothing (onnxruntime is not asked twice).
    await session.release();
    assert.equal(sessions.released, 2);
  } finally {
    sessions.restore();
  }
});

test('a session its owner released is not released again by the stop', async () => {
  const sessions = countSessions();
  try {
    const calls = new NativeCalls();
    const a = await openSession(encoder, { device: 'cpu', threads: 1, log: () => {}, calls });
    await openSession(encoder, { device: 'cpu', threads: 1, log: () => {}, calls });
    await a.session.release();
    await a.session.release();
    assert.equal(sessions.released, 1);
    await calls.close();
    assert.equal(sessions.released, 2);
    assert.deepEqual(calls.sessions, { opened: 2, released: 2 });
  } finally {
    sessions.restore();
  }
});

test('Restart Engine: the old worker releases its sessions, and the new worker starts after the old thread has exited; a request sent meanwhile is answered by the new one', async () => {
  const lines: string[] = [];
  const log = {
    info: (m: string) => lines.push(m),
    warn: (m: string) => lines.push(m),
    error: (m: string) => lines.push(m),
  };
  const c = new EngineClient(path.join(repoRoot, 'dist', 'worker.js'), { modelsDir, device: 'cpu', threads: 1 }, log);
  try {
    await c.request({ op: 'summarize', text, decoding: { maxLength: 8 } });
    await c.request({ op: 'reply', text: 'I love walking by the river on a sunny day.', maxCandidates: 1 });
    const restarted = c.restart();
    const during = c.request({ op: 'summarize', text, decoding: { maxLength: 8 } }); // sent while the old worker stops
    assert.equal(c.inFlight, 1);
    await restarted;
    assert.ok((await during).summary.length > 0);
    const released = lines.find((l) => /\(old worker\) stopped: released \d+ of the \d+ onnxruntime session/.test(l));
    const [, n, of] = /released (\d+) of the (\d+)/.exec(released ?? '') ?? [];
    assert.ok(
      released && Number(of) >= 4 && n === of,
      `the old worker did not release all its sessions:\n${lines.join('\n')}`,
    );
    const starts = lines.flatMap((l, i) => (l.startsWith('engine: starting worker') ? [i] : []));
    const terminated = lines.findIndex((l) => /the old worker stopped in \d+ ms; terminating it/.test(l));
    assert.equal(starts.length, 2, lines.join('\n'));
    assert.ok(
      terminated >= 0 && starts[1] > terminated,
      `the new worker started beside the old one:\n${lines.join('\n')}`,
    );
  } finally {
    await c.shutdown();
  }
});
