/**
 * The engine: loads each system's model folder on first use and runs requests. Used by the worker
 * (for the extension) and directly by the CLI. It knows nothing of VS Code.
 */
import type { EngineConfig, EngineRequest, EngineResult, ResultFor, RoundTripVariant } from '../protocol';
import { CancelledError } from './errors';
import { checkCoherence, scoreDraft } from './eval/scoreDraft';
import type { RunContext, RuntimeOptions } from './systems/context';
import { EssaySystem, essayModelDir } from './systems/essay';
import { ReplySystem, replyModelDir } from './systems/reply';
import { RoundTripSystem, roundtripModelDir } from './systems/roundtrip';
import { StorySystem, storyModelDir } from './systems/story';
import { SummarizeSystem, summarizeModelDir } from './systems/summarize';

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface RunHooks {
  progress?: (message: string, fraction?: number) => void;
  partial?: (text: string) => void;
  isCancelled?: () => boolean;
}

/** A system loaded on first use; a failed load is not kept, so fixing the folder and retrying works. */
class Lazy<T> {
  private value?: Promise<T>;
  constructor(private readonly load: () => Promise<T>) {}
  get(): Promise<T> {
    if (!this.value) {
      const p = this.load();
      p.catch(() => { if (this.value === p) this.value = undefined; });
      this.value = p;
    }
    return this.value;
  }
  reset(): void {
    this.value = undefined;
  }
}

export class Engine {
  private readonly systems = {
    summarize: new Lazy(() => SummarizeSystem.load(summarizeModelDir(this.config.modelsDir), this.runtime())),
    essay: new Lazy(() => EssaySystem.load(essayModelDir(this.config.modelsDir), this.runtime())),
    story: new Lazy(() => StorySystem.load(storyModelDir(this.config.modelsDir), this.runtime())),
    reply: new Lazy(() => ReplySystem.load(replyModelDir(this.config.modelsDir), this.runtime())),
  };
  /** One per Round-Trip folder asked for: the default one, and any variant the settings name. */
  private readonly roundtrips = new Map<string, Lazy<RoundTripSystem>>();

  constructor(private config: EngineConfig, private readonly log: Log) {}

  configure(config: EngineConfig): void {
    const changed = JSON.stringify(config) !== JSON.stringify(this.config);
    this.config = config;
    // Reload lazily with the new folder or device.
    if (changed) {
      for (const s of Object.values(this.systems)) s.reset();
      this.roundtrips.clear();
    }
  }

  private runtime(): RuntimeOptions {
    return { device: this.config.device, threads: this.config.threads, log: (l, m) => this.log(l, m) };
  }

  roundtrip(variant?: RoundTripVariant): Promise<RoundTripSystem> {
    const key = variant ?? 'default';
    let lazy = this.roundtrips.get(key);
    if (!lazy) {
      lazy = new Lazy(() => RoundTripSystem.load(roundtripModelDir(this.config.modelsDir, variant), this.runtime(), variant));
      this.roundtrips.set(key, lazy);
    }
    return lazy.get();
  }

  summarizer(): Promise<SummarizeSystem> {
    return this.systems.summarize.get();
  }

  /** Runs one request; the result's type follows the request's op. */
  async run<R extends EngineRequest>(request: R, hooks: RunHooks = {}): Promise<ResultFor<R>> {
    const result = await this.dispatch(request, hooks);
    // Every case of dispatch answers with its own op; this check is what makes the cast below true.
    if (result.op !== request.op) throw new Error(`engine answered "${result.op}" to a "${request.op}" request`);
    return result as ResultFor<R>;
  }

  private async dispatch(request: EngineRequest, hooks: RunHooks): Promise<EngineResult> {
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
      case 'essay': {
        ctx.progress('Loading the essay model…');
        const system = await this.systems.essay.get();
        ctx.checkCancelled();
        return system.run(request, ctx);
      }
      case 'roundtrip': {
        ctx.progress('Loading the round-trip model…');
        const system = await this.roundtrip(request.variant);
        ctx.checkCancelled();
        return system.run(request, ctx);
      }
      case 'reply': {
        ctx.progress('Loading the reply model…');
        const system = await this.systems.reply.get();
        ctx.checkCancelled();
        return system.run(request, ctx);
      }
      case 'story':
      case 'premise': {
        ctx.progress('Loading the story model…');
        const system = await this.systems.story.get();
        ctx.checkCancelled();
        return request.op === 'story' ? system.run(request, ctx) : system.premise(request, ctx);
      }
      case 'score':
        ctx.progress('Scoring the draft…');
        return scoreDraft(request, { checkCancelled: ctx.checkCancelled });
      case 'coherence':
        ctx.progress('Aligning sentences…');
        return checkCoherence(request);
    }
  }
}
