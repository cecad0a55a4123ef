/**
 * The causal language model the writing systems run (Rewrite, Expand into Essay, Continue Story, Write
 * a Premise, inline suggestions), whichever runtime holds it: a Hub model or folder through
 * transformers.js and onnxruntime (hub/causalStep.ts), or a GGUF file through llama.cpp
 * (gguf/ggufStep.ts). The systems see only this: a tokenizer with the model's chat template, a step
 * model our decoding loops drive (so sampling, beams, guards, streaming and Cancel are one path), its
 * end and banned tokens, and its context.
 */
import type { StepModel } from '../decode/types';
import type { modelSamplingDefaults } from './generationDefaults';
import type { TjsTokenizer } from './transformersJs';

/** What the systems ask of a tokenizer: transformers.js's calls, which the GGUF tokenizer answers too. */
export type LmTokenizer = Pick<TjsTokenizer, 'encode' | 'decode' | 'chat_template' | 'apply_chat_template'>;

/** A step model that also reads a prompt, and keeps or cuts its cache (the prefix cache's needs). */
export interface CausalSteps<S = unknown> extends StepModel<S> {
  /** Every end token; the loops stop on the first, the others are folded into it. */
  readonly ends: readonly number[];
  /** The state before any token. */
  initial(): S;
  /** Reads `tokens` (one row) after the state: the last position's log-probs and the longer state. */
  run(tokens: readonly number[], state: S): Promise<{ logProbs: Float32Array; state: S }>;
  /** `rows` copies of a one-row state. */
  tile(state: S, rows: number): S;
  /** The state of the first `length` tokens only. */
  truncate(state: S, length: number): S;
}

/** A model opened for the systems, as the panel and the results describe it. */
export interface OpenedLm {
  /** The Hub id, the folder, or the GGUF file, as the user named it. */
  id: string;
  source: 'hub' | 'folder' | 'gguf';
  /** config.json's model_type, or the GGUF file's general.architecture. */
  architecture: string;
  /** Where its files are: the folder, the download cache, or the GGUF file's folder. */
  dir: string;
  /** What runs it: 'cpu', or the accelerator (an onnxruntime provider, or llama.cpp's cuda/metal/vulkan build). */
  device: string;
  /** The weights' data type ('q4', 'Q8_0', ...). */
  dtype: string;
  tokenizer: LmTokenizer;
  /** Its release: the sessions or the llama.cpp context and model. */
  model: { dispose(): Promise<unknown> };
}

export interface CausalLm {
  opened: OpenedLm;
  step: CausalSteps;
  /** The longest text (prompt + continuation) the model reads, in tokens: its own limit or the cap, the smaller. */
  contextTokens: number;
  /** Whether contextTokens is the cap (draftsmith.hub.contextTokens) rather than the model's own limit. */
  contextCapped: boolean;
  /** The start token a plain prompt begins with, where the model needs one and it is not an end token. */
  bos: number | undefined;
  /** The end token the loops stop on (the first of `ends`). */
  eos: number;
  /**
   * Every end token (config.json, generation_config.json and the tokenizer's; llama.cpp's end-of-generation tokens).
   */
  ends: readonly number[];
  /** Tokens no text contains (start, padding, control tokens), never an end token. */
  banned: number[];
  /** An instruct model: its prompts go through its chat template. */
  chat: boolean;
  /** Its own sampling settings (generation_config.json), where it has them. */
  sampling: ReturnType<typeof modelSamplingDefaults>;
}

/**
 * The longest prompt plus output we let a chosen language model read, whatever its own limit (Qwen2.5
 * says 32k): the cache grows with every token read, so the cap bounds memory; a longer text is cut,
 * and the result says so.
 */
export const DEFAULT_CONTEXT_CAP = 4096;
