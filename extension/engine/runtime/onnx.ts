/**
 * The one place that opens onnxruntime sessions and picks the execution provider (transformers.js
 * keeps this apart from models too). onnxruntime-node's run() and model load are synchronous
 * underneath (a setImmediate around a blocking native call), which is why the engine lives in a
 * worker thread.
 *
 * Every native call (session load, session.run, release) goes through the NativeCalls gate of the
 * engine that opened the session, so the worker knows whether one is under way: Worker.terminate()
 * during such a call aborts the whole host process (onnxruntime's N-API wrapper throws a C++
 * Napi::Error into a terminating V8 and std::terminate follows). The worker owns the gate; its
 * 'stop' closes it and waits for it to drain before it says 'stopped'.
 *
 * No state lives in this module: the gate and the CUDA decision are objects that the
 * engine owns per worker and per configuration, and that a test can make its own of.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type * as ortTypes from 'onnxruntime-node';
import { EngineError, errorMessage } from '../errors';
import { disableOrtTelemetry } from './ortTelemetry';
import type { DeviceSetting } from '../../protocol';

export type Ort = typeof ortTypes;
export type Session = ortTypes.InferenceSession;
export type Tensor = ortTypes.Tensor;

let ortModule: Ort | undefined;
export function ort(): Ort {
  // Loaded lazily so that a missing native binary is reported as an engine error, not an import crash.
  if (!ortModule) {
    disableOrtTelemetry();
    ortModule = require('onnxruntime-node') as Ort;
    float16AsBits(ortModule);
  }
  return ortModule;
}

/**
 * Where the runtime has Float16Array (Node 24: the extension host of a recent VS Code),
 * onnxruntime-common stores float16 tensors in one, and onnxruntime-node 1.30's binding then reads
 * 0 values from it ("not enough space: expected N, got 0") when a float16 cache is fed back. The
 * choice is made once, at the first tensor: made here with Float16Array hidden, float16 data stays
 * raw bits in a Uint16Array, which the binding reads, on every Node.
 */
function float16AsBits(o: Ort): void {
  const g = globalThis as { Float16Array?: unknown };
  const saved = g.Float16Array;
  g.Float16Array = undefined;
  try {
    new o.Tensor('float32', new Float32Array(0), [0]);
  } finally {
    g.Float16Array = saved;
  }
}

/**
 * Counts the onnxruntime calls under way in this thread and, once closed, refuses new ones. A call
 * counts from the moment it is made until its promise settles, which covers the setImmediate in
 * which onnxruntime-node runs it.
 *
 * It also holds every session opened through it and not yet released: close() releases them once
 * no call is under way. A worker thread's end does not free what onnxruntime allocated for it (the
 * weights, each session's arena): a restarted engine would otherwise keep the old one's memory.
 */
export class NativeCalls {
  private active = 0;
  private closed = false;
  private readonly idle: (() => void)[] = [];
  /** Sessions opened through this gate, not yet released: each one's own release(). */
  private readonly open = new Map<Session, () => Promise<void>>();
  private counts = { opened: 0, released: 0 };

  /** Calls under way now. */
  get inFlight(): number {
    return this.active;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sessions opened through this gate, and how many of them have been released (by their owner or by close()). */
  get sessions(): { readonly opened: number; readonly released: number } {
    return { ...this.counts };
  }

  async track<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) throw new EngineError('stopped', 'The Draftsmith engine is stopping; the request was not run.');
    return this.counted(call);
  }

  private async counted<T>(call: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await call();
    } finally {
      this.active--;
      if (this.active === 0) this.idle.splice(0).forEach((resolve) => resolve());
    }
  }

  /** `session` (opened through this gate) holds native memory until `release` is called, once. */
  adopt(session: Session, release: () => Promise<void>): void {
    this.counts.opened++;
    this.open.set(session, release);
  }

  /**
   * Releases `session` through the gate: counted like a run, once (a second call, or one after
   * close() released it, does nothing). Refused once closed: close() releases what is left.
   */
  release(session: Session): Promise<void> {
    const release = this.open.get(session);
    if (!release) return Promise.resolve();
    return this.track(async () => {
      // Taken out first, so that close() does not release it a second time while this one runs.
      this.open.delete(session);
      this.counts.released++;
      await release();
    });
  }

  /**
   * Refuses new calls from now on; once none is under way, releases every session still open (no run
   * can be inside one then, and none can start), and resolves.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    for (const [session, release] of [...this.open]) {
      this.open.delete(session);
      this.counts.released++;
      // Counted, so that nothing takes this thread for idle while a release is under way.
      await this.counted(release).catch(() => {
        /* a session onnxruntime cannot release is the thread's to end */
      });
    }
  }
}

