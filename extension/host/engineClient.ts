/**
 * The host's side of the engine: one long-lived worker_threads Worker (dist/worker.js), typed
 * requests with a promise each, progress callbacks, cancellation, time limits and crash recovery.
 *
 * The worker is never terminated while onnxruntime may be inside a run: that aborts the whole
 * extension host (see worker.ts). Restart and shutdown send 'stop', wait (bounded) for 'stopped',
 * and only then call terminate(); requests in flight are failed at once, not after the wait.
 *
 * Kept free of 'vscode' on purpose (cancellation and logging come in through small interfaces that
 * vscode.CancellationToken and vscode.LogOutputChannel satisfy), so it can run under plain Node.
 */
import { Worker } from 'node:worker_threads';
import { EngineError, errorMessage, disableOrtTelemetry } from '../engine/public';
import type { z } from 'zod';
import type { DownloadQuestion, EngineConfig, EngineRequest, ResultFor, ToWorker } from '../protocol';
import { schemas } from './schemas';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The part of vscode.CancellationToken the client needs. */
export interface CancelSignal {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface RequestHooks {
  onProgress?(message: string, fraction: number | undefined): void;
  onPartial?(text: string): void;
  token?: CancelSignal;
  /**
   * Wall-time limit in ms (draftsmith.maxSecondsPerRequest): past it the request fails with a
   * 'time-limit' error that says so, and the worker is told to stop. None: no limit.
   */
  timeLimitMs?: number;
  /**
   * The worker runs requests one at a time, in order; a newer request of the same channel supersedes
   * this one, which then fails with a 'cancelled' error saying so (inline suggestions want only the
   * latest). None: never superseded, as for every command.
   */
  channel?: string;
}

export interface EngineClientOptions {
  /**
   * How long a stop waits for the worker's 'stopped' before terminating it anyway (a worker stuck
   * in a loop never answers). Default 10 s.
   */
  stopTimeoutMs?: number;
  /**
   * Asks the user whether a download over draftsmith.hub.maxDownloadGB may go ahead (a modal with
   * its size). None: every such download is declined, and its request ends cancelled.
   */
  confirmDownload?(question: DownloadQuestion): Promise<boolean>;
  /**
   * Lets crashForTest() ask the worker to crash; the worker honours that only when started with
   * this (as workerData). Default: DRAFTSMITH_TEST_CRASH=1 in the environment.
   */
  testHooks?: boolean;
}

// One error type on both sides of the worker boundary; the worker's codes arrive as they were thrown.
export { EngineError };

interface Pending {
  readonly op: EngineRequest['op'];
  readonly hooks: RequestHooks;
  resolve(result: unknown): void;
  reject(error: EngineError): void;
  /** Detaches the cancellation listener; called once when the request settles. */
  cleanup(): void;
}

export class EngineClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private disposed = false;
  /** Workers being stopped (restart, shutdown): each settles once its thread has exited. */
  private readonly stopping = new Set<Promise<void>>();
  /**
   * While a restart's old worker is stopping: the new worker starts once that thread has exited,
   * and requests sent meanwhile wait for it (in order). One engine thread at a time: glibc gives a
   * new thread the malloc arena of one that has exited, but a fresh arena while the old thread
   * lives, and an arena's freed pages stay in the process; overlapping threads made every restart
   * keep the old engine's few hundred MB.
   */
  private restarting: { done: Promise<void>; held: (() => void)[] } | undefined;
  private readonly stopTimeoutMs: number;
  private readonly testHooks: boolean;
  private readonly confirmDownload: (question: DownloadQuestion) => Promise<boolean>;

