/** IEEE 754 half-precision data (numpy float16, little-endian) as float32: the reply memory and embeddings ship this way. */
import { promises as fs } from 'node:fs';
import { EngineError } from '../errors';

export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Reads a float16 file that must hold exactly `count` values. */
export async function readFloat16File(file: string, count: number, what: string): Promise<Float32Array> {
  const raw = await fs.readFile(file);
  if (raw.length !== count * 2) {
    throw new EngineError('bad-model', `${file} (${what}) has ${raw.length} bytes; model.json's architecture needs ${count} float16 values (${count * 2} bytes).`);
  }
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = halfToFloat(raw.readUInt16LE(2 * i));
  return out;
}
