/**
 * Opens a GGUF file with llama.cpp as the causal LM the writing systems run (hub/causalLm.ts): its
 * tokenizer and chat template from the file, every end-of-generation token llama.cpp knows for it, a
 * context as long as the model's own or the cap (draftsmith.hub.contextTokens), whichever is smaller,
 * and one llama.cpp sequence per row the command decodes at once (a beam search's beams).
 *
 * A file that is not there, not a GGUF file, or broken (truncated, an architecture this llama.cpp
 * lacks) is refused with a message naming the file and what llama.cpp said.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { LlamaModel } from 'node-llama-cpp';
import type { HubConfig, ModelChoice } from '../../protocol';
import { CancelledError, EngineError, errorMessage } from '../errors';
import type { RuntimeOptions } from '../systems/context';
import { DEFAULT_CONTEXT_CAP, type CausalLm } from '../hub/causalLm';
import type { LoadWatch } from '../hub/hubModel';
import { GgufStepModel } from './ggufStep';
import { GgufTokenizer } from './ggufTokenizer';
import { llamaRuntime, type LlamaRuntime } from './llamaRuntime';

export type GgufChoice = Extract<ModelChoice, { kind: 'gguf' }>;

export interface GgufOpenOptions {
  /** Rows decoded at once (beam search's beams): one llama.cpp sequence each. Default 1. */
  rows?: number;
}

/** GGUF's token types (llama.cpp's llama_token_type): what is not ordinary text. */
const TOKEN_NORMAL = 1;
const TOKEN_BYTE = 6;