  constructor(
    private readonly workerPath: string,
    private config: EngineConfig,
    private readonly log: Logger,
    options: EngineClientOptions = {},
  ) {
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.testHooks = options.testHooks ?? process.env.DRAFTSMITH_TEST_CRASH === '1';
    this.confirmDownload = options.confirmDownload ?? (() => Promise.resolve(false));
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Stores the settings and sends them to a running worker; a worker started later gets them first thing. */
  configure(config: EngineConfig): void {
    this.config = config;
    if (this.worker) this.post(this.worker, { type: 'configure', config });
  }

  request<R extends EngineRequest>(request: R, hooks: RequestHooks = {}): Promise<ResultFor<R>> {
    if (this.disposed) return Promise.reject(new EngineError('stopped', 'The Draftsmith engine has been shut down.'));
    const token = hooks.token;
    if (token?.isCancellationRequested) return Promise.reject(cancelledError());

    const id = this.nextId++;
    return new Promise<ResultFor<R>>((resolve, reject) => {
      // Cancel settles the promise at once: a worker busy inside a synchronous ONNX run only reads
      // the cancel message between steps, and the user should not wait for that. Whatever the
      // worker still sends for this id is then dropped as unknown.
      const stop = (error: EngineError) => {
        if (!this.pending.has(id)) return;
        this.settle(id)?.reject(error);
        if (this.worker) this.post(this.worker, { type: 'cancel', id });
      };
      const subscription = token?.onCancellationRequested(() => stop(cancelledError()));
      // The same path as Cancel: a model that runs too long (a huge beam, a slow machine) must not
      // keep the user waiting without a word.
      const limit = hooks.timeLimitMs;
      const timer =
        limit !== undefined && Number.isFinite(limit) && limit > 0
          ? setTimeout(() => {
              this.log.warn(
                `engine: request ${id} (${request.op}) passed its time limit of ${formatSeconds(limit)}; stopping it`,
              );
              stop(timeLimitError(limit));
            }, limit)
          : undefined;
      this.pending.set(id, {
        op: request.op,
        hooks,
        resolve: resolve as (result: unknown) => void,
        reject,
        cleanup: () => {
          subscription?.dispose();
          if (timer) clearTimeout(timer);
        },
      });
      const send = () => {
        // Cancelled, timed out or shut down while it waited for a restart: nothing to send.
        if (!this.pending.has(id)) return;
        try {
          this.post(this.ensureWorker(), {
            type: 'request',
            id,
            request,
            ...(hooks.channel !== undefined ? { channel: hooks.channel } : {}),
          });
        } catch (e) {
          this.settle(id)?.reject(
            new EngineError('internal', `The Draftsmith engine could not be started: ${errorMessage(e)}`),
          );
        }
      };
      if (this.restarting) this.restarting.held.push(send);
      else send();
    });
  }

  /**
   * Fails what is in flight at once, stops the old worker safely (stop, then terminate: tens of ms
   * unless a native step is under way, at most stopTimeoutMs), then starts a fresh one. The returned
   * promise settles once the old thread has exited and the new one is started; requests sent before
   * then go to the new one.
   */
  restart(): Promise<void> {
    const before = this.restarting?.done;
    const stopped = this.stopWorker('The Draftsmith engine was restarted; the request was stopped.');
    this.log.info('engine: restarting');
    const restarting = { held: [] as (() => void)[], done: Promise.resolve() };
    // After every earlier restart's old thread too: a second restart must not start a worker beside it.
    restarting.done = Promise.all([before, stopped]).then(() => {
      // A later restart starts the worker (what waited for this one was failed by it).
      if (this.restarting !== restarting) return;
      this.restarting = undefined;
      if (!this.disposed) {
        // A worker that cannot start is reported by each request (send) as well.
        try {
          this.ensureWorker();
        } catch (e) {
          this.log.error(`engine: the new worker could not be started: ${errorMessage(e)}`);
        }
      }
      for (const send of restarting.held.splice(0)) send();
    });
    this.restarting = restarting;
    return restarting.done;
  }

  /**
   * Makes the worker crash on its own, as a bug in the engine would, without telling the client:
   * 'throw' (an uncaught exception) or 'exit' (process.exit in the worker) between decoding steps,
   * or 'hang' (a busy loop that never answers 'stop'). Needs the test hooks (options.testHooks).
   */
  crashForTest(how: 'throw' | 'exit' | 'hang' = 'throw'): void {
    if (!this.testHooks)
      throw new Error(
        'crashForTest needs the engine test hooks (DRAFTSMITH_TEST_CRASH=1 or EngineClientOptions.testHooks)',
      );
    if (this.worker) this.post(this.worker, { type: 'crash-for-test', how });
  }

  dispose(): void {
    void this.shutdown();
  }

  /** Fails what is in flight, stops the worker safely; settles once every worker thread has exited. */
  async shutdown(): Promise<void> {
    this.disposed = true;
    void this.stopWorker('The Draftsmith engine was shut down.');
    await Promise.all([...this.stopping]);
  }

  // ---- worker lifecycle ------------------------------------------------------------------------

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    this.log.info(`engine: starting worker ${this.workerPath}`);
    // stdout/stderr are piped so that stray console output from the engine lands in the log.
    // Set here: the worker's process.env is a copy that onnxruntime's native code does not read.
    disableOrtTelemetry();
    const worker = new Worker(this.workerPath, {
      stdout: true,
      stderr: true,
      workerData: { testHooks: this.testHooks },
    });
    this.worker = worker;
    worker.stdout.setEncoding('utf8').on('data', (chunk: string) => this.logLines('info', chunk));
    worker.stderr.setEncoding('utf8').on('data', (chunk: string) => this.logLines('warn', chunk));
    worker.on('message', (data: unknown) => this.onMessage(worker, data));
    worker.on('messageerror', (err) => this.log.error(`engine: a message could not be deserialized: ${err.message}`));
    worker.on('error', (err) => this.onCrash(worker, `${err.name}: ${err.message}`));
    worker.on('exit', (code) => this.onCrash(worker, `exit code ${code}`));
    this.post(worker, { type: 'configure', config: this.config });
    return worker;
  }

