/**
 * IEEE 754 half-precision data (numpy float16, little-endian) as float32: the reply memory and
 * embeddings ship this way.
 */
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

/** Every float16 bit pattern's value: 256 KB, filled on first use, so a file converts by table lookup. */
let table: Float32Array | undefined;
function halfTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = halfToFloat(h);
  }
  return table;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** float16 bits (an onnxruntime float16 tensor's data) as float32 values, into `out` from `at`. */
export function halvesToFloats(
  bits: Uint16Array,
  out: Float32Array = new Float32Array(bits.length),
  at = 0,
): Float32Array {
  const t = halfTable();
  for (let i = 0; i < bits.length; i++) out[at + i] = t[bits[i]];
  return out;
}

/** Reads a little-endian float16 file that must hold exactly `count` values. */
export async function readFloat16File(file: string, count: number, what: string): Promise<Float32Array> {
  const raw = await fs.readFile(file);
  if (raw.length !== count * 2) {
    throw new EngineError(
      'bad-model',
      `${file} (${what}) has ${raw.length} bytes; model.json's architecture needs ${count} float16 values ` +
        `(${count * 2} bytes).`,
    );
  }
  const t = halfTable();
  const out = new Float32Array(count);
  // A Uint16Array view needs an even byteOffset; the pooled Buffer fs.readFile returns may not have one.
  const bits = raw.byteOffset % 2 === 0 ? new Uint16Array(raw.buffer, raw.byteOffset, count) : null;
  if (bits && isLittleEndian) {
    for (let i = 0; i < count; i++) out[i] = t[bits[i]];
  } else {
    for (let i = 0; i < count; i++) out[i] = t[raw.readUInt16LE(2 * i)];
  }
  return out;
}
