/**
 * The engine: loads each system's model folder on first use and runs requests. Used by the worker
 * (for the extension) and directly by the CLI. It knows nothing of VS Code, and nothing of the
 * systems one by one: requests are dispatched through the registry (systems/registry.ts).
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HubConfig, type EngineConfig, type EngineRequest, type ModelChoice, type ResultFor } from '../protocol';
import { CancelledError, EngineError, errorMessage } from './errors';
import { HubEncoder } from './hub/hubEncoder';
import type { ExternalChoice, LoadWatch } from './hub/hubModel';
import { YieldClock } from './decode/types';
import { modelsFolder, singleFolder, type ModelSource } from './runtime/modelSource';
import { urlModels } from './runtime/urlSource';
import { acceleratorOf, CudaDecision, NativeCalls } from './runtime/onnx';
import type { RunContext, RuntimeOptions, TextEncoder, TextScorer } from './systems/context';
import { SYSTEMS, systemFor, textScorer, type SystemEntry, type SystemId } from './systems/registry';
import { checkReadable } from './text/origin';
import type { System } from './systems/system';

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface RunHooks {
  progress?: (message: string, fraction?: number) => void;
  partial?: (text: string) => void;
  isCancelled?: () => boolean;
  /** Asks the user about a download over draftsmith.hub.maxDownloadGB (hub/hubModel.ts LoadWatch). */
  confirmDownload?: LoadWatch['confirmDownload'];
}

/**
 * One system (one model folder) of the engine: loaded on first use; a failed load is not kept, so
 * fixing the folder and retrying works. Once dropped (configure) it is disposed as soon as no request
 * is using it: a run under way finishes on the sessions it started with, and then they are released.
 */
class Slot {
  private value?: Promise<System>;
  private users = 0;
  private dropped = false;

  /** load(watch): `watch` is the first requester's (a Hub model's download reports to it, and stops on its Cancel). */
  constructor(
    private readonly load: (watch: LoadWatch) => Promise<System>,
    private readonly log: Log,
  ) {}

  get(watch: LoadWatch = unwatched): Promise<System> {
    if (!this.value) {
      const p = this.load(watch);
      p.catch(() => {
        if (this.value === p) this.value = undefined;
      });
      this.value = p;
    }
    return this.value;
  }

  /** Runs `work` on the system, which is not disposed before `work` ends. */
  async use<T>(watch: LoadWatch, work: (system: System) => Promise<T>): Promise<T> {
    this.users++;
    try {
      return await work(await this.get(watch));
    } finally {
      this.users--;
      this.releaseIfIdle();
    }
  }

  drop(): void {
    this.dropped = true;
    this.releaseIfIdle();
  }

  private releaseIfIdle(): void {
    const loaded = this.value;
    if (!this.dropped || this.users > 0 || !loaded) return;
    this.value = undefined;
    loaded
      .then(
        (s) => s.dispose(),
        () => {
          /* a failed load holds no sessions */
        },
      )
      .catch((e: unknown) => this.log('warn', `releasing a model's sessions failed: ${errorMessage(e)}`));
  }
}

/** A load no request watches (the evaluations, the CLI's own loads): no progress, never cancelled. */
const unwatched: LoadWatch = { progress: () => {}, isCancelled: () => false };

/** The Hub settings when the configuration names none (the CLI): huggingface.co, cached in ~/.cache/draftsmith/hub. */
export function defaultHubConfig(): HubConfig {
  return HubConfig.parse({ cacheDir: path.join(os.homedir(), '.cache', 'draftsmith', 'hub') });
}

/** A choice's part of a slot's key: each model chosen is loaded (and released) on its own. */
function choiceKey(choice: ModelChoice | undefined): string {
  if (!choice || choice.kind === 'built-in') return 'built-in';
  if (choice.kind === 'gguf') return `gguf:${path.resolve(choice.file)}`;
  return choice.kind === 'hub' ? `hub:${choice.id}@${choice.revision ?? 'main'}` : `folder:${path.resolve(choice.dir)}`;
}

