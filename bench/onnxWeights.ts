/**
 * The weights an ONNX file stores (its graph's initializers): names, shapes, bytes. Enough of the
 * protobuf wire format to walk ModelProto.graph (field 7) → GraphProto.initializer (field 5) →
 * TensorProto dims (1), data_type (2), name (8), raw_data (9) and the typed repeated fields; the
 * bandwidth floor counts the bytes a decoding step must read.
 */
import { readFileSync } from 'node:fs';

export interface Initializer {
  name: string;
  dims: number[];
  bytes: number;
}

// TensorProto.DataType element sizes (FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL,
// FLOAT16, DOUBLE, UINT32, UINT64).
const ELEMENT_BYTES: Record<number, number> = {
  1: 4,
  2: 1,
  3: 1,
  4: 2,
  5: 2,
  6: 4,
  7: 8,
  9: 1,
  10: 2,
  11: 8,
  12: 4,
  13: 8,
  16: 2,
};

class Reader {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  }
  /** Calls fn(field, wireType, reader-for-length-delimited) for every field; skips the rest. */
  fields(fn: (field: number, wire: number, sub?: Reader) => void): void {
    while (this.pos < this.end) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      if (wire === 2) {
        const len = this.varint();
        const sub = new Reader(this.buf, this.pos, this.pos + len);
        this.pos += len;
        fn(field, wire, sub);
      } else if (wire === 0) {
        this.varint();
        fn(field, wire);
      } else if (wire === 1) {
        this.pos += 8;
      } else if (wire === 5) {
        this.pos += 4;
      } else {
        throw new Error(`unsupported protobuf wire type ${wire}`);
      }
    }
  }
}

function tensor(r: Reader): Initializer {
  const dims: number[] = [];
  let name = '';
  let dataType = 0;
  let bytes = 0;
  let typed = 0;
  while (r.pos < r.end) {
    const key = r.varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const v = r.varint();
      if (field === 1) dims.push(v);
      else if (field === 2) dataType = v;
      else if ([5, 7].includes(field)) typed += 1; // an unpacked int32/int64 element
    } else if (wire === 2) {
      const len = r.varint();
      if (field === 1) {
        // packed dims
        const sub = new Reader(r.buf, r.pos, r.pos + len);
        while (sub.pos < sub.end) dims.push(sub.varint());
      } else if (field === 8) {
        name = r.buf.toString('utf8', r.pos, r.pos + len);
      } else if (field === 9) {
        bytes = len;
      } else if ([4, 5, 7, 10, 11].includes(field)) {
        typed += -1; // packed typed data: counted from the dims below
      }
      r.pos += len;
    } else if (wire === 1) r.pos += 8;
    else if (wire === 5) r.pos += 4;
  }
  if (bytes === 0 && typed !== 0) bytes = dims.reduce((a, b) => a * b, 1) * (ELEMENT_BYTES[dataType] ?? 4);
  return { name, dims, bytes };
}

/**
 * A weight stored as int8 + a scale per row (models/train/draftsmith_train/weight_storage.py: the
 * initializer "<name>_int8", then Cast and Mul) is folded back into float32 when onnxruntime creates
 * the session, so a step reads 4 bytes per element of it, not 1: counted so here.
 */
const STORED_INT8 = /_int8$/;

export function onnxInitializers(file: string): Initializer[] {
  const buf = readFileSync(file);
  const out: Initializer[] = [];
  new Reader(buf, 0, buf.length).fields((field, wire, sub) => {
    if (field !== 7 || wire !== 2 || !sub) return;
    sub.fields((gf, gw, t) => {
      if (gf !== 5 || gw !== 2 || !t) return;
      const init = tensor(t);
      out.push(STORED_INT8.test(init.name) ? { ...init, bytes: init.dims.reduce((a, b) => a * b, 1) * 4 } : init);
    });
  });
  return out;
}
