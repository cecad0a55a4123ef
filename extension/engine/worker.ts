/**
 * The engine's process. onnxruntime-node runs inference in native code, so the engine lives in a
 * child process of the extension host (forked with an IPC channel) and the editor stays responsive.
 * A process, not a worker thread: terminating a worker thread while onnxruntime is inside a run
 * aborts the whole host process (a C++ exception with nowhere to go), and a native crash in a
 * thread would take the extension host with it; a process can be killed at any moment.
 *
 * Every message in is validated (protocol.ts); every request ends with exactly one result or
 * error. Decoding yields to the event loop between steps, so a cancel message is seen mid-generation.
 */
import { EngineConfig, FromWorker, ToWorker } from '../protocol';
import { Engine } from './engine';
import { EngineError, errorMessage } from './errors';

const send = process.send?.bind(process);
if (!send) throw new Error('worker.js must run as a child process with an IPC channel (child_process.fork)');
// The host went away (closed, crashed): nothing is left to answer to, so do not linger.
process.on('disconnect', () => process.exit(0));

const post = (m: FromWorker) => {
  if (process.connected) send(m);
};
const log = (level: 'info' | 'warn' | 'error', message: string) => post({ type: 'log', level, message });

let engine: Engine | undefined;
const cancelled = new Set<number>();
const running = new Set<number>();

process.on('message', (raw: unknown) => {
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
      void handle(msg.id, msg.request);
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

post({ type: 'ready' });
