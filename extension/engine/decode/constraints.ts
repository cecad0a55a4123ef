/** The primitives of the score processors (processors.ts): n-gram blocking, the guard's masking, top-k over a row. */

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
      if (tokens[i + k] !== tokens[prefixStart + k]) {
        same = false;
        break;
      }
    }
    if (same) banned.add(tokens[i + n - 1]);
  }
  return banned;
}

/**
 * topK(row, k) after the processors' bans, from the row's best candidates alone (ids[from..from+count),
 * best first, the lower id first among equals, as topK orders them): the positions of the first k
 * that are allowed and finite. Null when the candidates run out first, unless they are the whole
 * vocabulary: then the full row is needed. `enough`: fewer than k will do (a guard banned some of
 * the candidates; the full row costs a second model step).
 */
export function topKOfCandidates(
  ids: ArrayLike<number>,
  logProbs: ArrayLike<number>,
  from: number,
  count: number,
  k: number,
  banned: Set<number>,
  vocabSize: number,
  allowed?: (token: number) => boolean,
  enough = k,
): number[] | null {
  const out: number[] = [];
  for (let i = from; i < from + count && out.length < k; i++) {
    const v = logProbs[i];
    // NaN and -Infinity never count; the guard is asked last, about the few that could be taken.
    if (v > -Infinity && !banned.has(ids[i]) && (!allowed || allowed(ids[i]))) out.push(i);
  }
  return out.length >= Math.min(k, enough) || (count >= vocabSize && !allowed) ? out : null;
}

/** The most candidates maskDisallowed asks about before it settles for fewer than asked. */
const GUARD_CANDIDATES = 1024;
/** Candidates this far (in log-probability, e^-8 = 0.03 %) below the best allowed one are not worth asking about. */
const GUARD_MARGIN = 8;

/** Which tokens maskDisallowed asked about (reused between calls; cleared after each). */
let askedFlags = new Uint8Array(0);

/**
 * Makes the row's k best finite entries tokens the guard allows, asking the guard about candidates
 * best first and only until k are allowed: the first from topK, the rest (when the best 2k hold
 * fewer) from a heap over the row. It gives up asking at GUARD_CANDIDATES, or once the candidates
 * left are GUARD_MARGIN below the best allowed one; what was not asked about is then dropped. The
 * disallowed are set to -Infinity. When no candidate asked is allowed, the row is restored as it
 * was (`yieldWhenNone`: a strategy with one row, which must write something, yields once), or else
 * emptied: a beam drops the row rather than write what the guard refused (a name the source lacks).
 * Returns whether the guard held.
 */
export function maskDisallowed(
  row: Float32Array,
  k: number,
  allowed: (token: number) => boolean,
  yieldWhenNone = true,
): boolean {
  const none = (masked: readonly { t: number; v: number }[]): false => {
    if (yieldWhenNone) return restore(row, masked);
    row.fill(-Infinity);
    return false;
  };
  if (askedFlags.length < row.length) askedFlags = new Uint8Array(row.length);
  const asked = askedFlags;
  const touched: number[] = [];
  const masked: { t: number; v: number }[] = [];
  let ok = 0;
  let best = -Infinity;
  const ask = (t: number) => {
    asked[t] = 1;
    touched.push(t);
    if (allowed(t)) {
      ok++;
      if (row[t] > best) best = row[t];
    } else {
      masked.push({ t, v: row[t] });
      row[t] = -Infinity;
    }
  };
  try {
    const first = topK(row, Math.max(2 * k, 16));
    for (const t of first) {
      if (ok >= k) return true; // the k allowed rank above everything not asked about
      ask(t);
    }
    if (ok >= k) return true;
    if (first.length < Math.max(2 * k, 16)) return ok > 0 || masked.length === 0 || none(masked);
    // Fewer than k allowed among the best: the rest of the row, best first, from a heap.
    const heap = new Int32Array(row.length);
    let n = 0;
    for (let t = 0; t < row.length; t++) if (!asked[t] && row[t] > -Infinity) heap[n++] = t;
    const above = (a: number, b: number) =>
      row[heap[a]] > row[heap[b]] || (row[heap[a]] === row[heap[b]] && heap[a] < heap[b]);
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < n && above(l, top)) top = l;
        if (r < n && above(r, top)) top = r;
        if (top === i) return;
        const x = heap[i];
        heap[i] = heap[top];
        heap[top] = x;
        i = top;
      }
    };
    for (let i = (n >> 1) - 1; i >= 0; i--) down(i);
    let asks = first.length;
    while (n > 0 && ok < k && asks < GUARD_CANDIDATES) {
      const t = heap[0];
      if (ok > 0 && row[t] < best - GUARD_MARGIN) break;
      heap[0] = heap[--n];
      down(0);
      ask(t);
      asks++;
    }
    if (ok >= k) return true;
    if (ok === 0) return none(masked);
    // Some allowed, fewer than k: what was not asked about goes (it ranks below them, or is improbable next to them).
    for (let t = 0; t < row.length; t++) if (!asked[t]) row[t] = -Infinity;
    return true;
  } finally {
    for (const t of touched) asked[t] = 0;
  }
}

