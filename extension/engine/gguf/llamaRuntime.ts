/**
 * llama.cpp in process through node-llama-cpp: the one place that imports it, picks its build for
 * draftsmith.device, and keeps what llama.cpp logs so that a failed load can say why.
 *
 * The import is lazy (node-llama-cpp is an ES module with a native addon): the extension activates,
 * and every ONNX model runs, where its binary is missing or does not load; only a GGUF model then
 * fails, with a message that says so. Nothing is ever built or downloaded: `build: 'never'` takes the
 * prebuilt binaries that came from the npm registry (@node-llama-cpp/<platform>[-cuda|-vulkan|-metal]).
 */
import type { DeviceSetting } from '../../protocol';
import { EngineError, errorMessage } from '../errors';
import type { RuntimeOptions } from '../systems/context';

export type NodeLlamaCpp = typeof import('node-llama-cpp');
export type Llama = import('node-llama-cpp').Llama;
/** llama.cpp's GPU builds (node-llama-cpp's names), or false for the CPU build. */
export type LlamaGpu = 'cuda' | 'vulkan' | 'metal' | false;

/**
 * The llama.cpp build draftsmith.device asks for. 'auto' takes the best prebuilt build this machine
 * runs (Metal on Apple silicon, else CUDA, else Vulkan, else the CPU); the ONNX providers' names map
 * to llama.cpp's nearest: CoreML's Apple GPU is Metal; DirectML and WebGPU, any GPU, are Vulkan.
 */
export function llamaGpuFor(device: DeviceSetting): 'auto' | LlamaGpu {
  switch (device) {
    case 'auto':
      return 'auto';
    case 'cpu':
      return false;
    case 'cuda':
      return 'cuda';
    case 'coreml':
      return 'metal';
    case 'dml':
    case 'webgpu':
      return 'vulkan';
  }
}

/** A build in words, for the log and the result's device. */
export const gpuName = (gpu: LlamaGpu): string => (gpu === false ? 'cpu' : gpu);

/** How many of llama.cpp's last error and warning lines a failed load can quote. */
const KEPT_LINES = 20;

/** llama.cpp's last error lines, counted, so that a failed load can quote those it logged. */
class ErrorLines {
  private readonly lines: string[] = [];
  private total = 0;

  add(line: string): void {
    this.total++;
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  /** Where the count stands now. */
  mark(): number {
    return this.total;
  }

  /** The lines logged since `mark`, as many as are kept. */
  since(mark: number): string[] {
    return this.lines.slice(Math.max(0, this.lines.length - (this.total - mark)));
  }
}

export class LlamaRuntime {
  private constructor(
    readonly llama: Llama,
    readonly lib: NodeLlamaCpp,
    private readonly errors: ErrorLines,
  ) {}

  /** Where llama.cpp's error lines stand now (before a load). */
  logMark(): number {
    return this.errors.mark();
  }

  /**
   * llama.cpp's error lines since `mark`, once `enough` accepts them or `waitMs` has passed: the
   * native loader logs from its own thread, so its reason can reach us after the failed load does.
   */
  async errorsSettled(mark: number, enough: (lines: string[]) => boolean, waitMs = 2000): Promise<string[]> {
    const until = Date.now() + waitMs;
    for (;;) {
      const lines = this.errors.since(mark);
      if (enough(lines) || Date.now() >= until) return lines;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * node-llama-cpp with the build `device` asks for. A GPU build named (not 'auto') that does not
   * load here falls back to the CPU build with a warning; every load logs the build that ran.
   */
  static async open(device: DeviceSetting, log: RuntimeOptions['log']): Promise<LlamaRuntime> {
    let lib: NodeLlamaCpp;
    try {
      lib = await import('node-llama-cpp');
    } catch (e) {
      throw new EngineError(
        'bad-model',
        `GGUF models run with llama.cpp (node-llama-cpp), which does not load here: ` +
          `${errorMessage(e).split('\n')[0]}. Hub models and the built-in models still run.`,
      );
    }
    const wanted = llamaGpuFor(device);
    const errors = new ErrorLines();
    const logger = (level: string, message: string) => {
      const line = message.trim();
      if (!line) return;
      if (level === 'error' || level === 'fatal') errors.add(line);
      if (level === 'error' || level === 'fatal' || level === 'warn') {
        // llama.cpp warns that a context is smaller than the model's training context: by design here.
        if (level === 'warn' && /n_ctx_seq|n_ctx_per_seq|n_ctx_train/.test(line)) return;
        log('warn', `llama.cpp: ${line}`);
      }
    };
    const get = (gpu: 'auto' | LlamaGpu) =>
      lib.getLlama({
        gpu,
        build: 'never',
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        logLevel: lib.LlamaLogLevel.warn,
        logger,
      });
    let llama: Llama;
    try {
      llama = await get(wanted);
    } catch (e) {
      if (wanted === false) throw noBinary(e);
      log(
        'warn',
        `llama.cpp's ${wanted === 'auto' ? 'GPU' : wanted} build does not load here ` +
          `(${errorMessage(e).split('\n')[0]}); GGUF models run on the CPU.`,
      );
      try {
        llama = await get(false);
      } catch (e2) {
        throw noBinary(e2);
      }
    }
    return new LlamaRuntime(llama, lib, errors);
  }

  /** The build that runs: 'cuda', 'vulkan', 'metal' or 'cpu'. */
  get device(): string {
    return gpuName(this.llama.gpu);
  }
}

function noBinary(e: unknown): EngineError {
  return new EngineError(
    'bad-model',
    `llama.cpp has no build that loads on ${process.platform}-${process.arch} ` +
      `(${errorMessage(e).split('\n')[0]}): GGUF models cannot run here; Hub models and the built-in models ` +
      `still do.`,
  );
}

/** One runtime per device setting, shared by every GGUF model of the worker (a build loads once per process). */
const runtimes = new Map<string, Promise<LlamaRuntime>>();

export function llamaRuntime(device: DeviceSetting, log: RuntimeOptions['log']): Promise<LlamaRuntime> {
  const key = String(llamaGpuFor(device));
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = LlamaRuntime.open(device, log);
    // A failure is not kept: a later load tries again (a library installed since).
    runtime.catch(() => runtimes.delete(key));
    runtimes.set(key, runtime);
  }
  return runtime;
}
