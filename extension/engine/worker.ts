/**
 * The engine's worker thread. onnxruntime-node runs inference synchronously, so the engine lives
 * here and the editor stays responsive. Every message in is validated (protocol.ts); every request
 * ends with exactly one result or error. Decoding yields to the event loop between steps, so a
 * cancel message is seen mid-generation.
 */
import { parentPort } from 'node:worker_threads';
import { EngineConfig, FromWorker, ToWorker } from '../protocol';
import { Engine } from './engine';
import { EngineError, errorMessage } from './errors';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

const post = (m: FromWorker) => port.postMessage(m);
const log = (level: 'info' | 'warn' | 'error', message: string) => post({ type: 'log', level, message });

let engine: Engine | undefined;
const cancelled = new Set<number>();
const running = new Set<number>();

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
