// The count of onnxruntime calls under way (runtime/onnx.ts's NativeCalls, which the worker owns)
// that the worker's 'stop' waits on: a worker thread must never be terminated inside one (it aborts
// the host process). Each test makes its own gate: no test depends on another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { EngineError } from '../../extension/engine/errors';
import { int64Tensor, NativeCalls, openSession, releaseSessions } from '../../extension/engine/runtime/onnx';
import { modelsDir } from './helpers';

const isStopped = (e: unknown) => e instanceof EngineError && e.code === 'stopped';

test('NativeCalls: close() waits for the calls under way and refuses new ones', async () => {
  const calls = new NativeCalls();
  let finish!: (v: string) => void;
  const first = calls.track(() => new Promise<string>((r) => (finish = r)));
  assert.equal(calls.inFlight, 1);
  let closed = false;
  const closing = calls.close().then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, false, 'close() resolved while a call was under way');
  await assert.rejects(
    calls.track(async () => 'late'),
    isStopped,
  );
  finish('done');
  assert.equal(await first, 'done');
  await closing;
  assert.equal(calls.inFlight, 0);
  // A failing call is counted out too, and closing an idle gate resolves at once.
  const other = new NativeCalls();
  await assert.rejects(
    other.track(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(other.inFlight, 0);
  await other.close();
});

test('a real session run is counted from the call until it settles; after close() runs and loads are refused', async () => {
  const file = path.join(modelsDir, 'summarize', 'encoder.onnx');
  const onnxCalls = new NativeCalls();
  const { session } = await openSession(file, { device: 'cpu', threads: 1, log: () => {}, calls: onnxCalls });
  const feeds = { input_ids: int64Tensor([5, 6, 7, 8], [1, 4]), attention_mask: int64Tensor([1, 1, 1, 1], [1, 4]) };
  // onnxruntime-node runs it in a setImmediate: it is scheduled, not yet running, when close() comes.
  const run = session.run(feeds);
  assert.equal(onnxCalls.inFlight, 1);
  let closed = false;
  const closing = onnxCalls.close().then(() => (closed = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(closed, false, 'close() resolved while the run was still to come');
  await closing;
  assert.equal(onnxCalls.inFlight, 0);
  assert.ok((await run).topic_attention);
  await assert.rejects(session.run(feeds), isStopped);
  await assert.rejects(openSession(file, { device: 'cpu', threads: 1, log: () => {}, calls: onnxCalls }), isStopped);
  assert.equal(onnxCalls.inFlight, 0);
  // close() released it (no run was inside it); the owner's release afterwards does nothing, without an error.
  await releaseSessions([session]);
  // Another gate (another engine) is not affected by this one's closing.
  const mine = new NativeCalls();
  const other = await openSession(file, { device: 'cpu', threads: 1, log: () => {}, calls: mine });
  const running = other.session.run(feeds);
  assert.equal(mine.inFlight, 1);
  assert.ok((await running).topic_attention);
  await releaseSessions([other.session]);
  assert.equal(mine.inFlight, 0);
});
