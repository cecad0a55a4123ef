/**
 * Row-major tensor helpers for the decoder caches (runtime/layerCaches.ts): beams re-ranked move
 * their rows along the batch axis. float32 caches, and float16 ones as their raw bits (Uint16Array).
 */

export type CacheArray = Float32Array | Uint16Array;

const like = <A extends CacheArray>(a: A, length: number): A =>
  (a instanceof Uint16Array ? new Uint16Array(length) : new Float32Array(length)) as A;

/** Picks rows `index` along `axis` of a row-major tensor into a new array. */
export function gatherAxis<A extends CacheArray>(
  data: A,
  dims: number[],
  axis: number,
  index: number[],
): { data: A; dims: number[] } {
  const outer = dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = dims[axis];
  const out = like(data, outer * index.length * inner);
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < index.length; j++) {
      const src = (o * n + index[j]) * inner;
      out.set(data.subarray(src, src + inner), (o * index.length + j) * inner);
    }
  }
  const outDims = dims.slice();
  outDims[axis] = index.length;
  return { data: out, dims: outDims };
}

/**
 * Row j along `axis` becomes row rows[j], in place, when no row is read after it was overwritten:
 * every row that moves comes from a row that stays (rows[rows[j]] === rows[j]), which is what the
 * beam searches arrange (a beam's first child keeps its row). Returns false, changing nothing, otherwise.
 */
export function reorderInPlace(data: CacheArray, dims: number[], axis: number, rows: readonly number[]): boolean {
  const n = dims[axis];
  if (rows.length !== n) return false;
  for (let j = 0; j < n; j++) if (rows[j] !== j && rows[rows[j]] !== rows[j]) return false;
  const outer = dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < n; j++) {
      if (rows[j] === j) continue;
      const src = (o * n + rows[j]) * inner;
      data.copyWithin((o * n + j) * inner, src, src + inner);
    }
  }
  return true;
}

/** Row order along `axis` as `rows` says: in place when it can be (the array is then the same), else a copy. */
export function reorderAxis<A extends CacheArray>(
  data: A,
  dims: number[],
  axis: number,
  rows: number[],
): { data: A; dims: number[] } {
  if (reorderInPlace(data, dims, axis, rows)) return { data, dims };
  return gatherAxis(data, dims, axis, rows);
}
