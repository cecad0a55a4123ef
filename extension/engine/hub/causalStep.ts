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
import { logSoftmaxInto } from './logSoftmax';
import { gatherAxis, reorderInPlace } from '../runtime/tensorOps';

export interface CausalState {
  past: Record<string, Tensor>;
  /** Tokens already in the cache. */
  length: number;
}

interface InputMeta {
  name: string;
  isTensor: boolean;
  type?: string;
  shape?: readonly (number | string)[];
}

const presentOf = (past: string) => past.replace(/^past_key_values\./, 'present.');

/** Numbers for a cache tensor's symbolic axes: batch 1, the past length 0, heads and head size from config.json. */
function cacheDims(meta: InputMeta, config: Record<string, unknown>): number[] {
  const shape = meta.shape ?? [];
  const num = (k: string) => (typeof config[k] === 'number' ? (config[k] as number) : undefined);
  const heads = num('num_key_value_heads') ?? num('n_head') ?? num('num_attention_heads');
  const hidden = num('n_embd') ?? num('hidden_size') ?? num('d_model');
  const headDim =
    num('head_dim') ??
    (hidden && (num('n_head') ?? num('num_attention_heads'))
      ? hidden / (num('n_head') ?? num('num_attention_heads'))!
      : undefined);
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

  constructor(
    private readonly session: Session,
    config: Record<string, unknown>,
  ) {
    const inputs = (session as unknown as { inputMetadata?: readonly InputMeta[] }).inputMetadata ?? [];
    const names = session.inputNames;
    for (const required of ['input_ids', 'attention_mask']) {
      if (!names.includes(required))
        throw new EngineError(
          'bad-model',
          `the model's graph has no ${required} input; it is not a causal LM transformers.js runs`,
        );
    }
    if (!session.outputNames.includes('logits'))
      throw new EngineError('bad-model', "the model's graph has no logits output");
    this.positions = names.includes('position_ids');
    this.cacheBranch = names.includes('use_cache_branch');
    this.pastNames = names.filter((n) => n.startsWith('past_key_values.'));
    const unknown = names.filter(
      (n) =>
        !['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch'].includes(n) &&
        !n.startsWith('past_key_values.'),
    );
    if (unknown.length)
      throw new EngineError(
        'bad-model',
        `the model's graph takes inputs Draftsmith does not feed: ${unknown.join(', ')}`,
      );
    this.empty = {};
    for (const name of this.pastNames) {
      const meta = inputs.find((m) => m.name === name);
      if (meta?.type && meta.type !== 'float32')
        throw new EngineError(
          'bad-model',
          `${name} is ${meta.type}; Draftsmith runs float32 caches (the q8 or fp32 files)`,
        );
      const dims = cacheDims(meta ?? { name, isTensor: true, shape: ['batch', 'heads', 'past', 'head_dim'] }, config);
      this.empty[name] = float32Tensor(new Float32Array(0), dims);
      if (!session.outputNames.includes(presentOf(name)))
        throw new EngineError('bad-model', `the model's graph returns no ${presentOf(name)}`);
    }
    this.vocabSize = typeof config.vocab_size === 'number' ? config.vocab_size : 0;
  }

  initial(): CausalState {
    return { past: { ...this.empty }, length: 0 };
  }

  /** Runs `tokens` (a prompt, or one token) of one row after the cache: the last position's log-probs and the longer cache. */
  async run(tokens: readonly number[], state: CausalState): Promise<{ logProbs: Float32Array; state: CausalState }> {
    const out = await this.forward([tokens], state);
    const vocab = out.logits.dims[out.logits.dims.length - 1];
    const n = tokens.length;
    return {
      logProbs: logSoftmaxInto(
        floatData(out.logits, 'logits').subarray((n - 1) * vocab, n * vocab),
        new Float32Array(vocab),
      ),
      state: out.state,
    };
  }

  /** One token for each row (the rows are beams, or one sample): their log-probs [rows * vocab]. */
  async step(tokens: number[], state: CausalState) {
    const out = await this.forward(
      tokens.map((t) => [t]),
      state,
    );
    const vocab = out.logits.dims[out.logits.dims.length - 1];
    const logits = floatData(out.logits, 'logits');
    const logProbs = new Float32Array(tokens.length * vocab);
    for (let r = 0; r < tokens.length; r++)
      logSoftmaxInto(logits.subarray(r * vocab, (r + 1) * vocab), logProbs, r * vocab);
    return { logProbs, state: out.state };
  }

  /** `rows` copies of a one-row state (a prompt read once, then searched by several beams). */
  tile(state: CausalState, rows: number): CausalState {
    return this.reorder(state, new Array<number>(rows).fill(0));
  }

  reorder(state: CausalState, rows: number[]): CausalState {
    const past: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(state.past)) {
      const data = floatData(t, name);
      if (t.dims[0] === rows.length && reorderInPlace(data, [...t.dims], 0, rows)) past[name] = t;
      else {
        const g = gatherAxis(data, [...t.dims], 0, rows);
        past[name] = float32Tensor(g.data, g.dims);
      }
    }
    return { past, length: state.length };
  }

  /** The graph over `ids` (one list per row, all the same length) after the cache. */
  private async forward(
    ids: readonly (readonly number[])[],
    state: CausalState,
  ): Promise<{ logits: Tensor; state: CausalState }> {
    const rows = ids.length;
    const n = ids[0].length;
    const total = state.length + n;
    const Tensor = ort().Tensor;
    // Typed arrays filled directly: a BigInt per element (int64Tensor) costs more than the small model's step.
    const feed: Record<string, Tensor> = {
      ...state.past,
      input_ids: int64Tensor(ids.flat(), [rows, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(rows * total).fill(1n), [rows, total]),
    };
    if (this.cacheBranch) feed.use_cache_branch = new Tensor('bool', new Uint8Array([state.length > 0 ? 1 : 0]), [1]);
    if (this.positions) {
      const positions = new BigInt64Array(rows * n);
      for (let r = 0; r < rows; r++) for (let i = 0; i < n; i++) positions[r * n + i] = BigInt(state.length + i);
      feed.position_ids = new Tensor('int64', positions, [rows, n]);
    }
    const out = await this.session.run(feed);
    const past: Record<string, Tensor> = {};
    for (const name of this.pastNames) past[name] = out[presentOf(name)];
    return { logits: out.logits, state: { past, length: total } };
  }
}