export interface EngineOptions {
  /**
   * The gate every onnxruntime call of this engine goes through. The worker passes its own and
   * closes it before it may be terminated; default: one of the engine's own (the CLI never closes it).
   */
  calls?: NativeCalls;
  /** Why CUDA cannot be tried (runtime/onnx.ts's missingCudaLibrary by default); a test passes its own. */
  missingCudaLibrary?: () => string | undefined;
  /** Cancels every run of this engine, besides each run's own hook (the CLI's Ctrl+C). */
  isCancelled?: () => boolean;
}

export class Engine {
  /** One per system and model folder asked for (the Round-Trip variants each have their own). */
  private readonly slots = new Map<string, Slot>();
  /** Whether CUDA works, for this configuration only: a configure starts a new one, which tries again. */
  private cuda: CudaDecision;
  readonly calls: NativeCalls;

  constructor(
    private config: EngineConfig,
    private readonly log: Log,
    private readonly options: EngineOptions = {},
  ) {
    this.calls = options.calls ?? new NativeCalls();
    this.cuda = new CudaDecision(options.missingCudaLibrary, acceleratorOf(config.device) ?? 'cuda');
  }

  configure(config: EngineConfig): void {
    const changed = JSON.stringify(config) !== JSON.stringify(this.config);
    this.config = config;
    // Every configure decides about CUDA afresh (the user may have installed the library, or switched
    // to cuda after a fallback): each load that then falls back logs it again.
    this.cuda = new CudaDecision(this.options.missingCudaLibrary, acceleratorOf(this.config.device) ?? 'cuda');
    // Reload lazily with the new folder or device; the old sessions are released, not left to the GC.
    if (changed) {
      for (const slot of this.slots.values()) slot.drop();
      this.slots.clear();
    }
  }

  /** The options one load opens its sessions with; `what` names it in the CUDA fallback line. */
  private runtime(what: string): RuntimeOptions {
    return {
      device: this.config.device,
      threads: this.config.threads,
      log: (l, m) => this.log(l, m),
      cuda: this.cuda.forLoad(what),
      calls: this.calls,
    };
  }

  /** Where the built-in choice's folders come from: the models folder, or draftsmith.modelsUrl's server. */
  private builtInSource(watch: LoadWatch): ModelSource {
    const { modelsUrl } = this.config;
    if (!modelsUrl) return modelsFolder(this.config.modelsDir);
    const hub = this.config.hub ?? defaultHubConfig();
    return urlModels(
      modelsUrl,
      {
        cacheDir: hub.cacheDir,
        offline: hub.offline,
        stallMs: hub.stallSeconds * 1000,
        log: (m) => this.log('info', m),
      },
      watch,
    );
  }

  private slot(id: SystemId, variant: string | undefined, choice?: ModelChoice): Slot {
    const key = `${id}/${variant ?? 'default'}/${choiceKey(choice)}`;
    let slot = this.slots.get(key);
    if (!slot) {
      const entry: SystemEntry = SYSTEMS[id];
      // The source is read when the load starts, so a configure before then is honoured.
      const what = `the ${id}${variant ? ` (${variant})` : ''} model`;
      slot = new Slot((watch) => {
        if (!choice || choice.kind === 'built-in')
          return entry.load(this.builtInSource(watch), this.runtime(what), variant);
        // A Draftsmith folder (model.json) loads as the built-in models do; anything else is transformers.js's layout.
        if (choice.kind === 'folder' && existsSync(path.join(choice.dir, 'model.json')))
          return entry.load(singleFolder(choice.dir), this.runtime(what), variant);
        if (!entry.external)
          return Promise.reject(
            new EngineError('bad-request', `The ${id} command runs Draftsmith's own models only, not a Hub model.`),
          );
        return entry.external(choice, this.config.hub ?? defaultHubConfig(), this.runtime(what), watch);
      }, this.log);
      this.slots.set(key, slot);
    }
    return slot;
  }