/** The session with its run() and release() going through `calls` (release() frees its weights' native memory). */
function tracked(session: Session, calls: NativeCalls): Session {
  const run = session.run.bind(session) as (...args: unknown[]) => Promise<ortTypes.InferenceSession.ReturnType>;
  calls.adopt(session, session.release.bind(session));
  session.run = ((...args: unknown[]) => calls.track(() => run(...args))) as Session['run'];
  session.release = () => calls.release(session);
  return session;
}

/**
 * InferenceSession.create(...args) through `calls`, the session it opens tracked there too: adopted
 * before the call counts out, so a close() waiting on this load releases the session it opened.
 */
const openTracked = (calls: NativeCalls, ...args: unknown[]) =>
  calls.track(async () =>
    tracked(await (ort().InferenceSession.create as (...a: unknown[]) => Promise<Session>)(...args), calls),
  );

const createSession = (file: string, options: ortTypes.InferenceSession.SessionOptions, calls: NativeCalls) =>
  openTracked(calls, file, options);

/**
 * onnxruntime as another library sees it (transformers.js takes the instance it runs from
 * globalThis[Symbol.for('onnxruntime')]): the same module, except that every session it creates,
 * runs and releases goes through the gate `calls()` names at that moment. Without this, Restart
 * Engine could terminate the worker inside one of that library's native calls and abort the host.
 */
export function guardedOrt(calls: () => NativeCalls, prepare: () => GraphPreparer | undefined = () => undefined): Ort {
  const base = ort();
  const create = (...args: unknown[]) => {
    // A model named by its path may open as its rewritten graph (runtime/graphCache.ts).
    const p = prepare();
    if (p && typeof args[0] === 'string') args = [p(args[0]), ...args.slice(1)];
    return openTracked(calls(), ...args);
  };
  return { ...base, InferenceSession: { ...base.InferenceSession, create } } as Ort;
}

/** The file to open in place of a model file (its rewrite, cached), given its path. */
export type GraphPreparer = (file: string) => string;

/**
 * Releases sessions' native memory (their weights) now rather than at garbage collection: a system
 * the engine drops calls this. Counted like any native call, so the worker's 'stop' waits for it;
 * once the thread is stopping, the gate's close() releases what is left.
 */
export async function releaseSessions(sessions: readonly (Session | undefined)[]): Promise<void> {
  for (const s of sessions) {
    if (!s) continue;
    try {
      await s.release(); // through the gate it was opened with (tracked)
    } catch (e) {
      if (!(e instanceof EngineError && e.code === 'stopped')) throw e;
    }
  }
}

/**
 * onnxruntime-node installed with onnxruntime-node-install=skip (our .npmrc) has no CUDA provider
 * library; trying it anyway makes the native side print an alarming error of its own.
 */
export function missingCudaLibrary(): string | undefined {
  if (process.platform !== 'linux' && process.platform !== 'win32')
    return `no CUDA build of onnxruntime for ${process.platform}`;
  try {
    const pkg = path.dirname(require.resolve('onnxruntime-node/package.json'));
    const lib = process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
    const file = path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch, lib);
    return existsSync(file) ? undefined : `${lib} is not installed`;
  } catch {
    return undefined; // unknown layout: let onnxruntime try
  }
}

/** The execution providers other than the CPU that onnxruntime-node has on some platform. */
export const ACCELERATORS = ['cuda', 'dml', 'coreml', 'webgpu'] as const;
export type Accelerator = (typeof ACCELERATORS)[number];

const ACCELERATOR_NAMES: Record<Accelerator, string> = {
  cuda: 'CUDA',
  dml: 'DirectML',
  coreml: 'CoreML',
  webgpu: 'WebGPU',
};

/** The accelerator a device setting asks for: 'auto' is CUDA where there is one (the others are asked for by name). */
export function acceleratorOf(device: DeviceSetting): Accelerator | undefined {
  return device === 'cpu' ? undefined : device === 'auto' ? 'cuda' : device;
}

/**
 * Why an accelerator other than CUDA cannot be tried here: its platform, or this build of onnxruntime-node lacks it.
 */
