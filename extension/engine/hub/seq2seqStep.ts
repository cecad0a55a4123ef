/**
 * An encoder-decoder Hub model (bart, t5, marian, ... in transformers.js's ONNX layout, optimum's
 * merged decoder) as a StepModel, so that our beam search (decode/beam.ts: the length penalty,
 * n-gram blocking, the guards) writes its summaries; transformers.js's generate() only samples or
 * takes the best token, it has no beam search. The graphs' contract is the one its seq2seq_forward
 * feeds:
 *   encoder_model          input_ids, attention_mask -> last_hidden_state
 *   decoder_model_merged   input_ids [B,1], encoder_attention_mask, encoder_hidden_states, use_cache_branch,
 *                          past_key_values.{i}.decoder/encoder.key/value -> logits, present.*
 * The first step feeds zero-length pasts (use_cache_branch false) and gets the cross-attention
 * keys/values back as present.{i}.encoder.*, which every later step reuses; the decoder's own
 * presents grow by one position per step. Rows are beams: reorder moves every cache's rows.
 */
import type { StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { float32Tensor, floatData, int64Tensor, ort, type Session, type Tensor } from '../runtime/onnx';
import { gatherAxis, reorderInPlace } from '../runtime/tensorOps';
import { logSoftmaxInto } from './logSoftmax';

export interface Seq2seqState {
  /** past_key_values.* by name; the encoder's stay fixed after the first step. */
  past: Record<string, Tensor>;
  steps: number;
}

interface InputMeta {
  name: string;
  type?: string;
  shape?: readonly (number | string)[];
}

const presentOf = (past: string) => past.replace(/^past_key_values\./, 'present.');

/** Row-repeats a [1, ...] tensor to [rows, ...]. */
function tile(t: Tensor, rows: number): Tensor {
  if (t.type === 'int64') {
    const src = t.data as BigInt64Array;
    const out = new BigInt64Array(src.length * rows);
    for (let r = 0; r < rows; r++) out.set(src, r * src.length);
    return new (ort().Tensor)('int64', out, [rows, ...t.dims.slice(1)]);
  }
  const g = gatherAxis(floatData(t, 'encoder output'), [...t.dims], 0, new Array<number>(rows).fill(0));
  return float32Tensor(g.data, g.dims);
}

export class Seq2seqStepModel implements StepModel<Seq2seqState> {
  readonly vocabSize: number;
  private readonly pastNames: string[];
  private readonly inputs: readonly InputMeta[];
  private fixed: Record<string, Tensor> = {};

  constructor(
    private readonly encoder: Session,
    private readonly decoder: Session,
    config: Record<string, unknown>,
  ) {
    for (const n of ['input_ids', 'attention_mask']) {
      if (!encoder.inputNames.includes(n)) throw new EngineError('bad-model', `the encoder graph has no ${n} input`);
    }
    if (!encoder.outputNames.includes('last_hidden_state'))
      throw new EngineError('bad-model', 'the encoder graph has no last_hidden_state output');
    const names = decoder.inputNames;
    for (const n of ['input_ids', 'encoder_attention_mask', 'encoder_hidden_states']) {
      if (!names.includes(n))
        throw new EngineError(
          'bad-model',
          `the decoder graph has no ${n} input: Draftsmith runs the merged decoder with a cache ` +
            `(decoder_model_merged.onnx)`,
        );
    }
    this.pastNames = names.filter((n) => n.startsWith('past_key_values.'));
    const unknown = names.filter(
      (n) =>
        !['input_ids', 'encoder_attention_mask', 'encoder_hidden_states', 'use_cache_branch'].includes(n) &&
        !n.startsWith('past_key_values.'),
    );
    if (unknown.length)
      throw new EngineError(
        'bad-model',
        `the decoder graph takes inputs Draftsmith does not feed: ${unknown.join(', ')}`,
      );
    for (const n of this.pastNames) {
      if (!decoder.outputNames.includes(presentOf(n)))
        throw new EngineError('bad-model', `the decoder graph returns no ${presentOf(n)}`);
    }
    this.inputs = (decoder as unknown as { inputMetadata?: readonly InputMeta[] }).inputMetadata ?? [];
    this.vocabSize = typeof config.vocab_size === 'number' ? config.vocab_size : 0;
  }

  /** Runs the encoder over one source and returns the state for `rows` beams (the pasts all empty). */
  async encode(ids: readonly number[], rows: number): Promise<Seq2seqState> {
    const n = ids.length;
    const mask = new (ort().Tensor)('int64', new BigInt64Array(n).fill(1n), [1, n]);
    const out = await this.encoder.run({ input_ids: int64Tensor(ids, [1, n]), attention_mask: mask });
    this.fixed = { encoder_hidden_states: tile(out.last_hidden_state, rows), encoder_attention_mask: tile(mask, rows) };
    const past: Record<string, Tensor> = {};
    for (const name of this.pastNames) {
      const shape = this.inputs.find((m) => m.name === name)?.shape ?? ['batch', 'heads', 'length', 'dim'];
      // Zero-length pasts: the batch axis is the beams, every other symbolic axis 0 (as transformers.js
      // feeds the first step).
      const dims = shape.map((d, axis) => (typeof d === 'number' ? d : axis === 0 ? rows : 0));
      if (dims.some((d, axis) => axis > 0 && axis !== 2 && d === 0)) {
        throw new EngineError(
          'bad-model',
          `cannot tell the shape of ${name} (${shape.join(', ')}): the graph leaves its heads or head size open`,
        );
      }
      past[name] = float32Tensor(new Float32Array(0), dims);
    }
    return { past, steps: 0 };
  }

  async step(tokens: number[], state: Seq2seqState) {
    const rows = tokens.length;
    const feed: Record<string, Tensor> = { ...this.fixed, ...state.past, input_ids: int64Tensor(tokens, [rows, 1]) };
    if (this.decoder.inputNames.includes('use_cache_branch')) {
      feed.use_cache_branch = new (ort().Tensor)('bool', new Uint8Array([state.steps > 0 ? 1 : 0]), [1]);
    }
    const out = await this.decoder.run(feed);
    const logits = floatData(out.logits, 'logits');
    const vocab = out.logits.dims[out.logits.dims.length - 1];
    const logProbs = new Float32Array(rows * vocab);
    for (let r = 0; r < rows; r++) logSoftmaxInto(logits.subarray(r * vocab, (r + 1) * vocab), logProbs, r * vocab);
    const past: Record<string, Tensor> = {};
    for (const name of this.pastNames) {
      // The cross-attention keys/values come back on the first step only (the graph's no-cache branch).
      past[name] = name.includes('.encoder.') && state.steps > 0 ? state.past[name] : out[presentOf(name)];
    }
    return { logProbs, state: { past, steps: state.steps + 1 } };
  }

  reorder(state: Seq2seqState, rows: number[]): Seq2seqState {
    const past: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(state.past)) {
      const data = floatData(t, name);
      // Every beam reads the same source: the cross-attention cache is the same in every row.
      if (data.length === 0 || name.includes('.encoder.')) {
        past[name] = t;
        continue;
      }
      if (reorderInPlace(data, [...t.dims], 0, rows)) past[name] = t;
      else {
        const g = gatherAxis(data, [...t.dims], 0, rows);
        past[name] = float32Tensor(g.data, g.dims);
      }
    }
    return { past, steps: state.steps };
  }
}
