/**
 * A decoder-only Hub model (gpt2, llama, qwen2, ... in transformers.js's ONNX layout) as a
 * StepModel, so that our own decoding loops run it (seeded top-k, beam search, the processors,
 * streaming, the length in words) while transformers.js downloads, caches and tokenizes. The
 * graph's contract is the one transformers.js's decoder_forward feeds: input_ids, attention_mask,
 * [position_ids], [num_logits_to_keep], [use_cache_branch], past_key_values.{i}.key/value ->
 * logits, present.{i}.key/value. Caches and logits may be float32 or float16 (the q4f16 and fp16
 * files); the cache sizes come from the family's layout (families.ts), not from axis names.
 *
 * Memory stays bounded on long prompts: a prompt is read in chunks, and only the last position's
 * logits are kept (num_logits_to_keep where the graph has it; otherwise a chunk's logits are at
 * most `prefillChunk` rows of the vocabulary).
 */
import type { StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { halvesToFloats } from '../runtime/float16';
import { ort, type Session, type Tensor } from '../runtime/onnx';
import { gatherAxis, reorderInPlace, type CacheArray } from '../runtime/tensorOps';
import { foldEndTokens } from './endTokens';
import type { CausalLayout } from './families';
import { logSoftmaxInto } from './logSoftmax';

export interface CausalState {
  past: Record<string, Tensor>;
  /** Tokens already in the cache. */
  length: number;
}

export interface CausalOptions {
  layout: CausalLayout;
  vocabSize: number;
  /** Every end token; the loops stop on the first, the others are folded into it. */
  ends: readonly number[];
  /** Prompt tokens read per graph call (default 256). */
  prefillChunk?: number;
}

const presentOf = (past: string) => past.replace(/^past_key_values\./, 'present.');
const FED = ['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch', 'num_logits_to_keep'];
type FloatType = 'float32' | 'float16';

/** A tensor's element type as the graph declares it: float32 or float16, nothing else. */
function floatType(meta: readonly { name: string; isTensor: boolean }[], name: string): FloatType {
  const m = meta.find((x) => x.name === name);
  const type = m && m.isTensor ? (m as { type?: string }).type : 'float32';
  if (type !== 'float32' && type !== 'float16')
    throw new EngineError('bad-model', `${name} is ${type}; Draftsmith runs float32 and float16 graphs`);
  return type;
}

export class CausalStepModel implements StepModel<CausalState> {
  readonly vocabSize: number;
  readonly ends: readonly number[];
  private readonly pastNames: string[];
  private readonly empty: Record<string, Tensor>;
  private readonly positions: boolean;
  /** Optimum's merged decoders pick their branch by this flag: true once the cache holds tokens. */
  private readonly cacheBranch: boolean;
  /** onnxruntime-genai's and transformers.js's newer exports compute logits only for the last N positions. */
  private readonly keepLogits: boolean;
  readonly cacheType: FloatType;
  private readonly logitsType: FloatType;
  private readonly prefillChunk: number;

  constructor(
    private readonly session: Session,
    opts: CausalOptions,
  ) {
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
    this.keepLogits = names.includes('num_logits_to_keep');
    this.pastNames = names.filter((n) => n.startsWith('past_key_values.'));
    const unknown = names.filter((n) => !FED.includes(n) && !n.startsWith('past_key_values.'));
    if (unknown.length)
      throw new EngineError(
        'bad-model',
        `the model's graph takes inputs Draftsmith does not feed: ${unknown.join(', ')}`,
      );
    const { layout } = opts;
    if (this.pastNames.length !== 2 * layout.layers)
      throw new EngineError(
        'bad-model',
        `the graph has ${this.pastNames.length} cache inputs; config.json's ${layout.layers} layers need ` +
          `${2 * layout.layers}`,
      );
    const inputs = session.inputMetadata;
    this.cacheType = this.pastNames.length ? floatType(inputs, this.pastNames[0]) : 'float32';
    this.logitsType = floatType(session.outputMetadata, 'logits');
    this.empty = {};
    const Tensor = ort().Tensor;
    for (const name of this.pastNames) {
      if (floatType(inputs, name) !== this.cacheType)
        throw new EngineError('bad-model', `the graph's cache inputs are not all ${this.cacheType}`);
      const dims = [1, layout.kvHeads, 0, layout.headDim];
      const meta = inputs.find((m) => m.name === name);
      const declared = meta && meta.isTensor ? meta.shape : [];
      declared.forEach((d, axis) => {
        if (typeof d === 'number' && d !== dims[axis] && axis !== 2)
          throw new EngineError(
            'bad-model',
            `${name} has ${d} at axis ${axis}; config.json gives ${dims[axis]} (${layout.kvHeads} key/value ` +
              `heads of ${layout.headDim})`,
          );
      });
      this.empty[name] =
        this.cacheType === 'float16'
          ? new Tensor('float16', new Uint16Array(0), dims)
          : new Tensor('float32', new Float32Array(0), dims);
      if (!session.outputNames.includes(presentOf(name)))
        throw new EngineError('bad-model', `the model's graph returns no ${presentOf(name)}`);
    }
    this.vocabSize = opts.vocabSize;
    this.ends = opts.ends;
    this.prefillChunk = Math.max(1, opts.prefillChunk ?? 256);
  }

  initial(): CausalState {
    return { past: { ...this.empty }, length: 0 };
  }

  /**
   * Reads `tokens` (a prompt, or one token) of one row after the cache, in chunks: the last
   * position's log-probs and the longer cache.
   */
  async run(tokens: readonly number[], state: CausalState): Promise<{ logProbs: Float32Array; state: CausalState }> {
    if (tokens.length === 0) throw new EngineError('internal', 'an empty prompt reached the model');
    let logits: { data: Float32Array; vocab: number } | undefined;
    for (let at = 0; at < tokens.length; at += this.prefillChunk) {
      const chunk = tokens.slice(at, at + this.prefillChunk);
      const out = await this.forward([chunk], state);
      state = out.state;
      logits = out.lastLogits(0);
    }
    const { data, vocab } = logits!;
    const logProbs = logSoftmaxInto(data, new Float32Array(vocab));
    foldEndTokens(logProbs, vocab, this.ends[0], this.ends.slice(1));
    return { logProbs, state };
  }

  /** One token for each row (the rows are beams, or one sample): their log-probs [rows * vocab]. */
  async step(tokens: number[], state: CausalState) {
    const out = await this.forward(
      tokens.map((t) => [t]),
      state,
    );
    let logProbs: Float32Array | undefined;
    let vocab = 0;
    for (let r = 0; r < tokens.length; r++) {
      const row = out.lastLogits(r);
      vocab = row.vocab;
      logProbs ??= new Float32Array(tokens.length * vocab);
      logSoftmaxInto(row.data, logProbs, r * vocab);
    }
    foldEndTokens(logProbs!, vocab, this.ends[0], this.ends.slice(1));
    return { logProbs: logProbs!, state: out.state };
  }

  /** `rows` copies of a one-row state (a prompt read once, then searched by several beams). */
  tile(state: CausalState, rows: number): CausalState {
    return this.reorder(state, new Array<number>(rows).fill(0));
  }

  /** The cache of the first `length` tokens only (axis 2 of [rows, heads, tokens, head size]). */
  truncate(state: CausalState, length: number): CausalState {
    if (length >= state.length) return state;
    if (length <= 0) return this.initial();
    const past: Record<string, Tensor> = {};
    const Tensor = ort().Tensor;
    const keep = Array.from({ length }, (_, i) => i);
    for (const [name, t] of Object.entries(state.past)) {
      const g = gatherAxis(t.data as CacheArray, [...t.dims], 2, keep);
      past[name] =
        g.data instanceof Uint16Array ? new Tensor('float16', g.data, g.dims) : new Tensor('float32', g.data, g.dims);
    }
    return { past, length };
  }

  reorder(state: CausalState, rows: number[]): CausalState {
    const past: Record<string, Tensor> = {};
    const Tensor = ort().Tensor;
    for (const [name, t] of Object.entries(state.past)) {
      const data = t.data as CacheArray;
      if (t.dims[0] === rows.length && reorderInPlace(data, [...t.dims], 0, rows)) past[name] = t;
      else {
        const g = gatherAxis(data, [...t.dims], 0, rows);
        past[name] =
          g.data instanceof Uint16Array ? new Tensor('float16', g.data, g.dims) : new Tensor('float32', g.data, g.dims);
      }
    }
    return { past, length: state.length };
  }

  /** The graph over `ids` (one list per row, all the same length) after the cache. */
  private async forward(
    ids: readonly (readonly number[])[],
    state: CausalState,
  ): Promise<{ lastLogits(row: number): { data: Float32Array; vocab: number }; state: CausalState }> {
    const rows = ids.length;
    const n = ids[0].length;
    const total = state.length + n;
    const Tensor = ort().Tensor;
    // Typed arrays filled directly: a BigInt per element costs more than a small model's step.
    const inputIds = new BigInt64Array(rows * n);
    ids.forEach((row, r) => row.forEach((t, i) => (inputIds[r * n + i] = BigInt(t))));
    const feed: Record<string, Tensor> = {
      ...state.past,
      input_ids: new Tensor('int64', inputIds, [rows, n]),
      attention_mask: new Tensor('int64', new BigInt64Array(rows * total).fill(1n), [rows, total]),
    };
    if (this.cacheBranch) feed.use_cache_branch = new Tensor('bool', new Uint8Array([state.length > 0 ? 1 : 0]), [1]);
    if (this.keepLogits) feed.num_logits_to_keep = new Tensor('int64', new BigInt64Array([1n]), []);
    if (this.positions) {
      const positions = new BigInt64Array(rows * n);
      for (let r = 0; r < rows; r++) for (let i = 0; i < n; i++) positions[r * n + i] = BigInt(state.length + i);
      feed.position_ids = new Tensor('int64', positions, [rows, n]);
    }
    const out = await this.session.run(feed);
    const past: Record<string, Tensor> = {};
    for (const name of this.pastNames) past[name] = out[presentOf(name)];
    const logits = out.logits;
    if (!logits || logits.type !== this.logitsType)
      throw new EngineError('bad-model', `the model's logits are ${logits?.type ?? 'missing'}, not ${this.logitsType}`);
    const vocab = logits.dims[logits.dims.length - 1];
    const positions = logits.dims.length === 3 ? logits.dims[1] : 1;
    return {
      // The row's last position: the only one any caller reads.
      lastLogits: (row) => {
        const from = (row * positions + positions - 1) * vocab;
        const data =
          this.logitsType === 'float16'
            ? halvesToFloats((logits.data as Uint16Array).subarray(from, from + vocab))
            : (logits.data as Float32Array).subarray(from, from + vocab);
        return { data, vocab };
      },
      state: { past, length: total },
    };
  }
}
