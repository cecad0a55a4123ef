/**
 * @huggingface/transformers (transformers.js), loaded only when a user chooses a Hub model, and
 * only through our guard for native calls: it takes the onnxruntime it runs from
 * globalThis[Symbol.for('onnxruntime')] when it is first loaded, so that symbol is set first, to
 * onnxruntime-node with every session going through the gate of the engine that uses it now.
 *
 * The narrow interfaces below are the part of its API Draftsmith uses (its own typings describe
 * every model class of the library; these say what we rely on).
 */
import { NativeCalls, guardedOrt, type GraphPreparer } from '../runtime/onnx';

export interface TjsTensor {
  dims: number[];
  /** The values, row-major (a typed array: Float32Array for float32, BigInt64Array for int64, ...). */
  readonly data?: unknown;
  /** 'float32', 'int64', ... */
  readonly type?: string;
  tolist(): unknown[];
  /** A range per axis (null: all of it), as numpy's a[:, 0:n]. */
  slice(...ranges: (null | [number, number])[]): TjsTensor;
}

export interface TjsTokenizer {
  (
    text: string,
    options?: Record<string, unknown>,
  ): { input_ids: TjsTensor; attention_mask: TjsTensor; token_type_ids?: TjsTensor };
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: readonly (number | bigint)[], options?: { skip_special_tokens?: boolean }): string;
  readonly bos_token_id?: number | null;
  readonly eos_token_id?: number | null;
  /** tokenizer_config.json's model_max_length (the longest input the model was trained on). */
  readonly model_max_length?: number;
  /** tokenizer_config.json's chat_template: one template, or named ones. */
  readonly chat_template?: string | Record<string, string> | null;
  apply_chat_template(
    conversation: readonly { role: string; content: string }[],
    /** Other keys reach the template as variables (enable_thinking). */
    options?: { tokenize?: boolean; add_generation_prompt?: boolean; enable_thinking?: boolean },
  ): string | number[] | TjsTensor;
}

export interface TjsModel {
  readonly config: Record<string, unknown> & { model_type?: string };
  /** generation_config.json as the repository has it (null where it has none). */
  readonly generation_config?: Record<string, unknown> | null;
  generate(options: Record<string, unknown>): Promise<TjsTensor | { sequences: TjsTensor }>;
  /** One pass of the model's graph on the tokenizer's output (an encoder: { last_hidden_state }). */
  forward(inputs: Record<string, unknown>): Promise<Record<string, unknown>>;
  dispose(): Promise<unknown>;
}

export type ProgressInfo =
  | { status: 'initiate' | 'download' | 'done'; name: string; file: string }
  | { status: 'progress'; name: string; file: string; progress: number; loaded: number; total: number }
  | { status: 'progress_total'; name: string; progress: number; loaded: number; total: number }
  | { status: 'ready'; task?: string; model?: string };

export interface PretrainedOptions {
  progress_callback?: (info: ProgressInfo) => void;
  revision?: string;
  local_files_only?: boolean;
  cache_dir?: string;
  /** One data type for every graph, or one per graph base name ('encoder_model', ...). */
  dtype?: string | Record<string, string>;
  /** The decoder-only graph's base name where it is not 'model' (the older 'decoder_model_merged'). */
  model_file_name?: string;
  /** Per graph file name ('model_q4.onnx'), how many external-weight chunks it has. */
  use_external_data_format?: Record<string, number>;
  device?: string;
  session_options?: Record<string, unknown>;
}

interface Auto<T> {
  from_pretrained(id: string, options?: PretrainedOptions): Promise<T>;
}

export interface Tjs {
  env: {
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    localModelPath: string;
    remoteHost: string;
    cacheDir: string;
    useFSCache: boolean;
    useBrowserCache: boolean;
    fetch: typeof fetch;
  };
  AutoTokenizer: Auto<TjsTokenizer>;
  AutoConfig: Auto<Record<string, unknown> & { model_type?: string; is_encoder_decoder?: boolean }>;
  AutoModelForCausalLM: Auto<TjsModel>;
  AutoModelForSeq2SeqLM: Auto<TjsModel>;
  /** The bare model (no head): an encoder's token embeddings. */
  AutoModel: Auto<TjsModel>;
  BaseStreamer: new () => { put(value: bigint[][]): void; end(): void };
  StoppingCriteria: new () => { _call(inputIds: bigint[][], scores: unknown): boolean[] };
}

let gate = new NativeCalls();
let graphs: GraphPreparer | undefined;
let loaded: Tjs | undefined;

/**
 * transformers.js, its native calls going through `calls` (the engine's gate) from now on, and the
 * model files it opens through `prepare` (their rewritten graphs) where given.
 */
export function transformersJs(calls: NativeCalls, prepare?: GraphPreparer): Tjs {
  gate = calls;
  graphs = prepare;
  if (!loaded) {
    (globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] = guardedOrt(
      () => gate,
      () => graphs,
    );
    loaded = require('@huggingface/transformers') as Tjs;
  }
  return loaded;
}
