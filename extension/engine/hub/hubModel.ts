/**
 * Opens a model in transformers.js's layout: a Hub repository, downloaded on first use
 * into the cache (HubConfig.cacheDir) with transformers.js's own download and cache code, or a local
 * folder in that layout. Everything that can go wrong on the way becomes a message that says what
 * happened: not found, a server error, no answer, offline, cancelled (EngineError 'model-unavailable',
 * or CancelledError), or files that do not load (EngineError 'bad-model'; the cached copy is then
 * removed so that the next try downloads it afresh).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { HubConfig, ModelChoice } from '../../protocol';
import { CancelledError, EngineError, errorMessage } from '../errors';
import { CudaDecision, NativeCalls } from '../runtime/onnx';
import type { RuntimeOptions } from '../systems/context';
import { DownloadAborted, watchedFetch } from './hubFetch';
import {
  transformersJs,
  type PretrainedOptions,
  type ProgressInfo,
  type Tjs,
  type TjsModel,
  type TjsTokenizer,
} from './transformersJs';

/** What a load reports to, and is cancelled by: the request that asked for the model first. */
export interface LoadWatch {
  progress(message: string, fraction?: number): void;
  isCancelled(): boolean;
}

export type ExternalChoice = Extract<ModelChoice, { kind: 'hub' | 'folder' }>;

/** 'causal-lm': a decoder-only model (gpt2, llama, ...); 'seq2seq': an encoder-decoder (bart, t5, ...). */
export type HubModelKind = 'causal-lm' | 'seq2seq';

export interface OpenedHubModel {
  tjs: Tjs;
  tokenizer: TjsTokenizer;
  model: TjsModel;
  /** The Hub id or the folder, as the user named it. */
  id: string;
  source: ExternalChoice['kind'];
  /** config.json's model_type. */
  architecture: string;
  /** The local folder (a folder choice) or the cache folder it was downloaded into. */
  dir: string;
  device: 'cpu' | 'cuda';
  /** The weights' data type transformers.js loaded ('q8': onnx/*_quantized.onnx, 'fp32'). */
  dtype: string;
}

/** The cache folder transformers.js keeps a repository's files in (its FileCache: <cacheDir>/<id>[/<revision>]). */
export function cacheFolder(hub: HubConfig, id: string, revision?: string): string {
  return revision && revision !== 'main' ? path.join(hub.cacheDir, id, revision) : path.join(hub.cacheDir, id);
}

/** A Hub id or a folder, for messages. */
export function choiceLabel(choice: ExternalChoice): string {
  return choice.kind === 'hub'
    ? choice.id + (choice.revision && choice.revision !== 'main' ? `@${choice.revision}` : '')
    : choice.dir;
}

const MB = 1024 * 1024;
const mb = (n: number) => (n / MB).toFixed(n < 10 * MB ? 1 : 0);

/**
 * The download progress line: bytes and percent of all the files so far. Only while something is
 * read from the network (`downloading()`): transformers.js reports files read from the cache as
 * progress too.
 */
function progressReporter(id: string, watch: LoadWatch, downloading: () => boolean): (info: ProgressInfo) => void {
  let lastPercent = -1;
  return (info) => {
    if (info.status !== 'progress_total' || !(info.total > 0) || !downloading()) return;
    const percent = Math.floor((100 * info.loaded) / info.total);
    if (percent === lastPercent) return;
    lastPercent = percent;
    watch.progress(
      `Downloading ${id}: ${mb(info.loaded)} of ${mb(info.total)} MB (${percent} %)`,
      Math.min(1, info.loaded / info.total),
    );
  };
}

