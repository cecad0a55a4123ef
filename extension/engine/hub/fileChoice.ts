/**
 * Which files of a repository to download and run, chosen from its listing (names and sizes), never
 * by asking the server for names that may not exist. Pure: the listing in, the choice out.
 *
 * transformers.js's layout: `onnx/<graph><suffix>.onnx`, the suffix naming the weights' data type
 * (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING), large graphs with their weights beside them in
 * `<file>_data`, `<file>_data_1`, …; the tokenizer and the configs at the top.
 *
 * Decoder-only models have one graph, `model` in today's exports and `decoder_model_merged` in the older
 * ones (optimum's merged decoder); transformers.js opens either as its session `model` when told the
 * file's name (`model_file_name`). Encoder-decoders have two: `encoder_model` and `decoder_model_merged`.
 *
 * The order of preference, on a CPU (see DTYPE_ORDER for why):
 *   q4 → q8 → uint8 → int8 → q4f16 → fp16 → fp32 (bnb4 after q4f16).
 * With CUDA the float16 graphs come first. Between two layouts of the same data type, the smaller
 * download wins. Encoder and decoder may differ in data type but never in activation precision
 * (a float16 decoder cannot read a float32 encoder's output).
 */
import { EngineError } from '../errors';

/**
 * 'causal-lm': a decoder-only model (gpt2, llama, ...); 'seq2seq': an encoder-decoder (bart, t5, ...);
 * 'encoder': an encoder read for its token embeddings (bert: BERTScore).
 */
export type HubModelKind = 'causal-lm' | 'seq2seq' | 'encoder';

/** The data types transformers.js 4.3.1 knows a file suffix for, less the 1- and 2-bit ones. */
export type Dtype = 'q4' | 'q8' | 'uint8' | 'int8' | 'q4f16' | 'bnb4' | 'fp16' | 'fp32';

export const DTYPE_SUFFIX: Readonly<Record<Dtype, string>> = {
  q4: '_q4',
  q8: '_quantized',
  uint8: '_uint8',
  int8: '_int8',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
  fp16: '_fp16',
  fp32: '',
};

/** Whether a data type's graph computes in float16 (its inputs, outputs and caches are float16). */
export const HALF_PRECISION: ReadonlySet<Dtype> = new Set(['q4f16', 'fp16']);

/**
 * The order of preference per device.
 *
 * CPU: 4-bit weights with float32 activations (MatMulNBits, the form onnxruntime's own CPU builds of
 * language models use) keep the most quality per byte and have fast CPU kernels; 8-bit dynamic
 * quantization quantizes the activations too (per tensor), which costs small language models more
 * (transformers.js's own exports moved q8 from int8 to uint8 weights for that reason), so they come
 * next, uint8 before int8. float16 graphs run on a CPU through slower kernels; fp32 is the largest.
 * CUDA: float16 first (its kernels are the fast ones there), 8-bit last (MatMulInteger has no CUDA
 * kernel, so such a graph runs mostly on the CPU anyway).
 */
export const DTYPE_ORDER: Readonly<Record<'cpu' | 'cuda', readonly Dtype[]>> = {
  cpu: ['q4', 'q8', 'uint8', 'int8', 'q4f16', 'bnb4', 'fp16', 'fp32'],
  cuda: ['q4f16', 'fp16', 'q4', 'bnb4', 'fp32', 'q8', 'uint8', 'int8'],
};

/** A file of a repository: its path (forward slashes, relative), its size, its sha256 where known. */
export interface ListedFile {
  path: string;
  size: number;
  sha256?: string;
}

/** The small files read besides the graphs, with the most bytes each may have. */
export const SIDE_FILES: readonly { path: string; required: boolean; maxBytes: number }[] = [
  { path: 'config.json', required: true, maxBytes: 4_000_000 },
  { path: 'generation_config.json', required: false, maxBytes: 4_000_000 },
  // Real ones: 7 MB (Qwen2.5), 9 MB (Llama 3), 33 MB (Gemma 3).
  { path: 'tokenizer.json', required: true, maxBytes: 64_000_000 },
  // transformers.js reads a tokenizer only where this file exists.
  { path: 'tokenizer_config.json', required: true, maxBytes: 8_000_000 },
  // Newer exports keep the chat template apart from tokenizer_config.json.
  { path: 'chat_template.jinja', required: false, maxBytes: 1_000_000 },
  { path: 'chat_template.json', required: false, maxBytes: 1_000_000 },
];

