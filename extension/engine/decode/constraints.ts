/** Constraints shared by the decoding strategies. */

/**
 * Tokens that would repeat an n-gram already in `tokens` (fairseq/HF `no_repeat_ngram_size`):
 * if the last n-1 tokens occurred before, the token that followed them then is banned now.
 */
export function bannedByNgram(tokens: number[], n: number): Set<number> {
  const banned = new Set<number>();
  if (n <= 0 || tokens.length < n - 1) return banned;
  if (n === 1) return new Set(tokens);
  const prefixStart = tokens.length - (n - 1);
  for (let i = 0; i + n - 1 < tokens.length; i++) {
    let same = true;
    for (let k = 0; k < n - 1; k++) {
      if (tokens[i + k] !== tokens[prefixStart + k]) { same = false; break; }
    }
    if (same) banned.add(tokens[i + n - 1]);
  }
  return banned;
}

export interface ConstraintOptions { eos: number; minLength: number; noRepeatNgramSize: number; banned?: number[] }

/** The tokens a row may not take next, given its tokens so far. */
export function bannedTokens(tokens: number[], opts: ConstraintOptions): Set<number> {
  const banned = bannedByNgram(tokens, opts.noRepeatNgramSize);
  if (tokens.length < opts.minLength) banned.add(opts.eos);
  for (const t of opts.banned ?? []) banned.add(t);
  return banned;
}

/** Applies the min-length and n-gram rules to one row of log-probs in place. */
export function applyConstraints(row: Float32Array, tokens: number[], opts: ConstraintOptions): void {
  for (const t of bannedTokens(tokens, opts)) row[t] = -Infinity;
}

/**
 * topK(row, k) after applyConstraints, from the row's best candidates alone (ids[from..from+count),
 * best first, the lower id first among equals, as topK orders them): the positions of the first k
 * that are allowed and finite. Null when the candidates run out first, unless they are the whole
 * vocabulary: then the full row is needed.
 */
export function topKOfCandidates(ids: ArrayLike<number>, logProbs: ArrayLike<number>, from: number, count: number, k: number,
  banned: Set<number>, vocabSize: number): number[] | null {
  const out: number[] = [];
  for (let i = from; i < from + count && out.length < k; i++) {
    const v = logProbs[i];
    if (v > -Infinity && !banned.has(ids[i])) out.push(i); // NaN and -Infinity never count
  }
  return out.length === k || count >= vocabSize ? out : null;
}

/**
 * Indices of the k largest values, largest first (ties: the lower index first); -Infinity and NaN
 * never count. It runs over the whole vocabulary for every beam at every step, so it reads four
 * entries at a time and skips the four at once when none beats the k-th best so far (nearly always,
 * once k were seen): 2-3x faster than one test per entry, the same result.
 */
export function topK(row: Float32Array, k: number): number[] {
  const idx: number[] = [];
  if (k <= 0) return idx;
  let floor = -Infinity;
  const n = row.length;
  for (let i = 0; i < n; i += 4) {
    if (i + 4 <= n && !(row[i] > floor) && !(row[i + 1] > floor) && !(row[i + 2] > floor) && !(row[i + 3] > floor)) continue;
    const end = Math.min(i + 4, n);
    for (let q = i; q < end; q++) {
      const v = row[q];
      if (!(v > floor)) continue; // also false for NaN and -Infinity
      let j = idx.length < k ? idx.push(q) - 1 : k - 1;
      while (j > 0 && row[idx[j - 1]] < v) { idx[j] = idx[j - 1]; j--; }
      idx[j] = q;
      if (idx.length === k) floor = row[idx[k - 1]];
    }
  }
  return idx;
}