/** The error a failed step of the load means to the user. */
function explain(e: unknown, choice: ExternalChoice, hub: HubConfig): EngineError {
  if (e instanceof EngineError) return e;
  if (e instanceof DownloadAborted) return e.reason;
  const label = choiceLabel(choice);
  const msg = errorMessage(e);
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
  if (choice.kind === 'folder') {
    return new EngineError(
      'bad-model',
      `The folder ${choice.dir} is not a model in transformers.js's layout (config.json, tokenizer.json, onnx/): ${msg}`,
    );
  }
  if (/local_files_only=true|allowRemoteModels=false/.test(msg)) {
    return new EngineError(
      'model-unavailable',
      `${label} is not in the download cache (${hub.cacheDir}), and downloads are off (draftsmith.hub.offline, or --offline).`,
    );
  }
  if (/^Could not locate file/.test(msg)) {
    const url = /"([^"]+)"/.exec(msg)?.[1] ?? msg.replace(/^Could not locate file: /, '');
    return new EngineError(
      'model-unavailable',
      `${label} was not found at ${hub.endpoint}, or has no file transformers.js needs (no ${url}).`,
    );
  }
  if (/occurred while trying to load file|Unauthorized|Forbidden/.test(msg)) {
    return new EngineError('model-unavailable', `The Hub could not send ${label}: ${msg}`);
  }
  if (e instanceof TypeError && /fetch failed/.test(msg)) {
    return new EngineError('model-unavailable', `Cannot reach ${hub.endpoint} to download ${label}${cause}.`);
  }
  if (/terminated|premature|ECONNRESET|other side closed/i.test(msg + cause)) {
    return new EngineError(
      'model-unavailable',
      `The download of ${label} broke off before its end${cause || `: ${msg}`}. Nothing of it was kept; try again.`,
    );
  }
  return new EngineError('bad-model', `${label} does not load: ${msg.split('\n')[0]}`);
}

/** Points transformers.js at this load's source: the Hub (through the cache) or one local folder. */
function configure(
  tjs: Tjs,
  choice: ExternalChoice,
  hub: HubConfig,
  watch: LoadWatch,
  log: RuntimeOptions['log'],
  onFetch: () => void,
): string {
  const env = tjs.env;
  env.useBrowserCache = false;
  env.useFSCache = true;
  env.cacheDir = hub.cacheDir;
  env.remoteHost = hub.endpoint.endsWith('/') ? hub.endpoint : `${hub.endpoint}/`;
  env.fetch = watchedFetch({
    isCancelled: () => watch.isCancelled(),
    stallMs: hub.stallSeconds * 1000,
    log: (m) => {
      onFetch();
      log('info', m);
    },
  });
  if (choice.kind === 'folder') {
    // A folder is read in place: never a download, never the cache.
    const dir = path.resolve(choice.dir);
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = path.dirname(dir);
    return path.basename(dir);
  }
  // A Hub id is never read from a local folder of the same name: transformers.js looks for local
  // files under a folder that does not exist, then in the cache, then (unless offline) downloads.
  // (Both off at once is a configuration it refuses.)
  env.allowLocalModels = true;
  env.localModelPath = path.join(hub.cacheDir, '.no-local-models');
  env.allowRemoteModels = !hub.offline;
  return choice.id;
}

/** The weights to ask for, in order: the kind a folder (or the cache) already holds first. */
function dtypeOrder(onnxDir: string): string[] {
  const files = existsSync(onnxDir) ? readdirSync(onnxDir) : [];
  const quantized = files.some((f) => f.endsWith('_quantized.onnx'));
  const float = files.some(
    (f) => /^[a-z_]+\.onnx$/.test(f) && !/_(fp16|int8|uint8|q4|q4f16|bnb4|quantized)\.onnx$/.test(f),
  );
  return float && !quantized ? ['fp32', 'q8'] : ['q8', 'fp32'];
}

const KIND_OF = (config: { is_encoder_decoder?: boolean }): HubModelKind =>
  config.is_encoder_decoder ? 'seq2seq' : 'causal-lm';

