/**
 * A decoder-only Hub model (gpt2, llama, ... in transformers.js's ONNX layout) as a StepModel, so
 * that our own decoding loop runs it (decode/topk.ts: seeded top-k, the processors, streaming, the
 * length in words) while transformers.js downloads, caches and tokenizes. The graph's contract is
 * the one transformers.js's decoder_forward feeds: input_ids, attention_mask, [position_ids],
 * past_key_values.{i}.key/value -> logits, present.{i}.key/value; the cache tensors' shapes come
 * from the graph's own input metadata (the batch axis 1, the growing length 0 at the start).
 */
import type { StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { float32Tensor, floatData, int64Tensor, ort, type Session, type Tensor } from '../runtime/onnx';

export interface CausalState {
  past: Record<string, Tensor>;
  /** Tokens already in the cache. */
  length: number;
}

interface InputMeta { name: string; isTensor: boolean; type?: string; shape?: readonly (number | string)[] }

const presentOf = (past: string) => past.replace(/^past_key_values\./, 'present.');

/** Numbers for a cache tensor's symbolic axes: batch 1, the past length 0, heads and head size from config.json. */
function cacheDims(meta: InputMeta, config: Record<string, unknown>): number[] {
  const shape = meta.shape ?? [];
  const num = (k: string) => (typeof config[k] === 'number' ? (config[k] as number) : undefined);
  const heads = num('num_key_value_heads') ?? num('n_head') ?? num('num_attention_heads');
  const hidden = num('n_embd') ?? num('hidden_size') ?? num('d_model');
  const headDim = num('head_dim') ?? (hidden && (num('n_head') ?? num('num_attention_heads')) ? hidden / (num('n_head') ?? num('num_attention_heads'))! : undefined);
  return shape.map((d, axis) => {
    if (typeof d === 'number') return d;
    if (axis === 0) return 1;
    if (/past|sequence|length/i.test(d)) return 0;
    const guess = /head_dim|dim_kv|size/i.test(d) ? headDim : /head/i.test(d) ? heads : undefined;
    if (guess === undefined) throw new EngineError('bad-model', `cannot tell the size of ${meta.name}'s axis "${d}"`);
    return guess;
  });
}

export class CausalStepModel implements StepModel<CausalState> {
  readonly vocabSize: number;
  private readonly pastNames: string[];
  private readonly empty: Record<string, Tensor>;
  private readonly positions: boolean;
  /** Optimum's merged decoders (decoder_model_merged.onnx) pick their branch by this flag: true once the cache holds tokens. */
  private readonly cacheBranch: boolean;

  constructor(private readonly session: Session, config: Record<string, unknown>) {
    const inputs = (session as unknown as { inputMetadata?: readonly InputMeta[] }).inputMetadata ?? [];
    const names = session.inputNames;
    for (const required of ['input_ids', 'attention_mask']) {
      if (!names.includes(required)) throw new EngineError('bad-model', `the model's graph has no ${required} input; it is not a causal LM transformers.js runs`);
    }
    if (!session.outputNames.includes('logits')) throw new EngineError('bad-model', "the model's graph has no logits output");
    this.positions = names.includes('position_ids');
    this.cacheBranch = names.includes('use_cache_branch');
    this.pastNames = names.filter((n) => n.startsWith('past_key_values.'));
    const unknown = names.filter((n) => !['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch'].includes(n) && !n.startsWith('past_key_values.'));
    if (unknown.length) throw new EngineError('bad-model', `the model's graph takes inputs Draftsmith does not feed: ${unknown.join(', ')}`);
    this.empty = {};
    for (const name of this.pastNames) {
      const meta = inputs.find((m) => m.name === name);
      if (meta?.type && meta.type !== 'float32') throw new EngineError('bad-model', `${name} is ${meta.type}; Draftsmith runs float32 caches (the q8 or fp32 files)`);
      const dims = cacheDims(meta ?? { name, isTensor: true, shape: ['batch', 'heads', 'past', 'head_dim'] }, config);
      this.empty[name] = float32Tensor(new Float32Array(0), dims);
      if (!session.outputNames.includes(presentOf(name))) throw new EngineError('bad-model', `the model's graph returns no ${presentOf(name)}`);
    }
    this.vocabSize = typeof config.vocab_size === 'number' ? config.vocab_size : 0;
  }

  initial(): CausalState {
    return { past: { ...this.empty }, length: 0 };
  }

  /** Runs `tokens` (a prompt, or one token) after the cache: the last position's log-probs and the longer cache. */
  async run(tokens: readonly number[], state: CausalState): Promise<{ logProbs: Float32Array; state: CausalState }> {
    const n = tokens.length;
    const total = state.length + n;
    const Tensor = ort().Tensor;
    // Typed arrays filled directly: a BigInt per element (int64Tensor) costs more than the small model's step.
    const feed: Record<string, Tensor> = {
      ...state.past,
      input_ids: int64Tensor(tokens, [1, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
    };
    if (this.cacheBranch) feed.use_cache_branch = new Tensor('bool', new Uint8Array([state.length > 0 ? 1 : 0]), [1]);
    if (this.positions) {
      const positions = new BigInt64Array(n);
      for (let i = 0; i < n; i++) positions[i] = BigInt(state.length + i);
      feed.position_ids = new Tensor('int64', positions, [1, n]);
    }
    const out = await this.session.run(feed);
    const logits = floatData(out.logits, 'logits');
    const vocab = out.logits.dims[out.logits.dims.length - 1];
    const past: Record<string, Tensor> = {};
    for (const name of this.pastNames) past[name] = out[presentOf(name)];
    return { logProbs: logSoftmax(logits.subarray((n - 1) * vocab, n * vocab)), state: { past, length: total } };
  }

  step(tokens: number[], state: CausalState) {
    if (tokens.length !== 1) throw new EngineError('internal', `a Hub causal LM samples one row at a time, not ${tokens.length}`);
    return this.run(tokens, state);
  }

  reorder(state: CausalState, rows: number[]): CausalState {
    if (rows.length !== 1 || rows[0] !== 0) throw new EngineError('internal', 'a Hub causal LM samples one row at a time');
    return state;
  }
}

function logSoftmax(logits: Float32Array): Float32Array {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const lse = max + Math.log(sum);
  const out = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}
