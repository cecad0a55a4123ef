/**
 * Row-major tensor helpers for the decoder caches. Shapes follow the export
 * (models/train/draftsmith_train/export_summarize.py): key/value caches are [L, 2, B, H, T, dh].
 */

/** Picks batch rows `index` along `axis` of a row-major tensor (beam reordering, and tiling with repeats). */
export function gatherAxis(data: Float32Array, dims: number[], axis: number, index: number[]): { data: Float32Array; dims: number[] } {
  const outer = dims.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = dims[axis];
  const out = new Float32Array(outer * index.length * inner);
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

export function repeatIndex(count: number): number[] {
  return new Array<number>(count).fill(0);
}