/** Why `file` cannot be a GGUF model, before llama.cpp is asked: missing, a folder, or no GGUF magic. */
export function ggufFileProblem(file: string): string | undefined {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return `${file} is not a file`;
    size = stat.size;
  } catch {
    return `There is no GGUF file at ${file}`;
  }
  const head = Buffer.alloc(8);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    readSync(fd, head, 0, 8, 0);
  } catch (e) {
    return `${file} cannot be read: ${errorMessage(e).split('\n')[0]}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (size < 24 || head.subarray(0, 4).toString('latin1') !== 'GGUF')
    return `${file} is not a GGUF file (it does not start with "GGUF")`;
  return undefined;
}

/**
 * Why `file` is cut short (a download that stopped), from its own header: its tensors end past the
 * file's end. A header node-llama-cpp cannot parse is left for llama.cpp to judge.
 */
async function truncation(rt: LlamaRuntime, file: string): Promise<string | undefined> {
  const size = statSync(file).size;
  let header: number;
  let needed: number;
  try {
    const info = await rt.lib.readGgufFileInfo(file, { logWarnings: false });
    header = info.infoEndOffset ?? 0;
    // modelSize is the span from the tensor data's start to its last tensor's end (as mapped).
    needed = header + (await rt.lib.GgufInsights.from(info, rt.llama)).modelSize;
  } catch {
    return undefined;
  }
  // Past the end the reader sees nothing real, so a header cut short is said without its numbers.
  if (header > size) return `${file} is corrupted or incomplete: its header (settings and vocabulary) is cut short`;
  if (size >= needed) return undefined;
  return (
    `${file} is corrupted or incomplete: its tensors need ${needed.toLocaleString('en-US')} bytes and the file ` +
    `has ${size.toLocaleString('en-US')} (a download cut short?)`
  );
}

/**
 * What llama.cpp logged as wrong ("tensor ... data is not within the file bounds, model is corrupted or
 * incomplete", "unknown model architecture"); node-llama-cpp itself only says "Failed to load model".
 */
function loadReason(lines: string[]): string | undefined {
  return lines
    .map((r) => r.replace(/^[\w:]+: (error loading model: )?/, '').trim())
    .find((r) => r && !/failed to load model$/i.test(r));
}

/** llama.cpp's error lines since `mark`, waiting a moment for its reason when none came yet. */
const reasonsSince = (rt: LlamaRuntime, mark: number): Promise<string[]> =>
  rt.errorsSettled(mark, (lines) => loadReason(lines) !== undefined);

/** The message a load llama.cpp refused means, with llama.cpp's own reason where it logged one. */
function explainGgufLoad(e: unknown, file: string, reasons: string[]): EngineError {
  if (e instanceof EngineError) return e;
  const msg = errorMessage(e).split('\n')[0];
  if (/insufficient|out of memory|failed to allocate|cannot allocate/i.test(msg + reasons.join(' ')))
    return new EngineError(
      'bad-model',
      `${file} could not run here: not enough memory (${msg}). A smaller model may do.`,
    );
  const why = loadReason(reasons);
  return new EngineError('bad-model', `${file} does not load as a GGUF model: ${why ?? msg}`);
}

export async function openGgufLm(
  choice: GgufChoice,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
  options: GgufOpenOptions = {},
): Promise<CausalLm> {
  const file = path.resolve(choice.file);
  const problem = ggufFileProblem(file);
  if (problem) throw new EngineError('bad-model', `${problem}; ${what} needs a GGUF model file.`);
  watch.progress(`Loading ${path.basename(file)}…`);
  const rt = await llamaRuntime(runtime.device, runtime.log);
  const cut = await truncation(rt, file);
  if (cut) throw new EngineError('bad-model', cut);
  const mark = rt.logMark();
  let model: LlamaModel;
  try {
    model = await rt.llama.loadModel({ modelPath: file, gpuLayers: rt.llama.gpu === false ? 0 : 'auto' });
  } catch (e) {
    throw explainGgufLoad(e, file, await reasonsSince(rt, mark));
  }
  try {
    if (watch.isCancelled()) throw new CancelledError();
    return await onModel(rt, model, file, hub, runtime, options);
  } catch (e) {
    await model.dispose();
    throw e instanceof EngineError ? e : explainGgufLoad(e, file, await reasonsSince(rt, mark));
  }
}

async function onModel(
  rt: LlamaRuntime,
  model: LlamaModel,
  file: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  options: GgufOpenOptions,
): Promise<CausalLm> {
  const meta = model.fileInfo.metadata;
  const tokenizerMeta = meta.tokenizer?.ggml;
  const tokens: readonly string[] = tokenizerMeta?.tokens ?? [];
  const types: readonly number[] = tokenizerMeta?.token_type ?? [];
  if (tokens.length === 0) throw new EngineError('bad-model', `${file} has no vocabulary (tokenizer.ggml.tokens).`);
  const vocabSize = tokens.length;
  const ends = endTokensOf(model, types);
  if (ends.length === 0)
    throw new EngineError('bad-model', `${file} names no end-of-text token (tokenizer.ggml.eos_token_id).`);
  const special = new Set<number>();
  for (let i = 0; i < types.length; i++) if (types[i] !== TOKEN_NORMAL && types[i] !== TOKEN_BYTE) special.add(i);
  for (const t of [model.tokens.bos, tokenizerMeta?.padding_token_id]) if (typeof t === 'number') special.add(t);
  const banned = [...special].filter((t) => !ends.includes(t) && t < vocabSize);

  const own = model.trainContextSize || DEFAULT_CONTEXT_CAP;
  const cap = hub.contextTokens ?? DEFAULT_CONTEXT_CAP;
  const contextTokens = Math.min(own, cap);
  const rows = Math.max(1, Math.floor(options.rows ?? 1));
  const context = await model.createContext({
    contextSize: contextTokens,
    sequences: rows,
    ...(runtime.threads > 0 ? { threads: runtime.threads } : {}),
  });
  const sequences = Array.from({ length: rows }, () => context.getSequence());
  const architecture = String(meta.general?.architecture ?? 'unknown');
  const dtype = fileTypeOf(model);
  const bos = model.tokens.bos;
  const label = file;
  runtime.log(
    'info',
    `loaded ${label} (${architecture}, ${dtype}) with llama.cpp (node-llama-cpp, ${rt.llama.buildType} ` +
      `${rt.device} build${rt.llama.gpu !== false ? `, ${model.gpuLayers} layers on the GPU` : ''}) on ` +
      `${rt.device}, context ${contextTokens} tokens × ${rows}`,
  );
  let released = false;
  return {
    opened: {
      id: label,
      source: 'gguf',
      architecture,
      dir: path.dirname(file),
      device: rt.device,
      dtype,
      tokenizer: new GgufTokenizer(model, meta.tokenizer?.chat_template),
      model: {
        dispose: async () => {
          if (released) return;
          released = true;
          await context.dispose();
          await model.dispose();
        },
      },
    },
    step: new GgufStepModel(sequences, vocabSize, ends),
    contextTokens,
    contextCapped: cap < own,
    bos: model.tokens.shouldPrependBosToken && bos !== null && !ends.includes(bos) ? bos : undefined,
    eos: ends[0],
    ends,
    banned,
    chat: typeof meta.tokenizer?.chat_template === 'string' && meta.tokenizer.chat_template.trim().length > 0,
    // A GGUF file carries no generation_config: the command's own sampling settings run.
    sampling: {},
  };
}

/**
 * Every token llama.cpp ends a generation on (its end-of-generation set: eos, eot, and the chat and
 * fill-in-the-middle markers it recognises), the file's eos first: the one our loops stop on.
 */
function endTokensOf(model: LlamaModel, types: readonly number[]): number[] {
  const ends: number[] = [];
  for (const t of [model.tokens.eos, model.tokens.eot]) if (t !== null && !ends.includes(t)) ends.push(t);
  for (let i = 0; i < types.length; i++) {
    if (types[i] === TOKEN_NORMAL || types[i] === TOKEN_BYTE || ends.includes(i)) continue;
    if (model.isEogToken(i as Parameters<LlamaModel['isEogToken']>[0])) ends.push(i);
  }
  return ends;
}

/** The weights' type as llama.cpp names it ("Q8_0", "Q4_K - Medium", "F32"). */
function fileTypeOf(model: LlamaModel): string {
  // typeDescription is "<arch> <size> <file type>", e.g. "llama 135M Q8_0" or "llama ?B all F32".
  const parts = model.typeDescription.split(' ');
  return parts.slice(2).join(' ').replace(/^all /, '') || model.typeDescription;
}
