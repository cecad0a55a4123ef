import type { YieldClock } from '../decode/types';
import type { SessionOptions } from '../runtime/onnx';
import type { SystemId, SystemOf } from './registry';

/** What a system gets from the engine while it runs one request. */
export interface RunContext {
  progress(message: string, fraction?: number): void;
  partial(text: string): void;
  /** Throws CancelledError once the user has cancelled. */
  checkCancelled(): void;
  /**
   * The run's yield clock (decode/types.ts), owned by whoever runs the request (the engine) and
   * handed to every decoding loop of the run; absent, each loop keeps its own.
   */
  clock?: YieldClock;
  /**
   * Another system of the engine (its built-in model), loaded if need be and kept for `work`: Score
   * Draft's perplexity runs on the story model. Absent outside the engine.
   */
  withSystem?<K extends SystemId, T>(id: K, work: (system: SystemOf<K>) => Promise<T>): Promise<T>;
}

/** A run with no one watching (the evaluations, the CLI's model runs outside the Engine): no progress, no partial text, never cancelled. */
export const silentRun: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

/**
 * How a system opens its sessions: runtime/onnx.ts's SessionOptions, passed through whole, so the
 * engine's CUDA decision (per configuration, seen per load) and its native-call gate reach every
 * session without the systems handling them.
 */
export type RuntimeOptions = SessionOptions;