export function missingAccelerator(accelerator: Exclude<Accelerator, 'cuda'>): string | undefined {
  const platform = { dml: 'win32', coreml: 'darwin' }[accelerator as 'dml' | 'coreml'];
  if (platform && process.platform !== platform)
    return `${ACCELERATOR_NAMES[accelerator]} runs on ${platform === 'win32' ? 'Windows' : 'macOS'} only`;
  const list = (ort() as unknown as { listSupportedBackends?: () => { name: string }[] }).listSupportedBackends;
  const names = list ? list().map((b) => b.name) : [];
  return names.includes(accelerator)
    ? undefined
    : `this onnxruntime-node build for ${process.platform}-${process.arch} has no ` +
        `${ACCELERATOR_NAMES[accelerator]} (it has ${names.join(', ') || 'cpu'})`;
}

/**
 * Whether the accelerator can be used, decided once per engine configuration: the Engine makes a
 * new one on every configure, so a later switch (or a CUDA library installed since) is tried again
 * instead of being refused for the thread's life. Once it failed, the configuration's later
 * sessions go straight to the CPU (no second alarming native error).
 */
export class CudaDecision {
  private reason: string | undefined;
  private checked = false;

  /**
   * `missingLibrary`: why CUDA cannot even be tried (a test passes its own); `accelerator`: the
   * provider the setting asks for (CUDA unless draftsmith.device names another).
   */
  constructor(
    private readonly missingLibrary: () => string | undefined = missingCudaLibrary,
    readonly accelerator: Accelerator = 'cuda',
  ) {}

  /** The provider's name in messages. */
  get name(): string {
    return ACCELERATOR_NAMES[this.accelerator];
  }

  /** Why CUDA is not used in this configuration; undefined while it may be tried. */
  get unavailable(): string | undefined {
    if (!this.checked) {
      this.checked = true;
      this.reason ??= this.accelerator === 'cuda' ? this.missingLibrary() : missingAccelerator(this.accelerator);
    }
    return this.reason;
  }

  /** CUDA failed for a session: the rest of this configuration runs on the CPU. */
  markUnavailable(reason: string): void {
    this.reason ??= reason;
  }

  /** The decision as one system load sees it: it says once that this load runs on the CPU. */
  forLoad(what: string): CudaUse {
    return new CudaUse(this, what);
  }
}

/** One load's view of its configuration's CUDA decision: logs its fall-back once, naming what fell back. */
export class CudaUse {
  private logged = false;

  constructor(
    readonly decision: CudaDecision,
    private readonly what: string,
  ) {}

  /** The log line, once per load: every load that asked for CUDA and runs on the CPU says so. */
  fellBack(device: DeviceSetting, log: SessionOptions['log']): void {
    if (this.logged) return;
    this.logged = true;
    // Asked for by name: a warning; 'auto' found none: information.
    log(
      device !== 'auto' ? 'warn' : 'info',
      `${this.decision.name} execution provider unavailable (${this.decision.unavailable}); running ` +
        `${this.what} on the CPU.`,
    );
  }
}

export interface SessionOptions {
  device: DeviceSetting;
  threads: number;
  log: (level: 'info' | 'warn', message: string) => void;
  /**
   * This configuration's CUDA decision as the current load sees it. Absent (tests, one-off loads):
   * decided afresh for this session alone.
   */
  cuda?: CudaUse;
  /**
   * The engine's gate for native calls (the worker closes it before it may be terminated). Absent:
   * a gate of the session's own that nothing closes (the CLI, tests).
   */
  calls?: NativeCalls;
}

export interface OpenedSession {
  session: Session;
  /** The execution provider actually in use. */
  provider: Accelerator | 'cpu';
}