export async function openHubModel(
  choice: ExternalChoice,
  kind: HubModelKind,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
): Promise<OpenedHubModel> {
  const tjs = transformersJs(runtime.calls ?? new NativeCalls());
  let fetched = false;
  const id = configure(tjs, choice, hub, watch, runtime.log, () => {
    fetched = true;
  });
  const label = choiceLabel(choice);
  const base: PretrainedOptions = {
    progress_callback: progressReporter(label, watch, () => fetched),
    ...(choice.kind === 'hub' && choice.revision ? { revision: choice.revision } : {}),
  };
  const check = () => {
    if (watch.isCancelled()) throw new CancelledError();
  };
  let config: Awaited<ReturnType<Tjs['AutoConfig']['from_pretrained']>>;
  let tokenizer: TjsTokenizer;
  try {
    watch.progress(`Loading ${label}…`);
    config = await tjs.AutoConfig.from_pretrained(id, base);
    check();
    if (KIND_OF(config) !== kind) {
      throw new EngineError(
        'bad-model',
        `${label} is ${config.model_type ? `a ${config.model_type}` : 'a'} model (${KIND_OF(config) === 'seq2seq' ? 'an encoder-decoder' : 'a decoder-only language model'}); ${what} needs ${kind === 'seq2seq' ? 'an encoder-decoder such as a BART or T5 summarizer' : 'a causal language model such as a GPT-2'}.`,
      );
    }
    tokenizer = await tjs.AutoTokenizer.from_pretrained(id, base);
    check();
  } catch (e) {
    throw explain(e, choice, hub);
  }
  const Auto = kind === 'seq2seq' ? tjs.AutoModelForSeq2SeqLM : tjs.AutoModelForCausalLM;
  const sessionOptions = {
    graphOptimizationLevel: 'all',
    ...(runtime.threads > 0 ? { intraOpNumThreads: runtime.threads, interOpNumThreads: 1 } : {}),
  };
  // int8 weights first (onnx/*_quantized.onnx: a quarter of the download, and faster on a CPU), the
  // float32 graph where a repository has no quantized one; what is already here (the cache, a folder)
  // decides first, so that a cached model loads with no server to ask.
  const dir = choice.kind === 'folder' ? path.resolve(choice.dir) : cacheFolder(hub, choice.id, choice.revision);
  // CUDA where the machine has it (the engine's decision for this configuration, as for the built-in
  // models), the CPU otherwise or when it fails, with the same one log line.
  const cuda = runtime.device !== 'cpu' ? (runtime.cuda ?? new CudaDecision().forLoad(label)) : undefined;
  let lastError: unknown;
  for (const dtype of dtypeOrder(path.join(dir, 'onnx'))) {
    let missing = false;
    for (const device of cuda && cuda.decision.unavailable === undefined
      ? (['cuda', 'cpu'] as const)
      : (['cpu'] as const)) {
      try {
        // device 'auto': transformers.js then leaves the execution providers to the session options
        // (with the guarded onnxruntime it knows no devices of its own).
        const model = await Auto.from_pretrained(id, {
          ...base,
          dtype,
          device: 'auto',
          session_options: {
            ...sessionOptions,
            executionProviders: [device],
            ...(device === 'cuda' ? { logSeverityLevel: 4 } : {}),
          },
        });
        if (watch.isCancelled()) {
          await model.dispose();
          throw new CancelledError();
        }
        if (device === 'cpu' && cuda) cuda.fellBack(runtime.device, runtime.log);
        runtime.log(
          'info',
          `loaded ${label} (${config.model_type ?? 'unknown architecture'}, ${dtype}) with transformers.js from ${dir} on ${device}`,
        );
        return {
          tjs,
          tokenizer,
          model,
          id: label,
          source: choice.kind,
          architecture: String(config.model_type ?? 'unknown'),
          dir,
          device,
          dtype,
        };
      } catch (e) {
        lastError = e;
        if (e instanceof CancelledError || e instanceof DownloadAborted) break;
        missing = /^Could not locate file|was not found locally/.test(errorMessage(e));
        if (missing) break;
        // A session CUDA could not open: the CPU next, and the rest of this configuration on the CPU.
        if (device === 'cuda' && cuda) cuda.decision.markUnavailable(errorMessage(e).split('\n')[0]);
        else break;
      }
    }
    if (!missing) break;
  }
  const err = explain(lastError, choice, hub);
  // A file that downloaded but does not load (corrupt, truncated by the server) must not be used
  // again: the next try downloads the model afresh.
  if (err.code === 'bad-model' && choice.kind === 'hub') {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
  throw err;
}
