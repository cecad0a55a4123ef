/**
 * The engine: loads each system's model folder on first use and runs requests. Used by the worker
 * (for the extension) and directly by the CLI. It knows nothing of VS Code.
 */
import type { EngineConfig, EngineRequest, EngineResult } from '../protocol';
import { CancelledError } from './errors';
import type { RunContext, RuntimeOptions } from './systems/context';
import { SummarizeSystem, summarizeModelDir } from './systems/summarize';

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface RunHooks {
  progress?: (message: string, fraction?: number) => void;
  partial?: (text: string) => void;
  isCancelled?: () => boolean;
}

export class Engine {
  private summarize?: Promise<SummarizeSystem>;

  constructor(private config: EngineConfig, private readonly log: Log) {}

  configure(config: EngineConfig): void {
    const changed = JSON.stringify(config) !== JSON.stringify(this.config);
    this.config = config;
    if (changed) this.summarize = undefined; // reload lazily with the new folder or device
  }

  private runtime(): RuntimeOptions {
    return { device: this.config.device, threads: this.config.threads, log: (l, m) => this.log(l, m) };
  }

  /** Loads (once) the summarize system; a failed load is not cached, so fixing the folder and retrying works. */
  summarizer(): Promise<SummarizeSystem> {
    if (!this.summarize) {
      const p = SummarizeSystem.load(summarizeModelDir(this.config.modelsDir), this.runtime());
      p.catch(() => { if (this.summarize === p) this.summarize = undefined; });
      this.summarize = p;
    }
    return this.summarize;
  }

  async run(request: EngineRequest, hooks: RunHooks = {}): Promise<EngineResult> {
    const ctx: RunContext = {
      progress: (m, f) => hooks.progress?.(m, f),
      partial: (t) => hooks.partial?.(t),
      checkCancelled: () => { if (hooks.isCancelled?.()) throw new CancelledError(); },
    };
    switch (request.op) {
      case 'summarize': {
        ctx.progress('Loading the summarization model…');
        const system = await this.summarizer();
        ctx.checkCancelled();
        return system.run(request, ctx);
      }
    }
  }
}