export async function openSession(file: string, opts: SessionOptions): Promise<OpenedSession> {
  const base: ortTypes.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    ...(opts.threads > 0 ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
  const calls = opts.calls ?? new NativeCalls();
  if (opts.device !== 'cpu') {
    const cuda =
      opts.cuda ?? new CudaDecision(undefined, acceleratorOf(opts.device) ?? 'cuda').forLoad(path.basename(file));
    if (cuda.decision.unavailable === undefined) {
      try {
        // Severity 4 (fatal only): onnxruntime otherwise prints its own error for a missing CUDA library
        // before we can log the fallback in plain words.
        const accelerator = cuda.decision.accelerator;
        const session = await createSession(
          file,
          { ...base, logSeverityLevel: 4, executionProviders: [accelerator] },
          calls,
        );
        opts.log('info', `execution provider: ${accelerator} (${file})`);
        return { session, provider: accelerator };
      } catch (e) {
        if (e instanceof EngineError && e.code === 'stopped') throw e;
        cuda.decision.markUnavailable(errorMessage(e).split('\n')[0]);
      }
    }
    cuda.fellBack(opts.device, opts.log);
  }
  try {
    const session = await createSession(file, { ...base, executionProviders: ['cpu'] }, calls);
    return { session, provider: 'cpu' };
  } catch (e) {
    if (e instanceof EngineError && e.code === 'stopped') throw e;
    throw new EngineError('bad-model', `Cannot load ${file}: ${errorMessage(e).split('\n')[0]}`);
  }
}

export function int64Tensor(values: ArrayLike<number>, dims: number[]): Tensor {
  const data = BigInt64Array.from(Array.from(values, (v) => BigInt(v)));
  return new (ort().Tensor)('int64', data, dims);
}

export function float32Tensor(data: Float32Array, dims: number[]): Tensor {
  return new (ort().Tensor)('float32', data, dims);
}

/**
 * An output's data (floatData, int64Data, int32Data). session.run gives every output a new typed array
 * that onnxruntime never touches again: onnxruntime-node 1.30 copies the output into a new ArrayBuffer
 * (later versions may hand the output's own memory over instead). It is the caller's to keep or to
 * write into: decoding writes its constraints into the log-probs in place.
 */
export function floatData(t: Tensor | undefined, name: string): Float32Array {
  if (!t || t.type !== 'float32') throw new EngineError('bad-model', `model output ${name} is missing or not float32`);
  return t.data as Float32Array;
}

export function int64Data(t: Tensor | undefined, name: string): BigInt64Array {
  if (!t || t.type !== 'int64') throw new EngineError('bad-model', `model output ${name} is missing or not int64`);
  return t.data as BigInt64Array;
}

export function int32Data(t: Tensor | undefined, name: string): Int32Array {
  if (!t || t.type !== 'int32') throw new EngineError('bad-model', `model output ${name} is missing or not int32`);
  return t.data as Int32Array;
}

/**
 * One tensor the engine feeds or reads: its element type and its dimensions, a number where the
 * manifest's architecture fixes the size, null where any size goes (batch, length).
 */
export interface TensorSpec {
  type: 'int64' | 'int32' | 'float32';
  dims: readonly (number | null)[];
}

const showDims = (dims: readonly (number | string | null)[]) => `[${dims.map((d) => d ?? '?').join(', ')}]`;

/**
 * The model's declared inputs and outputs must be what the system feeds and reads: checked once at
 * load, so a graph exported for another size (or another model) is reported with its file name
 * instead of failing inside onnxruntime at the first step. A symbolic dimension matches any size.
 * `onlyThese`: the graph may declare no input besides `inputs` (the engine feeds nothing else).
 */
export function checkIO(
  session: Session,
  file: string,
  inputs: Record<string, TensorSpec>,
  outputs: Record<string, TensorSpec>,
  onlyThese = false,
): void {
  const check = (
    kind: 'input' | 'output',
    declared: readonly ortTypes.InferenceSession.ValueMetadata[],
    names: readonly string[],
    wanted: Record<string, TensorSpec>,
  ) => {
    for (const [name, spec] of Object.entries(wanted)) {
      const meta = declared.find((m) => m.name === name);
      if (!names.includes(name) || !meta) {
        throw new EngineError('bad-model', `${file} has no ${kind} "${name}" (it has: ${names.join(', ')}).`);
      }
      if (!meta.isTensor) throw new EngineError('bad-model', `${file}: ${kind} "${name}" is not a tensor.`);
      const expected = `${spec.type} ${showDims(spec.dims)}`;
      if (meta.type !== spec.type) {
        throw new EngineError(
          'bad-model',
          `${file}: ${kind} "${name}" is ${meta.type} ${showDims(meta.shape)}; the engine needs ${expected} ` +
            `(from model.json's architecture).`,
        );
      }
      // An undeclared shape (empty) is left to onnxruntime; a declared one must fit.
      if (meta.shape.length === 0) continue;
      const fits =
        meta.shape.length === spec.dims.length &&
        meta.shape.every((d, i) => typeof d !== 'number' || spec.dims[i] === null || spec.dims[i] === d);
      if (!fits) {
        throw new EngineError(
          'bad-model',
          `${file}: ${kind} "${name}" has shape ${showDims(meta.shape)}; the engine needs ${expected} (from ` +
            `model.json's architecture).`,
        );
      }
    }
  };
  check('input', session.inputMetadata, session.inputNames, inputs);
  check('output', session.outputMetadata, session.outputNames, outputs);
  const extra = onlyThese ? session.inputNames.filter((n) => !(n in inputs)) : [];
  if (extra.length > 0) {
    throw new EngineError(
      'bad-model',
      `${file} needs input${extra.length > 1 ? 's' : ''} ${extra.map((n) => `"${n}"`).join(', ')}, which the ` +
        `engine does not feed (it feeds: ${Object.keys(inputs).join(', ')}).`,
    );
  }
}