/** The files that must parse as JSON before they are kept. */
export const isJsonFile = (p: string) => p.endsWith('.json');

/** One graph transformers.js opens: its session name there, its file, and the weights beside it. */
export interface SessionFile {
  /** transformers.js's base name for the graph ('model', 'encoder_model', 'decoder_model_merged'). */
  base: string;
  dtype: Dtype;
  /** e.g. 'onnx/model_q4.onnx'. */
  file: string;
  /** External weights, e.g. ['onnx/model_q4.onnx_data']. */
  data: string[];
}

/** What to download, and how to ask transformers.js to open it. */
export interface FileChoice {
  /** transformers.js's `dtype`: one for all graphs, or per graph base name where they differ. */
  dtype: Dtype | Record<string, Dtype>;
  /** transformers.js's `model_file_name`, for a decoder-only model in the older layout. */
  modelFileName?: string;
  /** transformers.js's `use_external_data_format`, per graph file name, where a graph has external weights. */
  externalData?: Record<string, number>;
  graphs: SessionFile[];
  /** Every file to have locally: side files, graphs, external weights. */
  files: ListedFile[];
  /** The sum of their sizes. */
  totalBytes: number;
}

interface Candidate {
  graph: SessionFile;
  bytes: number;
}

/**
 * What may follow a graph's name in the names of its external weights: transformers.js's chunks, or
 * onnxruntime-genai's `.data`.
 */
const EXTERNAL_DATA = /^(?:_data(?:_\d+)?|\.data)$/;

/** The graph `base` in data type `dtype`, if the listing has it, with its external weights. */
function candidate(byPath: ReadonlyMap<string, ListedFile>, base: string, dtype: Dtype): Candidate | undefined {
  const file = `onnx/${base}${DTYPE_SUFFIX[dtype]}.onnx`;
  const main = byPath.get(file);
  if (!main) return undefined;
  const data = [...byPath.keys()]
    .filter((p) => p.startsWith(file) && EXTERNAL_DATA.test(p.slice(file.length)))
    .sort((a, b) => chunkIndex(a) - chunkIndex(b));
  const bytes = main.size + data.reduce((n, p) => n + byPath.get(p)!.size, 0);
  return { graph: { base, dtype, file, data }, bytes };
}

const chunkIndex = (p: string) => Number(/_data_(\d+)$/.exec(p)?.[1] ?? 0);

/** The graphs each kind of model needs, by the alternatives of layout (first the newer one). */
const LAYOUTS: Readonly<Record<HubModelKind, readonly (readonly string[])[]>> = {
  'causal-lm': [['model'], ['decoder_model_merged']],
  seq2seq: [['encoder_model', 'decoder_model_merged']],
  encoder: [['model']],
};

export interface ChoiceOptions {
  device?: 'cpu' | 'cuda';
  /** A data type to take first when the repository has it (tests, and a user's explicit wish). */
  prefer?: Dtype;
}

/** The ranked data types for `options`. */
export function dtypeOrder(options: ChoiceOptions = {}): Dtype[] {
  const order = DTYPE_ORDER[options.device ?? 'cpu'];
  return options.prefer ? [options.prefer, ...order.filter((d) => d !== options.prefer)] : [...order];
}

/**
 * The side files of `files` (config, tokenizer, ...), each within its size limit: an EngineError naming
 * a missing required one or one too large (a 50 MB config.json is refused before it is downloaded).
 */
export function sideFiles(files: readonly ListedFile[], label: string): ListedFile[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const side: ListedFile[] = [];
  for (const s of SIDE_FILES) {
    const f = byPath.get(s.path);
    if (!f) {
      if (s.required) {
        throw new EngineError(
          'bad-model',
          `${label} has no ${s.path}: transformers.js needs config.json, tokenizer.json and tokenizer_config.json.`,
        );
      }
      continue;
    }
    if (f.size > s.maxBytes) {
      throw new EngineError(
        'bad-model',
        `${label} was refused: its ${s.path} is ${megabytes(f.size)} MB, more than such a file ever needs ` +
          `(${megabytes(s.maxBytes)} MB).`,
      );
    }
    side.push(f);
  }
  return side;
}

