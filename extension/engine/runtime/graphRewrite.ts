/**
 * Graph rewrites onnxruntime's own optimiser leaves undone, made once on a model file's protobuf
 * (no ONNX library: the few fields touched are read and written here, every other byte is copied
 * as it was, the weights included):
 * - `outputs`: an Identity whose output is a graph output (torch.onnx names the key/value caches'
 *   "present.*" outputs that way) copies the whole cache on every step; the producing node writes
 *   the output itself instead. Exact: the same values, one copy fewer per layer and step.
 * - `int8Compute`: MatMulNBits (4-bit weights) at accuracy_level 4, which quantises the activations
 *   to int8 per block and multiplies in integers (as llama.cpp's Q4_0 does, and the int8 files
 *   already do). Faster, and not exact: the logits move in their last bits.
 * Graphs with subgraphs (If, Loop, Scan) keep their outputs: a name read inside a subgraph would
 * need renaming there too.
 */

/** One protobuf field: its number, wire type and the bytes of its value (for length-delimited: the payload). */
interface Field {
  no: number;
  wire: number;
  data: Uint8Array;
}

export interface RewriteOptions {
  outputs: boolean;
  int8Compute: boolean;
}

export interface RewriteResult {
  /** The rewritten file, or undefined where nothing applied (or the graph keeps its weights outside). */
  bytes: Uint8Array[] | undefined;
  identitiesRemoved: number;
  int8ComputeNodes: number;
}

function readVarint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= buf.length) throw new Error('truncated protobuf varint');
    const b = buf[at++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, at];
    scale *= 128;
  }
}

function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const no = Math.floor(key / 8);
    const wire = key % 8;
    const start = at;
    if (wire === 0) at = readVarint(buf, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [len, from] = readVarint(buf, at);
      out.push({ no, wire, data: buf.subarray(from, from + len) });
      at = from + len;
      continue;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    out.push({ no, wire, data: buf.subarray(start, at) });
  }
  if (at !== buf.length) throw new Error('truncated protobuf message');
  return out;
}

function varint(n: number): Uint8Array {
  const bytes: number[] = [];
  while (n >= 128) {
    bytes.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Uint8Array.from(bytes);
}

/** A message's chunks (views into the source where unchanged) and their total length. */
interface Encoded {
  chunks: Uint8Array[];
  length: number;
}

function encode(list: (Field | { no: number; encoded: Encoded })[]): Encoded {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const push = (c: Uint8Array) => {
    chunks.push(c);
    length += c.length;
  };
  for (const f of list) {
    if ('encoded' in f) {
      push(varint(f.no * 8 + 2));
      push(varint(f.encoded.length));
      for (const c of f.encoded.chunks) chunks.push(c);
      length += f.encoded.length;
      continue;
    }
    push(varint(f.no * 8 + f.wire));
    if (f.wire === 2) push(varint(f.data.length));
    push(f.data);
  }
  return { chunks, length };
}

const text = new TextDecoder();
const utf8 = new TextEncoder();
const str = (f: Field) => text.decode(f.data);
const strField = (no: number, s: string): Field => ({ no, wire: 2, data: utf8.encode(s) });

// ModelProto.graph; GraphProto.node/initializer/input/output/value_info; NodeProto.input/output/op_type/
// attribute/domain; AttributeProto.name/i/type; ValueInfoProto.name; TensorProto.name/external_data.
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, initializer: 5, input: 11, output: 12, valueInfo: 13 };
const NODE = { input: 1, output: 2, opType: 4, attribute: 5, domain: 7 };
const ATTR_INT = 2;
const TENSOR = { name: 8, externalData: 13 };
const SUBGRAPH_OPS = new Set(['If', 'Loop', 'Scan']);

const nameOf = (message: Uint8Array) => {
  const f = fields(message).find((x) => x.no === 1);
  return f ? str(f) : '';
};

