/**
 * A GGUF model in llama.cpp as a step model, so that our own decoding loops (greedy, seeded top-k,
 * beam search, the guards and processors, streaming, Cancel between steps) run it exactly as they run
 * an ONNX graph (hub/causalStep.ts).
 *
 * llama.cpp keeps the key/value cache inside its context, one per sequence, so a state here is only
 * the tokens each row has read. A call finds, for each row, the sequence already holding the longest
 * beginning of that row, cuts the sequence after it and reads the rest: a prompt that starts as the
 * last one did (the prefix cache, an inline suggestion at each pause) costs only its new tokens, a
 * sampled step costs one, and beams that swap places cost the tokens where they differ. With more rows
 * than sequences the extra rows wait for a free one (and read more again): slower, never wrong.
 *
 * Each evaluation asks llama.cpp for the next token's probabilities over the whole vocabulary
 * (node-llama-cpp's controlledEvaluate); their logarithms are the log-probs the loops read.
 */
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { EngineError } from '../errors';
import type { CausalSteps } from '../hub/causalLm';
import { foldEndTokens } from '../hub/endTokens';

export interface GgufState {
  /** The tokens each row has read, in order. */
  readonly rows: readonly (readonly number[])[];
}

/** How many tokens two lists share from their start. */
function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export class GgufStepModel implements CausalSteps<GgufState> {
  constructor(
    private readonly sequences: readonly LlamaContextSequence[],
    readonly vocabSize: number,
    readonly ends: readonly number[],
  ) {
    if (sequences.length === 0) throw new EngineError('internal', 'a GGUF step model needs a sequence');
  }

  initial(): GgufState {
    return { rows: [[]] };
  }

  async run(tokens: readonly number[], state: GgufState): Promise<{ logProbs: Float32Array; state: GgufState }> {
    if (tokens.length === 0) throw new EngineError('internal', 'an empty prompt reached the model');
    const row = [...state.rows[0], ...tokens];
    return { logProbs: await this.evaluate([row]), state: { rows: [row] } };
  }

  async step(tokens: number[], state: GgufState): Promise<{ logProbs: Float32Array; state: GgufState }> {
    const rows = tokens.map((t, r) => [...state.rows[r], t]);
    return { logProbs: await this.evaluate(rows), state: { rows } };
  }

  reorder(state: GgufState, rows: number[]): GgufState {
    return { rows: rows.map((r) => state.rows[r]) };
  }

  tile(state: GgufState, rows: number): GgufState {
    return { rows: new Array<readonly number[]>(rows).fill(state.rows[0]) };
  }

  truncate(state: GgufState, length: number): GgufState {
    return { rows: [state.rows[0].slice(0, Math.max(0, length))] };
  }

  /** The next token's log-probs after each row [rows * vocab], every end token folded into the first. */
  private async evaluate(rows: readonly (readonly number[])[]): Promise<Float32Array> {
    const V = this.vocabSize;
    const out = new Float32Array(rows.length * V).fill(-Infinity);
    const pool = this.sequences.length;
    for (let start = 0; start < rows.length; start += pool) {
      const batch = rows.slice(start, start + pool);
      const seqOf = this.assign(batch);
      // Rows on different sequences go to llama.cpp together: node-llama-cpp batches them into one decode.
      await Promise.all(batch.map((row, j) => this.evaluateRow(this.sequences[seqOf[j]], row, out, (start + j) * V)));
    }
    foldEndTokens(out, V, this.ends[0], this.ends.slice(1));
    return out;
  }

  /** For each row, the free sequence holding the longest beginning of it. */
  private assign(rows: readonly (readonly number[])[]): number[] {
    const free = new Set(this.sequences.map((_, i) => i));
    return rows.map((row) => {
      let best = -1;
      let bestShared = -1;
      for (const i of free) {
        const shared = sharedPrefix(this.sequences[i].contextTokens, row);
        if (shared > bestShared) [best, bestShared] = [i, shared];
      }
      free.delete(best);
      return best;
    });
  }

  private async evaluateRow(
    sequence: LlamaContextSequence,
    row: readonly number[],
    out: Float32Array,
    offset: number,
  ): Promise<void> {
    if (row.length === 0) throw new EngineError('internal', 'an empty row reached the model');
    // The last token is always read again: its probabilities are what the call is for.
    const keep = Math.min(sharedPrefix(sequence.contextTokens, row), row.length - 1);
    if (keep < sequence.nextTokenIndex)
      await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    const rest = row.slice(keep) as Token[];
    const last = rest[rest.length - 1];
    const result = await sequence.controlledEvaluate([
      ...rest.slice(0, -1),
      [last, { generateNext: { probabilities: true, options: { temperature: 0 } } }],
    ]);
    const probabilities = result[result.length - 1]?.next.probabilities;
    if (!probabilities) throw new EngineError('internal', 'llama.cpp returned no probabilities for the next token');
    for (const [token, p] of probabilities) if (token < this.vocabSize) out[offset + token] = Math.log(p);
  }
}
