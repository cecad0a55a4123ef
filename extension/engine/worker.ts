/**
 * The engine's worker thread (worker_threads). onnxruntime-node runs inference synchronously, so
 * the engine lives here and the editor stays responsive. Every message in is validated
 * (extension/protocol/worker.ts); every request ends with exactly one result or error. Decoding yields to the event
 * loop between steps, so a cancel or a stop message is seen mid-generation.
 *
 * Stop before terminate: Worker.terminate() while onnxruntime is inside a run (or a model load)
 * aborts the whole host process ('terminate called after throwing an instance of Napi::Error'),
 * which in VS Code is the extension host. So the host never terminates this thread unasked: it
 * sends 'stop', and this thread cancels every request, refuses new ones and onnxruntime calls
 * (its NativeCalls gate, runtime/onnx.ts, counts them), and answers 'stopped' once none is under
 * way. Messages are only handled between native calls (a run blocks this thread), so once 'stopped'
 * is sent no run can start.
 *
 * Requests run one at a time, in order (requestQueue.ts); a request with a channel supersedes the
 * older ones of that channel.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineConfig, FromWorker, ToWorker, type DownloadQuestion } from '../protocol';
import { Engine } from './engine';
import { EngineError, errorMessage } from './errors';
import { RequestQueue, type JobSignal } from './requestQueue';
import { NativeCalls } from './runtime/onnx';

const port = parentPort;
if (!port) throw new Error('worker.js must run in a worker thread');

/** The test-only crash message is honoured only when the host started us for tests. */
const testHooks =
  (typeof workerData === 'object' &&
    workerData !== null &&
    (workerData as { testHooks?: unknown }).testHooks === true) ||
  process.env.DRAFTSMITH_TEST_CRASH === '1';

const post = (m: FromWorker) => port.postMessage(m);
const log = (level: 'info' | 'warn' | 'error', message: string) => post({ type: 'log', level, message });

/**
 * DRAFTSMITH_MEMORY_LOG=1 (the soak test, npm run soak): after each answer, a log line with this
 * thread's heap (process.memoryUsage() in a worker reports its own isolate), after a full collection
 * when the process runs with --expose-gc, so a long session's heap can be followed.
 */
const memoryLog = process.env.DRAFTSMITH_MEMORY_LOG === '1';
function logMemory(): void {
  (globalThis as { gc?: () => void }).gc?.();
  log('info', `memory: worker heap ${process.memoryUsage().heapUsed} bytes`);
}

let engine: Engine | undefined;
/** This thread's onnxruntime calls: the engine opens every session through it, 'stop' closes it. */
const calls = new NativeCalls();
const queue = new RequestQueue();
/** Set by 'stop': resolves once no onnxruntime call is under way (and none can start). */
let stopped: Promise<void> | undefined;
const stoppingMessage = 'The Draftsmith engine is stopping; the request was not run.';

port.on('message', (raw: unknown) => {
  const parsed = ToWorker.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number' ? raw.id : -1;
    post({
      type: 'error',
      id,
      code: 'bad-request',
      message: `Invalid message to the engine: ${parsed.error.issues[0]?.message ?? 'unknown'}`,
    });
    return;
  }
  const msg = parsed.data;
  switch (msg.type) {
    case 'configure':
      if (engine) engine.configure(EngineConfig.parse(msg.config));
      else engine = new Engine(msg.config, log, { calls });
      return;
    case 'cancel':
      queue.cancel(msg.id);
      answers.get(msg.id)?.(false);
      return;
    case 'download-answer':
      answers.get(msg.id)?.(msg.allow);
      return;
    case 'request': {
      if (stopped) {
        post({ type: 'error', id: msg.id, code: 'stopped', message: stoppingMessage });
        return;
      }
      const { id, request } = msg;
      queue.add({
        id,
        ...(msg.channel !== undefined ? { channel: msg.channel } : {}),
        run: (signal) => handle(id, request, signal),
        end: (e) => post({ type: 'error', id, code: e.code, message: e.message }),
      });
      return;
    }
    case 'stop':
      if (!stopped) {
        // Waiting requests end now; the decode loop sees the cancel at its next step; a native run
        // already under way finishes first.
        queue.cancelAll(new EngineError('stopped', stoppingMessage));
        for (const answer of [...answers.values()]) answer(false);
        // close() also releases every onnxruntime session still open (the Hub models' included): the
        // thread's end would not give their native memory back.
        stopped = calls.close().then(() => {
          const { opened, released } = calls.sessions;
          log('info', `stopped: released ${released} of the ${opened} onnxruntime session(s) opened`);
        });
      }
      void stopped.then(() => post({ type: 'stopped' }));
      return;
    case 'crash-for-test':
      crashForTest(msg.how);
      return;
  }
});

/** The requests waiting for the host's answer to 'confirm-download', by id. */
const answers = new Map<number, (allow: boolean) => void>();

/** Asks the host whether request `id` may download past the limit; a cancel answers no. */
function confirmDownload(id: number, question: DownloadQuestion): Promise<boolean> {
  return new Promise((resolve) => {
    answers.set(id, (allow) => {
      answers.delete(id);
      resolve(allow);
    });
    post({ type: 'confirm-download', id, question });
  });
}

async function handle(
  id: number,
  request: Extract<ToWorker, { type: 'request' }>['request'],
  signal: JobSignal,
): Promise<void> {
  if (!engine) {
    post({
      type: 'error',
      id,
      code: 'bad-request',
      message: 'The engine was not configured before the first request.',
    });
    return;
  }
  try {
    const result = await engine.run(request, {
      progress: (message, fraction) =>
        post({ type: 'progress', id, message, ...(fraction !== undefined ? { fraction } : {}) }),
      partial: (text) => post({ type: 'partial', id, text }),
      isCancelled: () => signal.reason !== undefined,
      confirmDownload: (question) => confirmDownload(id, question),
    });
    // A request superseded after its last cancel check still ends as superseded: one rule for the host.
    const reason = signal.reason;
    if (reason) post({ type: 'error', id, code: reason.code, message: reason.message });
    else post({ type: 'result', id, result });
    if (memoryLog) logMemory();
  } catch (e) {
    if (e instanceof EngineError) {
      // The decode loop throws a plain 'Cancelled.'; a superseded request says why it was cancelled.
      const shown = e.code === 'cancelled' && signal.reason ? signal.reason : e;
      post({ type: 'error', id, code: shown.code, message: shown.message });
    } else {
      log('error', `request ${id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      post({ type: 'error', id, code: 'internal', message: `Internal error: ${errorMessage(e)}` });
    }
  }
}

/**
 * A crash as the tests need one, from JS on this thread's event loop: never inside an onnxruntime
 * call (a run blocks the thread, so this message is only handled between steps).
 */
function crashForTest(how: 'throw' | 'exit' | 'hang'): void {
  if (!testHooks) {
    log('warn', 'a crash-for-test message was ignored: the worker was not started with DRAFTSMITH_TEST_CRASH=1');
    return;
  }
  switch (how) {
    case 'throw':
      // Uncaught: the host sees the worker's 'error' and 'exit' events, as for a bug in the engine.
      throw new Error(`crash for test (${queue.runningId !== undefined ? 1 : 0} request(s) running)`);
    case 'exit':
      // In a worker thread this ends the thread only, with this exit code.
      return process.exit(70);
    case 'hang': {
      // A worker that never answers 'stop' (the host's bounded wait then terminates it).
      const until = Date.now() + 10 * 60_000;
      while (Date.now() < until) {
        /* busy */
      }
      return;
    }
  }
}

post({ type: 'ready' });