/**
 * The best file set of `files` for a model of `kind`, or an EngineError('bad-model') naming what is
 * missing or refused. `label` names the repository in messages.
 */
export function chooseFiles(
  files: readonly ListedFile[],
  kind: HubModelKind,
  label: string,
  options: ChoiceOptions = {},
): FileChoice {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const side = sideFiles(files, label);
  const order = dtypeOrder(options);
  const rank = (d: Dtype) => order.indexOf(d);
  let best: { graphs: Candidate[]; cost: number[] } | undefined;
  for (const layout of LAYOUTS[kind]) {
    // Per precision family, the best file of each graph; the family's worst rank is the set's rank.
    for (const half of [false, true]) {
      const graphs: Candidate[] = [];
      for (const base of layout) {
        const options = order
          .filter((d) => HALF_PRECISION.has(d) === half)
          .map((d) => candidate(byPath, base, d))
          .filter((c): c is Candidate => c !== undefined);
        if (options.length === 0) break;
        graphs.push(options[0]);
      }
      if (graphs.length !== layout.length) continue;
      const cost = [Math.max(...graphs.map((g) => rank(g.graph.dtype))), graphs.reduce((n, g) => n + g.bytes, 0)];
      if (!best || cost[0] < best.cost[0] || (cost[0] === best.cost[0] && cost[1] < best.cost[1])) {
        best = { graphs, cost };
      }
    }
  }
  if (!best) {
    const want =
      kind === 'seq2seq'
        ? 'onnx/encoder_model*.onnx and onnx/decoder_model_merged*.onnx'
        : kind === 'encoder'
          ? 'onnx/model*.onnx'
          : 'onnx/model*.onnx or onnx/decoder_model_merged*.onnx';
    const what = { seq2seq: 'an encoder-decoder', encoder: 'an encoder', 'causal-lm': 'a decoder-only model' }[kind];
    throw new EngineError(
      'bad-model',
      `${label} has no ONNX graphs in transformers.js's layout for ${what} (${want}).`,
    );
  }
  const graphs = best.graphs.map((c) => c.graph);
  const dtypes = new Set(graphs.map((g) => g.dtype));
  const chosen = [...side, ...graphs.flatMap((g) => [g.file, ...g.data].map((p) => byPath.get(p)!))];
  // transformers.js counts only its own chunk names; onnxruntime finds any other beside the graph.
  const chunks = (g: SessionFile) => g.data.filter((p) => !p.endsWith('.data')).length;
  const externalData = Object.fromEntries(
    graphs.filter((g) => chunks(g) > 0).map((g) => [g.file.slice('onnx/'.length), chunks(g)]),
  );
  return {
    dtype: dtypes.size === 1 ? graphs[0].dtype : Object.fromEntries(graphs.map((g) => [g.base, g.dtype])),
    ...(kind === 'causal-lm' && graphs[0].base !== 'model' ? { modelFileName: graphs[0].base } : {}),
    ...(Object.keys(externalData).length > 0 ? { externalData } : {}),
    graphs,
    files: chosen,
    totalBytes: chosen.reduce((n, f) => n + f.size, 0),
  };
}

/** Bytes in megabytes as the Hub's pages show them (10^6 bytes), one decimal under 10 MB. */
export const megabytes = (n: number) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0);

/** Bytes as a size for a sentence: GB (10^9 bytes, one decimal) from one GB, MB under it. */
export const formatSize = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${megabytes(n)} MB`);

/** The data types a choice runs, in words ('q4', or 'encoder q8, decoder q4'). */
export function describeDtype(choice: FileChoice): string {
  return typeof choice.dtype === 'string'
    ? choice.dtype
    : choice.graphs.map((g) => `${g.base.replace(/_model.*/, '')} ${g.dtype}`).join(', ');
}
