import type { ModelChoice } from '../../protocol';
import type { DecodeHooks, YieldClock } from '../decode/types';
import type { EncodedText } from '../metrics/bertscore';
import type { SessionOptions } from '../runtime/onnx';

/**
 * A language model that scores a whole text: what Score Draft's perplexity needs of the model that
 * provides it (the built-in story model: systems/registry.ts says which).
 */
export interface TextScorer {
  /** The model's name, reported with the score. */
  readonly name: string;
  /** The text's summed negative log-likelihood (nats), its subword tokens and its words, each counting the end. */
  textPerplexity(text: string, hooks?: DecodeHooks): Promise<{ nll: number; tokens: number; words: number }>;
}

/** An encoder read for its token embeddings (BERTScore's): hub/hubEncoder.ts. */
export interface TextEncoder {
  /** The model as the user chose it (Hub id[@revision], or the folder). */
  readonly id: string;
  /** The layer its embeddings come from (config.json's num_hidden_layers). */
  readonly layer: number;
  /** The weights' data type of the graph that runs. */
  readonly dtype: string;
  /** The tokens its tokenizer wraps every text in ([CLS], [SEP]). */
  readonly specials: ReadonlySet<number>;
  encode(text: string): Promise<EncodedText>;
}

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
   * The engine's text scorer (a built-in model's), loaded if need be and kept for `work`: Score
   * Draft's perplexity. Absent outside the engine.
   */
  withTextScorer?<T>(work: (scorer: TextScorer) => Promise<T>): Promise<T>;
  /**
   * The encoder `choice` names, downloaded and loaded if need be and kept for `work`: Score Draft's
   * BERTScore. Absent outside the engine.
   */
  withEncoder?<T>(
    choice: Exclude<ModelChoice, { kind: 'built-in' }>,
    work: (encoder: TextEncoder) => Promise<T>,
  ): Promise<T>;
}

/**
 * A run with no one watching (the evaluations, the CLI's model runs outside the Engine): no progress,
 * no partial text, never cancelled.
 */
export const silentRun: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

/**
 * How a system opens its sessions: runtime/onnx.ts's SessionOptions, passed through whole, so the
 * engine's CUDA decision (per configuration, seen per load) and its native-call gate reach every
 * session without the systems handling them.
 */
export type RuntimeOptions = SessionOptions;