/** Rewrites one model file's bytes; see the module comment. */
export function rewriteGraph(model: Uint8Array, opts: RewriteOptions): RewriteResult {
  const top = fields(model);
  const graphAt = top.findIndex((f) => f.no === MODEL_GRAPH && f.wire === 2);
  const none: RewriteResult = { bytes: undefined, identitiesRemoved: 0, int8ComputeNodes: 0 };
  if (graphAt < 0) return none;
  const graph = fields(top[graphAt].data);
  const nodes = graph.filter((f) => f.no === GRAPH.node).map((f) => fields(f.data));
  const outputs = new Set(graph.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f.data)));
  const inputs = new Set(graph.filter((f) => f.no === GRAPH.input).map((f) => nameOf(f.data)));
  for (const f of graph) {
    if (f.no !== GRAPH.initializer) continue;
    const t = fields(f.data);
    // Weights kept in a file beside the graph are found by a path relative to it: such a graph stays where it is.
    if (t.some((x) => x.no === TENSOR.externalData)) return none;
    const name = t.find((x) => x.no === TENSOR.name);
    if (name) inputs.add(str(name));
  }
  const opOf = (n: Field[]) => str(n.find((x) => x.no === NODE.opType) ?? strField(0, ''));
  const domainOf = (n: Field[]) => {
    const d = n.find((x) => x.no === NODE.domain);
    return d ? str(d) : '';
  };

  // Identities in front of graph outputs: the tensor they copy is renamed to the output.
  const rename = new Map<string, string>();
  const dropped = new Set<number>();
  if (opts.outputs && !nodes.some((n) => SUBGRAPH_OPS.has(opOf(n)))) {
    const produced = new Set(nodes.flatMap((n) => n.filter((x) => x.no === NODE.output).map(str)));
    nodes.forEach((n, i) => {
      if (opOf(n) !== 'Identity' || domainOf(n) !== '') return;
      const ins = n.filter((x) => x.no === NODE.input).map(str);
      const outs = n.filter((x) => x.no === NODE.output).map(str);
      if (ins.length !== 1 || outs.length !== 1 || !outputs.has(outs[0])) return;
      const src = ins[0];
      if (inputs.has(src) || outputs.has(src) || !produced.has(src) || rename.has(src)) return;
      rename.set(src, outs[0]);
      dropped.add(i);
    });
  }

  let int8ComputeNodes = 0;
  const newNodes: (Encoded | undefined)[] = [];
  nodes.forEach((n, i) => {
    if (dropped.has(i)) return;
    let changed = false;
    let list = n.map((f) => {
      if ((f.no === NODE.input || f.no === NODE.output) && rename.has(str(f))) {
        changed = true;
        return strField(f.no, rename.get(str(f))!);
      }
      return f;
    });
    if (opts.int8Compute && opOf(n) === 'MatMulNBits' && domainOf(n) === 'com.microsoft') {
      list = list.filter((f) => !(f.no === NODE.attribute && nameOf(f.data) === 'accuracy_level'));
      const level = encode([strField(1, 'accuracy_level'), { no: 3, wire: 0, data: varint(4) }]);
      const typed = encode([{ no: 20, wire: 0, data: varint(ATTR_INT) }]);
      const attr = { chunks: [...level.chunks, ...typed.chunks], length: level.length + typed.length };
      list.push({ no: NODE.attribute, wire: 2, data: concat(attr) });
      int8ComputeNodes++;
      changed = true;
    }
    newNodes.push(changed ? encode(list) : undefined);
  });
  if (rename.size === 0 && int8ComputeNodes === 0) return none;

  // The graph again: its nodes (rewritten or as they were) in their place, value_info of renamed tensors dropped.
  const graphList: (Field | { no: number; encoded: Encoded })[] = [];
  let k = 0;
  let nodeIndex = 0;
  for (const f of graph) {
    if (f.no === GRAPH.node) {
      const i = nodeIndex++;
      if (dropped.has(i)) continue;
      const e = newNodes[k++];
      graphList.push(e ? { no: GRAPH.node, encoded: e } : f);
    } else if (f.no === GRAPH.valueInfo && rename.has(nameOf(f.data))) continue;
    else graphList.push(f);
  }
  const newGraph = encode(graphList);
  const modelList = top.map((f, i) => (i === graphAt ? { no: MODEL_GRAPH, encoded: newGraph } : f));
  return { bytes: encode(modelList).chunks, identitiesRemoved: rename.size, int8ComputeNodes };
}

function concat(e: Encoded): Uint8Array {
  const out = new Uint8Array(e.length);
  let at = 0;
  for (const c of e.chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
