/**
 * The engine's worker thread (worker_threads). onnxruntime-node runs inference synchronously, so
 * the engine lives here and the editor stays responsive. Every message in is validated
 * (protocol.ts); every request ends with exactly one result or error. Decoding yields to the event
 * loop between steps, so a cancel or a stop message is seen mid-generation.
 *
 * Stop before terminate: Worker.terminate() while onnxruntime is inside a run (or a model load)
 * aborts the whole host process ('terminate called after throwing an instance of Napi::Error'),
 * which in VS Code is the extension host. So the host never terminates this thread unasked: it
 * sends 'stop', and this thread cancels every request, refuses new ones and onnxruntime calls
 * (runtime/onnx.ts counts them), and answers 'stopped' once none is under way. Messages are only
 * handled between native calls (a run blocks this thread), so once 'stopped' is sent no run can start.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineConfig, FromWorker, ToWorker } from '../protocol';
import { Engine } from './engine';
import { EngineError, errorMessage } from './errors';
import { onnxCalls } from './runtime/onnx';

const port = parentPort;
if (!port) throw new Error('worker.js must run in a worker thread');

/** The test-only crash message is honoured only when the host started us for tests. */
const testHooks =
  (typeof workerData === 'object' && workerData !== null && (workerData as { testHooks?: unknown }).testHooks === true) ||
  process.env.DRAFTSMITH_TEST_CRASH === '1';

const post = (m: FromWorker) => port.postMessage(m);
const log = (level: 'info' | 'warn' | 'error', message: string) => post({ type: 'log', level, message });

let engine: Engine | undefined;
const cancelled = new Set<number>();
const running = new Set<number>();
/** Set by 'stop': resolves once no onnxruntime call is under way (and none can start). */
let stopped: Promise<void> | undefined;

port.on('message', (raw: unknown) => {
  const parsed = ToWorker.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number' ? raw.id : -1;
    post({ type: 'error', id, code: 'bad-request', message: `Invalid message to the engine: ${parsed.error.issues[0]?.message ?? 'unknown'}` });
    return;
  }
  const msg = parsed.data;
  switch (msg.type) {
    case 'configure':
      if (engine) engine.configure(EngineConfig.parse(msg.config));
      else engine = new Engine(msg.config, log);
      return;
    case 'cancel':
      if (running.has(msg.id)) cancelled.add(msg.id);
      return;
    case 'request':
      if (stopped) {
        post({ type: 'error', id: msg.id, code: 'stopped', message: 'The Draftsmith engine is stopping; the request was not run.' });
        return;
      }
      void handle(msg.id, msg.request);
      return;
    case 'stop':
      if (!stopped) {
        // The decode loops see the cancel at their next step; a run already under way finishes first.
        for (const id of running) cancelled.add(id);
        stopped = onnxCalls.close();
      }
      void stopped.then(() => post({ type: 'stopped' }));
      return;
    case 'crash-for-test':
      crashForTest(msg.how);
      return;
  }
});

async function handle(id: number, request: Extract<ToWorker, { type: 'request' }>['request']): Promise<void> {
  if (!engine) {
    post({ type: 'error', id, code: 'bad-request', message: 'The engine was not configured before the first request.' });
    return;
  }
  running.add(id);
  try {
    const result = await engine.run(request, {
      progress: (message, fraction) => post({ type: 'progress', id, message, ...(fraction !== undefined ? { fraction } : {}) }),
      partial: (text) => post({ type: 'partial', id, text }),
      isCancelled: () => cancelled.has(id),
    });
    post({ type: 'result', id, result });
  } catch (e) {
    if (e instanceof EngineError) {
      post({ type: 'error', id, code: e.code, message: e.message });
    } else {
      log('error', `request ${id} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      post({ type: 'error', id, code: 'internal', message: `Internal error: ${errorMessage(e)}` });
    }
  } finally {
    running.delete(id);
    cancelled.delete(id);
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
      throw new Error(`crash for test (${running.size} request(s) running)`);
    case 'exit':
      // In a worker thread this ends the thread only, with this exit code.
      return process.exit(70);
    case 'hang': {
      // A worker that never answers 'stop' (the host's bounded wait then terminates it).
      const until = Date.now() + 10 * 60_000;
      while (Date.now() < until) { /* busy */ }
      return;
    }
  }
}

post({ type: 'ready' });
