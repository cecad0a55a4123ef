// Load: twenty commands at once, of every kind, some cancelled midway. Each caller gets its own
// answer (or a clean cancel), nothing is left pending, and the host's memory comes back near where
// it started. The numbers are printed; the bound on them is loose on purpose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EngineClient, EngineError } from '../../extension/host/engineClient';
import type { EngineRequest } from '../../extension/protocol';
import { modelsDir, repoRoot } from './helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

/** A cancel token that fires when told (the part of vscode.CancellationToken the client uses). */
function cancelSource() {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(f: () => void) {
      listeners.push(f);
      return { dispose() {} };
    },
  };
  return {
    token,
    cancel() {
      token.isCancellationRequested = true;
      listeners.splice(0).forEach((f) => f());
    },
  };
}

test('twenty mixed requests at once each reach their own caller or cancel cleanly, and memory returns near its baseline', async () => {
  gc();
  const before = process.memoryUsage();
  const client = new EngineClient(
    path.join(repoRoot, 'dist', 'worker.js'),
    { modelsDir, device: 'cpu', threads: 1 },
    { info() {}, warn() {}, error() {} },
  );
  const towns = ['Millbrook', 'Ashford', 'Brenton', 'Calder', 'Dunmore'];
  const requests: { request: EngineRequest; cancel?: ReturnType<typeof cancelSource> }[] = [];
  for (let i = 0; i < 20; i++) {
    const town = towns[i % towns.length];
    const request: EngineRequest = [
      {
        op: 'summarize',
        text: `The council of ${town} approved a new bridge on day ${i}. Work starts in spring.`,
        decoding: { beamSize: 2, maxLength: 10 },
      },
      {
        op: 'essay',
        topics: `bee, frog, ${['river', 'garden', 'school', 'market', 'forest'][i % 5]}`,
        candidates: 1,
        decoding: { beamSize: 1, maxLength: 12 },
      },
      {
        op: 'score',
        hypothesis: `Request ${i}: the ${town} bridge opened.`,
        reference: 'The bridge opened on Saturday.',
        hypothesisName: `draft-${i}`,
      },
      {
        op: 'coherence',
        output: `Request ${i}. The bridge opened. The council met.`,
        source: 'The council met. The bridge opened.',
        outputName: `draft-${i}`,
      },
    ][i % 4] as EngineRequest;
    requests.push({ request, cancel: i % 5 === 4 ? cancelSource() : undefined });
  }
  const started = performance.now();
  const pending = requests.map(({ request, cancel }) => client.request(request, { token: cancel?.token }));
  // Cancel a quarter of them while the rest are running.
  setTimeout(() => requests.forEach((r) => r.cancel?.cancel()), 50);
  const settled = await Promise.allSettled(pending);
  const seconds = (performance.now() - started) / 1000;

  let answered = 0;
  let cancelled = 0;
  settled.forEach((s, i) => {
    const { request, cancel } = requests[i];
    if (s.status === 'rejected') {
      assert.ok(
        cancel && s.reason instanceof EngineError && s.reason.code === 'cancelled',
        `request ${i} (${request.op}) failed: ${String(s.reason)}`,
      );
      cancelled++;
      return;
    }
    answered++;
    const r = s.value;
    assert.equal(r.op, request.op, `request ${i} got another kind of answer`);
    // Each answer is the one asked for, not a neighbour's.
    if (r.op === 'summarize' && request.op === 'summarize') assert.equal(r.source, request.text);
    if (r.op === 'essay' && request.op === 'essay') assert.deepEqual(r.topics, request.topics.split(', '));
    if (r.op === 'score') assert.equal(r.hypothesisName, `draft-${i}`);
    if (r.op === 'coherence') assert.equal(r.outputName, `draft-${i}`);
  });
  assert.equal(answered + cancelled, 20);
  assert.ok(answered >= 15, `only ${answered} of the 15 uncancelled requests were answered`);
  assert.equal(client.inFlight, 0);

  await client.shutdown(); // the worker thread stopped (stop, then terminate) and gone
  gc();
  const after = process.memoryUsage();
  console.log(
    `20 requests in ${seconds.toFixed(1)} s: ${answered} answered, ${cancelled} cancelled; host heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}, rss ${mb(before.rss)} -> ${mb(after.rss)}`,
  );
  // The models live in the engine's worker thread; the host keeps only the answers it was handed.
  assert.ok(
    after.heapUsed - before.heapUsed < 64 * 2 ** 20,
    `host heap grew by ${mb(after.heapUsed - before.heapUsed)}`,
  );
});
