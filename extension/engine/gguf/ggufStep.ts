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
 * `step` asks llama.cpp for the next token's probabilities over the whole vocabulary (node-llama-cpp's
 * controlledEvaluate); their logarithms are the log-probs the loops read. Handing 49,152 of them
 * across (a JS array, then a Map) costs twice llama.cpp's own step, so greedy and sampled decoding read
 * `stepRanked` instead: llama.cpp's top-k sampler ranks the row in C++ and only its best candidates
 * cross, with their probabilities over those candidates.
 */
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import type { TopCandidates } from '../decode/types';
import { EngineError } from '../errors';
import type { CausalSteps } from '../hub/causalLm';
import { foldEndTokens } from '../hub/endTokens';

/** The fewest candidates a ranked step hands over: enough for the guards to find a few allowed. */
const RANKED_MIN = 64;
/** llama.cpp's top-k sampler sorts up to 128 with a partial sort; more take its bucket sort. */
const RANKED_MAX = 128;

/** What llama.cpp hands over after a row: every probability, or its best `count` (by its top-k sampler). */
type Ask = { kind: 'all' } | { kind: 'ranked'; count: number };

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

  async stepRanked(
    tokens: number[],
    state: GgufState,
    want: number,
  ): Promise<{ top: TopCandidates; state: GgufState }> {
    const rows = tokens.map((t, r) => [...state.rows[r], t]);
    const count = Math.min(this.vocabSize, Math.max(RANKED_MIN, Math.min(RANKED_MAX, 4 * want)));
    const lists = await this.evaluateAll(rows, { kind: 'ranked', count });
    const ranked = lists.map((probabilities) => this.certain(probabilities));
    const perRow = Math.max(1, ...ranked.map((r) => r.list.length));
    const ids = new Int32Array(rows.length * perRow);
    const logProbs = new Float32Array(rows.length * perRow).fill(-Infinity);
    const endAtMost = new Float32Array(rows.length);
    ranked.forEach(({ list, end }, r) => {
      endAtMost[r] = Math.log(end);
      list.forEach(([token, p], i) => {
        ids[r * perRow + i] = token;
        logProbs[r * perRow + i] = Math.log(p);
      });
    });
    return { top: { perRow, ids, logProbs, endAtMost }, state: { rows } };
  }

  /**
   * A row's candidates (llama.cpp's best, most probable first) with the end tokens folded into the
   * first, those sure of their rank: above the last one handed over (any token not handed over is at
   * most as probable). Where some end token was not handed over, the end token is left out and `end`
   * is the most its folded probability can be (0 otherwise). Best first, the lower id first among equals.
   */
  private certain(probabilities: ReadonlyMap<Token, number>): { list: [number, number][]; end: number } {
    const [eos, ...others] = this.ends;
    let last = Infinity;
    let ending = 0;
    const out: [number, number][] = [];
    for (const [token, p] of probabilities) {
      if (p < last) last = p;
      if (token === eos || others.includes(token)) ending += p;
      else if (token < this.vocabSize) out.push([token, p]);
    }
    const missing = this.ends.filter((t) => !probabilities.has(t as Token)).length;
    if (missing === 0) out.push([eos, ending]);
    const list = out.filter(([, p]) => p > last).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return { list, end: missing > 0 ? ending + missing * last : 0 };
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
    const lists = await this.evaluateAll(rows, { kind: 'all' });
    lists.forEach((probabilities, r) => {
      for (const [token, p] of probabilities) if (token < V) out[r * V + token] = Math.log(p);
    });
    foldEndTokens(out, V, this.ends[0], this.ends.slice(1));
    return out;
  }

  /** What llama.cpp hands over after each row: its probabilities, as `ask` asks for them. */
  private async evaluateAll(rows: readonly (readonly number[])[], ask: Ask): Promise<Map<Token, number>[]> {
    const out: Map<Token, number>[] = new Array(rows.length);
    const pool = this.sequences.length;
    for (let start = 0; start < rows.length; start += pool) {
      const batch = rows.slice(start, start + pool);
      const seqOf = this.assign(batch);
      // Rows on different sequences go to llama.cpp together: node-llama-cpp batches them into one decode.
      await Promise.all(
        batch.map(async (row, j) => (out[start + j] = await this.evaluateRow(this.sequences[seqOf[j]], row, ask))),
      );
    }
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
    ask: Ask,
  ): Promise<Map<Token, number>> {
    if (row.length === 0) throw new EngineError('internal', 'an empty row reached the model');
    // The last token is always read again: its probabilities are what the call is for.
    const keep = Math.min(sharedPrefix(sequence.contextTokens, row), row.length - 1);
    if (keep < sequence.nextTokenIndex)
      await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    const rest = row.slice(keep) as Token[];
    const last = rest[rest.length - 1];
    // Temperature 0 keeps every token; at temperature 1 (logits unchanged) the top-k sampler keeps the best,
    // sorted, and top-p 1 and min-p 0 keep those (its draw after them is not read).
    const options =
      ask.kind === 'all' ? { temperature: 0 } : { temperature: 1, topK: ask.count, topP: 1, minP: 0, seed: 0 };
    const result = await sequence.controlledEvaluate([
      ...rest.slice(0, -1),
      [last, { generateNext: { probabilities: true, options } }],
    ]);
    const probabilities = result[result.length - 1]?.next.probabilities;
    if (!probabilities) throw new EngineError('internal', 'llama.cpp returned no probabilities for the next token');
    return probabilities;
  }
}
