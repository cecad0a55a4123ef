// The worker's request queue: one run at a time, in the order the requests came; a
// request of a channel supersedes the older ones of that channel (waiting or running), never those
// of another channel or of none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../extension/engine/errors';
import { RequestQueue, type Job, type JobSignal } from '../../extension/engine/requestQueue';
import type { FromWorker } from '../../extension/protocol';
import { endOf, modelsDir, startWorker } from './helpers';

/** A job that runs until the test finishes it, recording what happened to it in `log`. */
function job(log: string[], id: number, channel?: string) {
  let finish!: () => void;
  let signal: JobSignal | undefined;
  const j: Job = {
    id,
    ...(channel !== undefined ? { channel } : {}),
    run: (s) => {
      signal = s;
      log.push(`start ${id}`);
      return new Promise<void>((resolve) => {
        finish = () => {
          log.push(`done ${id}${s.reason ? ` (${s.reason.message})` : ''}`);
          resolve();
        };
      });
    },
    end: (e: EngineError) => log.push(`end ${id}: ${e.code} ${e.message}`),
  };
  return {
    job: j,
    finish: () => finish(),
    get signal() {
      return signal;
    },
  };
}
const tick = () => new Promise((r) => setImmediate(r));

test('jobs run one at a time, in the order they came', async () => {
  const log: string[] = [];
  const q = new RequestQueue();
  const jobs = [1, 2, 3].map((id) => job(log, id));
  for (const j of jobs) q.add(j.job);
  assert.deepEqual(log, ['start 1']);
  assert.equal(q.runningId, 1);
  assert.deepEqual(q.waitingIds, [2, 3]);
  jobs[0].finish();
  await tick();
  assert.deepEqual(log, ['start 1', 'done 1', 'start 2']);
  jobs[1].finish();
  await tick();
  jobs[2].finish();
  await q.idle();
  assert.deepEqual(log, ['start 1', 'done 1', 'start 2', 'done 2', 'start 3', 'done 3']);
  assert.equal(q.runningId, undefined);
});

test('a cancelled waiting job ends at once and never runs; a running one is told', async () => {
  const log: string[] = [];
  const q = new RequestQueue();
  const [a, b] = [job(log, 1), job(log, 2)];
  q.add(a.job);
  q.add(b.job);
  q.cancel(2);
  assert.deepEqual(log, ['start 1', 'end 2: cancelled Cancelled.']);
  q.cancel(1);
  assert.equal(a.signal?.reason?.code, 'cancelled');
  a.finish();
  await q.idle();
  assert.deepEqual(log, ['start 1', 'end 2: cancelled Cancelled.', 'done 1 (Cancelled.)']);
});

test('a newer request of a channel supersedes the older ones of that channel, not those of other channels', async () => {
  const log: string[] = [];
  const q = new RequestQueue();
  const running = job(log, 1, 'inline');
  const waitingSame = job(log, 2, 'inline');
  const waitingOther = job(log, 3, 'other');
  const waitingNone = job(log, 4);
  const newest = job(log, 5, 'inline');
  for (const j of [running, waitingSame, waitingOther, waitingNone]) q.add(j.job);
  q.add(newest.job);
  assert.deepEqual(log, ['start 1', 'end 2: cancelled Superseded by a newer request of the same kind.']);
  assert.match(running.signal?.reason?.message ?? '', /Superseded/, 'the running one of the channel is told to stop');
  assert.deepEqual(q.waitingIds, [3, 4, 5], 'the others keep their places');
  running.finish();
  await tick();
  waitingOther.finish();
  await tick();
  assert.equal(waitingOther.signal?.reason, undefined);
  waitingNone.finish();
  await tick();
  newest.finish();
  await q.idle();
  assert.deepEqual(log.slice(2), [
    'done 1 (Superseded by a newer request of the same kind.)',
    'start 3',
    'done 3',
    'start 4',
    'done 4',
    'start 5',
    'done 5',
  ]);
});

test('stop: waiting jobs end with its error, the running one is told to cancel', async () => {
  const log: string[] = [];
  const q = new RequestQueue();
  const [a, b] = [job(log, 1), job(log, 2, 'x')];
  q.add(a.job);
  q.add(b.job);
  q.cancelAll(new EngineError('stopped', 'stopping'));
  assert.deepEqual(log, ['start 1', 'end 2: stopped stopping']);
  assert.equal(a.signal?.reason?.code, 'cancelled');
  a.finish();
  await q.idle();
});

test('the worker: a request with a channel supersedes the running one of that channel; the rest run in order', async () => {
  const { messages, until, send, close } = startWorker();
  const ends = () =>
    messages.filter(
      (m): m is Extract<FromWorker, { type: 'result' | 'error' }> => m.type === 'result' || m.type === 'error',
    );
  try {
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    const essay = { op: 'essay', topics: 'river, boat', decoding: { beamSize: 2, maxLength: 12 } } as const;
    const score = {
      op: 'score',
      hypothesis: 'the boat crossed the river',
      reference: 'a boat crossed a river',
    } as const;
    // All sent at once: the first essay is still loading its model when the second arrives.
    send({ type: 'request', id: 1, request: essay, channel: 'inline' });
    send({ type: 'request', id: 2, request: essay, channel: 'inline' });
    send({ type: 'request', id: 3, request: score });
    send({ type: 'request', id: 4, request: score, channel: 'other' });
    for (const id of [1, 2, 3, 4]) await until(endOf(id));
    const [first, ...rest] = ends();
    assert.equal(first.id, 1);
    assert.ok(
      first.type === 'error' && first.code === 'cancelled' && /Superseded/.test(first.message),
      JSON.stringify(first),
    );
    assert.deepEqual(
      rest.map((m) => [m.id, m.type]),
      [
        [2, 'result'],
        [3, 'result'],
        [4, 'result'],
      ],
      'one at a time, in order',
    );
  } finally {
    await close();
  }
});
