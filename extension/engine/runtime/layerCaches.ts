/**
 * The decoders' key/value caches, one tensor per layer and kind, as the exporters lay them out
 * (models/train/draftsmith_train/export_summarize.py, DecoderExport): "{prefix}.{i}.key" and
 * "{prefix}.{i}.value", each [rows, heads, positions, head size]. One stacked tensor would make
 * onnxruntime copy every slice it takes of it at every step (Gather/Split copy).
 */
import { EngineError } from '../errors';
import { float32Tensor, floatData, Tensor, TensorSpec } from './onnx';
import { reorderAxis } from './tensorOps';

export interface LayerCaches {
  /** key 0, value 0, key 1, value 1, ... */
  readonly data: Float32Array[];
  /** [rows, heads, positions, head size], shared by all of them. */
  readonly dims: number[];
}

export function cacheNames(prefix: string, layers: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < layers; i++) names.push(`${prefix}.${i}.key`, `${prefix}.${i}.value`);
  return names;
}

/** The same spec for every layer's key and value (for checkIO). */
export function cacheSpecs(prefix: string, layers: number, spec: TensorSpec): Record<string, TensorSpec> {
  return Object.fromEntries(cacheNames(prefix, layers).map((n) => [n, spec]));
}

/**
 * An encoder-decoder's cross-attention caches: `keyValues`, every decoder layer's keys and values as
 * the encoder returns them, [layers, 2, batch, heads, positions, head size]; `layerCache`, one
 * layer's keys or values as the decoder takes them, [batch, heads, positions, head size].
 */
export function crossAttentionSpecs(arch: { decoderLayers: number; heads: number; dModel: number }): {
  keyValues: TensorSpec;
  layerCache: TensorSpec;
} {
  const headSize = arch.dModel / arch.heads;
  return {
    keyValues: { type: 'float32', dims: [arch.decoderLayers, 2, null, arch.heads, null, headSize] },
    layerCache: { type: 'float32', dims: [null, arch.heads, null, headSize] },
  };
}

export function emptyCaches(layers: number, rows: number, heads: number, headSize: number): LayerCaches {
  return { data: Array.from({ length: 2 * layers }, () => new Float32Array(0)), dims: [rows, heads, 0, headSize] };
}

/** Adds the caches to `feeds` under their names; the tensors wrap the arrays, nothing is copied. */
export function feedCaches(feeds: Record<string, Tensor>, prefix: string, caches: LayerCaches): void {
  const names = cacheNames(prefix, caches.data.length / 2);
  names.forEach((n, i) => {
    feeds[n] = float32Tensor(caches.data[i], caches.dims);
  });
}

/** The decoder's present caches from its outputs. */
export function readCaches(out: Record<string, Tensor>, prefix: string, layers: number): LayerCaches {
  const names = cacheNames(prefix, layers);
  const first = out[names[0]];
  if (!first) throw new EngineError('bad-model', `model output ${names[0]} is missing`);
  return { data: names.map((n) => floatData(out[n], n)), dims: first.dims.slice() };
}

/**
 * Row j of the result is row rows[j]: beams re-ranked. Done in place where the beam search kept
 * each surviving beam in its row (only forks copy), so the arrays may be the old state's.
 */
export function reorderCaches(c: LayerCaches, rows: number[]): LayerCaches {
  const data = c.data.map((d) => reorderAxis(d, c.dims, 0, rows).data);
  return { data, dims: [rows.length, ...c.dims.slice(1)] };
}

/**
 * Views, without a copy, of an encoder's stacked cross-attention keys/values [L, 2, 1, H, T, dh]
 * (one source row) as the per-layer caches the decoder takes; every beam reads the same row.
 */
export function layerViews(stacked: Tensor, name: string): LayerCaches {
  const data = floatData(stacked, name);
  const [L, two, rows, H, T, dh] = stacked.dims;
  if (stacked.dims.length !== 6 || two !== 2 || rows !== 1) {
    throw new EngineError(
      'bad-model',
      `${name} has shape [${stacked.dims.join(', ')}]; the engine needs [layers, 2, 1, heads, positions, head size]`,
    );
  }
  const size = H * T * dh;
  return {
    data: Array.from({ length: 2 * L }, (_, i) => data.subarray(i * size, (i + 1) * size)),
    dims: [1, H, T, dh],
  };
}