function restore(row: Float32Array, masked: readonly { t: number; v: number }[]): false {
  for (const { t, v } of masked) row[t] = v;
  return false;
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
    if (i + 4 <= n && !(row[i] > floor) && !(row[i + 1] > floor) && !(row[i + 2] > floor) && !(row[i + 3] > floor))
      continue;
    const end = Math.min(i + 4, n);
    for (let q = i; q < end; q++) {
      const v = row[q];
      if (!(v > floor)) continue; // also false for NaN and -Infinity
      let j = idx.length < k ? idx.push(q) - 1 : k - 1;
      while (j > 0 && row[idx[j - 1]] < v) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = q;
      if (idx.length === k) floor = row[idx[k - 1]];
    }
  }
  return idx;
}

/**
 * What topK(row, k) returns after the processors (the bans, then maskDisallowed) when the row is known
 * only by its best candidates (ids[0..count), best first, the lower id first among equals; nothing
 * outside them ranks above any): the positions of the tokens, best first. It asks the guard about the
 * candidates in the order maskDisallowed asks the row, and stops where it stops (k allowed, the margin,
 * GUARD_CANDIDATES); null when the candidates run out first, unless they are every token the row has
 * (`complete`): then the whole row is needed.
 */
export function topKOfRanked(
  ids: ArrayLike<number>,
  logProbs: ArrayLike<number>,
  count: number,
  k: number,
  banned: ReadonlySet<number>,
  allowed: ((token: number) => boolean) | undefined,
  complete: boolean,
): number[] | null {
  const open: number[] = [];
  const ok: number[] = [];
  const first = Math.max(2 * k, 16);
  let best = -Infinity;
  for (let i = 0; i < count; i++) {
    const v = logProbs[i];
    if (!(v > -Infinity) || banned.has(ids[i])) continue;
    if (!allowed) {
      open.push(i);
      if (open.length === k) return open;
      continue;
    }
    if (ok.length >= k) return ok;
    // Past the first asked, maskDisallowed's heap gives up at its limit, or below the best allowed by its margin.
    if (open.length >= first && (open.length >= GUARD_CANDIDATES || (ok.length > 0 && v < best - GUARD_MARGIN)))
      return ok.length > 0 ? ok : open.slice(0, k);
    open.push(i);
    if (allowed(ids[i])) {
      ok.push(i);
      if (v > best) best = v;
    }
  }
  if (!allowed) return complete ? open : null;
  if (ok.length >= k) return ok.slice(0, k);
  if (!complete) return null;
  // The whole row asked: the allowed ones, or, with none, the guard yields (the row as the bans left it).
  return ok.length > 0 ? ok : open.slice(0, k);
}