  /** The encoder `choice` names (BERTScore's), in a slot of its own: loaded once, released on configure. */
  private encoderSlot(choice: ExternalChoice): Slot {
    const key = `encoder/${choiceKey(choice)}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = new Slot(
        (watch) => HubEncoder.open(choice, this.config.hub ?? defaultHubConfig(), this.runtime('the encoder'), watch),
        this.log,
      );
      this.slots.set(key, slot);
    }
    return slot;
  }

  /** Releases one slot's system (once no request uses it); the next request loads it again. */
  private dropSlot(slot: Slot): void {
    for (const [key, held] of this.slots) if (held === slot) this.slots.delete(key);
    slot.drop();
  }

  private readonly clock = new YieldClock();

  /** Runs one request; the result's type follows the request's op. */
  async run<R extends EngineRequest>(request: R, hooks: RunHooks = {}): Promise<ResultFor<R>> {
    const cancelled = () => (hooks.isCancelled?.() ?? false) || (this.options.isCancelled?.() ?? false);
    const watch: LoadWatch = {
      progress: (m, f) => hooks.progress?.(m, f),
      isCancelled: cancelled,
      ...(hooks.confirmDownload ? { confirmDownload: hooks.confirmDownload } : {}),
    };
    const ctx: RunContext = {
      progress: (m, f) => hooks.progress?.(m, f),
      partial: (t) => hooks.partial?.(t),
      checkCancelled: () => {
        if (cancelled()) throw new CancelledError();
      },
      // One clock for the engine: the worker runs one request at a time, and every decoding loop of
      // it gives the event loop a turn (a cancel or stop message) on this one schedule. An inline
      // suggestion yields after every step: typing cancels it within one step.
      clock: request.op === 'story' && request.inline ? new YieldClock(0) : this.clock,
      // The scorer's system's own loading line shows while it loads (Score Draft's perplexity: the story model's).
      withTextScorer: <T>(work: (scorer: TextScorer) => Promise<T>) => {
        const { id: other, scorer } = textScorer();
        const entry: SystemEntry = SYSTEMS[other];
        if (entry.loading) ctx.progress(entry.loading);
        return this.slot(other, undefined).use(watch, (system) => work(scorer(system)));
      },
      withEncoder: <T>(choice: ExternalChoice, work: (encoder: TextEncoder) => Promise<T>) =>
        this.encoderSlot(choice).use(watch, (system) => {
          if (!(system instanceof HubEncoder)) throw new EngineError('internal', 'the encoder slot holds no encoder');
          return work(system);
        }),
    };
    const id = systemFor(request.op);
    const entry: SystemEntry = SYSTEMS[id];
    // Text no model can read (empty, no words, binary data) is refused before any model loads, with
    // the same message for every model of the command (a Hub summarizer's included).
    const input = entry.input?.of(request);
    if (input && entry.input) checkReadable(input.text, entry.input.task, input.origin);
    const choice = 'model' in request ? request.model : undefined;
    // A Hub model or a folder says what it loads itself (hub/hubModel.ts).
    if (entry.loading && (!choice || choice.kind === 'built-in')) ctx.progress(entry.loading);
    const slot = this.slot(id, entry.variant?.(request), choice);
    let result;
    try {
      result = await slot.use(watch, async (system) => {
        if (entry.loading) ctx.checkCancelled();
        return system.run(request, ctx);
      });
    } finally {
      if (entry.transient) this.dropSlot(slot);
    }
    // The registry sends each op to the system that answers it; this check is what makes the cast below true.
    if (result.op !== request.op) throw new Error(`engine answered "${result.op}" to a "${request.op}" request`);
    return result as ResultFor<R>;
  }
}