  /**
   * Intentional stop: the worker is forgotten first (so its exit is not taken for a crash) and what
   * is in flight fails now; the thread itself is stopped safely (stopSafely).
   */
  private stopWorker(reason: string): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.rejectAll(new EngineError('stopped', reason));
    if (!worker) return Promise.resolve();
    const stopped = this.stopSafely(worker);
    this.stopping.add(stopped);
    void stopped.then(() => this.stopping.delete(stopped));
    return stopped;
  }

  /**
   * Terminates `worker` only once it says 'stopped' (no onnxruntime call under way, none to come):
   * terminate() inside a run aborts the whole host process. A worker that does not answer within
   * stopTimeoutMs is stuck (in a loop, or a native call that never returns) and is terminated anyway,
   * with a warning. Resolves once the thread has exited.
   */
  private stopSafely(worker: Worker): Promise<void> {
    return new Promise<void>((resolve) => {
      const started = performance.now();
      // eslint-disable-next-line prefer-const -- set below, after the handlers that clear it exist
      let timer: NodeJS.Timeout | undefined;
      const onMessage = (data: unknown) => {
        const parsed = schemas().FromWorker.safeParse(data);
        // The old worker's log lines while it stops (the sessions it released) still reach the log.
        if (parsed.success && parsed.data.type === 'log')
          this.log[parsed.data.level](`engine: (old worker) ${parsed.data.message}`);
        if (!parsed.success || parsed.data.type !== 'stopped') return;
        this.log.info(
          `engine: the old worker stopped in ${Math.round(performance.now() - started)} ms; terminating it`,
        );
        terminate();
      };
      const terminate = () => {
        if (timer) clearTimeout(timer);
        worker.off('message', onMessage);
        void worker.terminate();
      };
      worker.on('message', onMessage);
      worker.once('exit', () => {
        if (timer) clearTimeout(timer);
        worker.off('message', onMessage);
        resolve();
      });
      timer = setTimeout(() => {
        this.log.warn(
          `engine: the old worker did not confirm that it stopped within ${formatSeconds(this.stopTimeoutMs)}; ` +
            `terminating it anyway ` +
            '(it seems stuck; if onnxruntime were inside a run now, terminating could abort the extension host)',
        );
        terminate();
      }, this.stopTimeoutMs);
      this.post(worker, { type: 'stop' });
    });
  }

  private onCrash(worker: Worker, detail: string): void {
    // 'error' is followed by 'exit'; the first one handles it. Also ignores workers we stopped.
    // The thread is already ending on its own: no terminate() here.
    if (worker !== this.worker) return;
    this.worker = undefined;
    const lost = this.pending.size;
    this.log.error(
      `engine: the worker stopped unexpectedly (${detail}); ${lost} request(s) failed; a new worker starts ` +
        `with the next request`,
    );
    this.rejectAll(
      new EngineError(
        'stopped',
        `The Draftsmith engine stopped unexpectedly (${detail}); it has been restarted. Try again.`,
      ),
    );
  }

  private rejectAll(error: EngineError): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  /** Removes a request from the table and detaches its listeners; undefined when it was already settled. */
  private settle(id: number): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    entry.cleanup();
    return entry;
  }

  // ---- messages --------------------------------------------------------------------------------

  private post(worker: Worker, message: ToWorker): void {
    // Parsing our own messages catches a host-side bug here rather than as a 'bad-request' later.
    const checked = schemas().ToWorker.safeParse(message);
    if (!checked.success) {
      const problems = describeIssues(checked.error);
      this.log.error(`engine: refusing to send an invalid ${message.type} message: ${problems}`);
      if (message.type === 'request') {
        this.settle(message.id)?.reject(new EngineError('bad-request', `Invalid request: ${problems}`));
      }
      return;
    }
    worker.postMessage(checked.data);
  }

  private onMessage(worker: Worker, data: unknown): void {
    if (worker !== this.worker) return;
    const parsed = schemas().FromWorker.safeParse(data);
    if (!parsed.success) {
      const problems = describeIssues(parsed.error);
      this.log.error(`engine: malformed message from the worker: ${problems}`);
      // A broken final answer must still end its request, or the caller would wait forever.
      const { type, id } = (typeof data === 'object' && data !== null ? data : {}) as { type?: unknown; id?: unknown };
      if ((type === 'result' || type === 'error') && typeof id === 'number') {
        this.settle(id)?.reject(new EngineError('internal', `The engine sent an invalid ${type}: ${problems}`));
      }
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
        this.log.info('engine: worker ready');
        return;
      case 'stopped':
        return; // only a worker being stopped sends it (stopSafely listens for it)
      case 'log':
        this.log[message.level](`engine: ${message.message}`);
        return;
      case 'progress':
        this.pending.get(message.id)?.hooks.onProgress?.(message.message, message.fraction);
        return;
      case 'partial':
        this.pending.get(message.id)?.hooks.onPartial?.(message.text);
        return;
      case 'confirm-download': {
        const { id, question } = message;
        if (!this.pending.has(id)) return; // cancelled meanwhile: the worker's cancel answered it
        const answer = (allow: boolean) => {
          if (worker === this.worker && this.pending.has(id)) this.post(worker, { type: 'download-answer', id, allow });
        };
        this.log.info(`engine: ${question.model} is a download of ${question.bytes} bytes, over the limit; asking`);
        this.confirmDownload(question).then(answer, (e: unknown) => {
          this.log.error(`engine: asking about the download of ${question.model} failed: ${errorMessage(e)}`);
          answer(false);
        });
        return;
      }
      case 'result': {
        const entry = this.settle(message.id);
        if (!entry) return; // cancelled or stopped earlier
        if (message.result.op !== entry.op) {
          entry.reject(
            new EngineError(
              'internal',
              `The engine answered a ${entry.op} request with a ${message.result.op} result.`,
            ),
          );
          return;
        }
        entry.resolve(message.result);
        return;
      }
      case 'error':
        this.settle(message.id)?.reject(new EngineError(message.code, message.message));
        return;
    }
  }

  private logLines(level: 'info' | 'warn', chunk: string): void {
    for (const line of chunk.split(/\r?\n/)) {
      if (line.trim()) this.log[level](`engine (${level === 'info' ? 'stdout' : 'stderr'}): ${line}`);
    }
  }
}

/** One line per zod issue, joined: short enough for a log line or an error message. */
function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`).join('; ');
}

function cancelledError(): EngineError {
  return new EngineError('cancelled', 'Cancelled.');
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function timeLimitError(ms: number): EngineError {
  return new EngineError(
    'time-limit',
    `The request was stopped after ${formatSeconds(ms)}, the time limit set by draftsmith.maxSecondsPerRequest. ` +
      'Select less text, lower the beam size or length, or raise the limit.',
  );
}
