import type { StepModel } from '../../extension/engine/decode/types';

/**
 * A toy language model given as a table: the next-token distribution (probabilities) depends on
 * the prefix generated so far (without BOS). Tokens the table leaves out get probability 0.
 */
export function tableModel(V: number, next: (prefix: number[]) => Record<number, number>): StepModel<number[][]> {
  return {
    vocabSize: V,
    async step(tokens, state) {
      const rows = tokens.map((t, r) => [...(state[r] ?? []), t]);
      const lp = new Float32Array(tokens.length * V).fill(-Infinity);
      rows.forEach((prefix, r) => {
        for (const [tok, p] of Object.entries(next(prefix.slice(1)))) lp[r * V + Number(tok)] = Math.log(p);
      });
      return { logProbs: lp, state: rows };
    },
    reorder(state, order) {
      return order.map((i) => state[i]);
    },
  };
}
