/**
 * Opens a model in transformers.js's layout: a Hub repository or a local folder.
 *
 * A Hub repository goes through three steps. Its file listing (hub/repoListing.ts: the Hub's model
 * API, or the copy kept beside an earlier download) says what files it has; hub/fileChoice.ts picks
 * the smallest set that runs well here; hub/repoDownload.ts downloads exactly those files into the
 * cache folder, each checked against the listing. transformers.js then opens the cache folder as a
 * local folder, told which files to open (dtype, model_file_name), and never downloads anything itself.
 * (Its own downloads would not do: its tokenizer probe asks for revision 'main' whatever revision was
 * chosen, so a pinned model would never load offline; and its file cache keeps whatever bytes came.)
 *
 * Everything that can go wrong becomes a message that says what happened: not found, private or
 * gated, a server error, no answer, offline, cancelled (EngineError 'model-unavailable', or
 * CancelledError), a repository refused as hostile or broken, or files that do not load
 * (EngineError 'bad-model'). Only a file that is not what the listing says (its size, its sha256, JSON
 * that does not parse) removes the model's cached files; a model that downloaded but cannot run here
 * (not enough memory, an operator this onnxruntime lacks) keeps them.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { DownloadQuestion, HubConfig, ModelChoice } from '../../protocol';
import { CancelledError, EngineError, errorMessage } from '../errors';
import { preparedGraph } from '../runtime/graphCache';
import { acceleratorOf, CudaDecision, NativeCalls, type Accelerator } from '../runtime/onnx';
import type { RuntimeOptions } from '../systems/context';
import {
  chooseFiles,
  describeDtype,
  formatSize,
  megabytes,
  sideFiles,
  type Dtype,
  type FileChoice,
  type HubModelKind,
} from './fileChoice';
import { sweepTemporaries } from './cacheTemporaries';
import { DEFAULT_MAX_DOWNLOAD_GB, GB } from './downloadLimit';
import { ENCODER_FAMILIES } from './families';
import { DownloadAborted, watchedFetch } from './hubFetch';
import { downloadFiles, missingFiles, removeFiles } from './repoDownload';
import { fetchListing, listingOfFolder, readCachedListing, writeCachedListing, type RepoListing } from './repoListing';
import { transformersJs, type PretrainedOptions, type Tjs, type TjsModel, type TjsTokenizer } from './transformersJs';

export type { HubModelKind } from './fileChoice';

/** What a load reports to, and is cancelled by: the request that asked for the model first. */
export interface LoadWatch {
  progress(message: string, fraction?: number): void;
  isCancelled(): boolean;
  /**
   * Asks whether a download over draftsmith.hub.maxDownloadGB may go ahead (the editor asks the
   * user). Absent: it is refused with a message that says how to allow it (the CLI, the evaluations).
   */
  confirmDownload?(question: DownloadQuestion): Promise<boolean>;
}

/** A model the user chose in place of a built-in one: a Hub id, a folder, or a GGUF file. */
export type ExternalChoice = Exclude<ModelChoice, { kind: 'built-in' }>;
/** The choices transformers.js opens: a Hub id or a folder in its layout. */
export type TjsChoice = Extract<ExternalChoice, { kind: 'hub' | 'folder' }>;

export interface OpenOptions {
  /** A data type to take first where the repository has it (otherwise fileChoice's order). */
  prefer?: Dtype;
  /**
   * 4-bit weights multiplied with int8 activations (MatMulNBits accuracy_level 4, runtime/graphRewrite.ts):
   * faster, and the logits move in their last bits.
   */
  int8Compute?: boolean;
  /** false: the model files opened as they are, not rewritten (a bench's "before"). */
  rewriteGraphs?: boolean;
}

/** Where rewritten graphs are kept (runtime/graphCache.ts): beside the downloads, in a folder no Hub id can name. */
export const graphCacheDir = (hub: HubConfig) => path.join(hub.cacheDir, '.graphs');

export interface OpenedHubModel {
  tjs: Tjs;
  tokenizer: TjsTokenizer;
  model: TjsModel;
  /** The Hub id or the folder, as the user named it. */
  id: string;
  source: TjsChoice['kind'];
  /** config.json's model_type. */
  architecture: string;
  /** The local folder (a folder choice) or the cache folder it was downloaded into. */
  dir: string;
  device: Accelerator | 'cpu';
  /** The weights' data type transformers.js loaded ('q4', 'q8', or per graph: 'encoder q8, decoder q4'). */
  dtype: string;
  /** The files opened, as fileChoice chose them (graphs, data types, sizes). */
  choice: FileChoice;
  /** The kind of model it is (config.json's): one of those the command asked for. */
  kind: HubModelKind;
}

/** The kind a command needs, or the kinds that each serve it (Summarize: an encoder-decoder or an instruct model). */
export type KindsWanted = HubModelKind | readonly HubModelKind[];
const kindList = (k: KindsWanted): readonly HubModelKind[] => (typeof k === 'string' ? [k] : k);

/** The cache folder transformers.js keeps a repository's files in (its FileCache: <cacheDir>/<id>[/<revision>]). */
export function cacheFolder(hub: HubConfig, id: string, revision?: string): string {
  return revision && revision !== 'main' ? path.join(hub.cacheDir, id, revision) : path.join(hub.cacheDir, id);
}

/** A Hub id, a folder or a GGUF file, for messages. */
export function choiceLabel(choice: ExternalChoice): string {
  return choice.kind === 'hub'
    ? choice.id + (choice.revision && choice.revision !== 'main' ? `@${choice.revision}` : '')
    : choice.kind === 'gguf'
      ? choice.file
      : choice.dir;
}

/** The error a failed step of the download means to the user. */
function explainDownload(e: unknown, label: string, hub: HubConfig): EngineError {
  if (e instanceof EngineError) return e;
  if (e instanceof DownloadAborted) return e.reason;
  const msg = errorMessage(e);
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
  if (/terminated|premature|ECONNRESET|other side closed|socket hang up/i.test(msg + cause)) {
    return new EngineError(
      'model-unavailable',
      `The download of ${label} broke off before its end${cause || `: ${msg}`}. Nothing of it was kept; try again.`,
    );
  }
  if (e instanceof TypeError && /fetch failed/.test(msg)) {
    return new EngineError('model-unavailable', `Cannot reach ${hub.endpoint} to download ${label}${cause}.`);
  }
  return new EngineError('model-unavailable', `The download of ${label} failed: ${msg.split('\n')[0]}`);
}

/** The error a model that downloaded (or a folder) but does not open means to the user; its files stay. */
export function explainLoad(e: unknown, label: string, dir: string): EngineError {
  if (e instanceof EngineError) return e;
  const msg = errorMessage(e);
  const first = msg.split('\n')[0];
  const outOfMemory = new RegExp(
    [
      'bad_alloc',
      'bad allocation',
      'failed to allocate',
      'out of memory',
      'cannot allocate memory',
      'allocation failed',
      'ERROR_OUTOFMEMORY',
    ].join('|'),
    'i',
  );
  if (outOfMemory.test(msg)) {
    return new EngineError(
      'bad-model',
      `${label} could not run here: not enough memory (${first}). Its files are kept in ${dir}; a smaller ` +
        `model, or fewer programs open, may do.`,
    );
  }
  const op =
    /Could not find an implementation for (\w+)\(\d+\)/.exec(msg)?.[1] ??
    /Op type not registered '(\w+)'/.exec(msg)?.[1] ??
    /No Op registered for (\w+)/.exec(msg)?.[1] ??
    /[Uu]nsupported (?:operator|op)[: ]+'?(\w+)/.exec(msg)?.[1];
  if (op) {
    let version = '';
    try {
      version = ` ${(require('onnxruntime-node/package.json') as { version: string }).version}`;
    } catch {
      // The message stands without the version.
    }
    return new EngineError(
      'bad-model',
      `${label} could not run here: the operator ${op} is not supported by this onnxruntime ` +
        `(onnxruntime-node${version}). Its files are kept in ${dir}.`,
    );
  }
  return new EngineError('bad-model', `${label} does not load: ${first}`);
}

/** config.json of a folder (validated JSON where Draftsmith downloaded it). */
function readConfig(dir: string, label: string): Record<string, unknown> & { model_type?: string } {
  const file = path.join(dir, 'config.json');
  try {
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch (e) {
    throw new EngineError('bad-model', `${label}: config.json does not read (${errorMessage(e).split('\n')[0]}).`);
  }
  throw new EngineError('bad-model', `${label}: config.json is not an object.`);
}

const KIND_OF = (config: Record<string, unknown>): HubModelKind =>
  config.is_encoder_decoder === true
    ? 'seq2seq'
    : typeof config.model_type === 'string' && Object.hasOwn(ENCODER_FAMILIES, config.model_type)
      ? 'encoder'
      : 'causal-lm';

/** Each kind of model in words, and what a command that needs it is told to choose. */
const KIND_WORDS: Readonly<Record<HubModelKind, { is: string; needs: string }>> = {
  seq2seq: { is: 'an encoder-decoder', needs: 'an encoder-decoder such as a BART or T5 summarizer' },
  'causal-lm': { is: 'a decoder-only language model', needs: 'a causal language model such as a GPT-2' },
  encoder: {
    is: 'an encoder',
    needs:
      `an encoder such as a BERT or MiniLM (e.g. Xenova/all-MiniLM-L6-v2; families: ` +
      `${Object.keys(ENCODER_FAMILIES).join(', ')})`,
  },
};

/** The kind config.json says, when it is one of `kinds`; else an error that says what is needed. */
function checkKind(
  config: ReturnType<typeof readConfig>,
  kinds: KindsWanted,
  label: string,
  what: string,
): HubModelKind {
  const found = KIND_OF(config);
  if (kindList(kinds).includes(found)) return found;
  const needs = kindList(kinds)
    .map((k) => KIND_WORDS[k].needs)
    .join(', or ');
  const type = config.model_type ? `a ${config.model_type}` : 'a';
  throw new EngineError('bad-model', `${label} is ${type} model (${KIND_WORDS[found].is}); ${what} needs ${needs}.`);
}

/** A Hub model's files, present in its cache folder: the folder and what to open there. */
interface Prepared {
  dir: string;
  choice: FileChoice;
  kind: HubModelKind;
}

/**
 * The listing of a Hub model: the one kept beside its download; else, where its cache folder already
 * holds a set of files that runs (offline, or a download made before listings were kept), the
 * folder's own files, with no request; else the Hub's (`fetched`), which prepareHubModel keeps only
 * once the model's files passed: a listing refused (or of files refused) is asked for again next time.
 */
async function hubListing(
  choice: Extract<TjsChoice, { kind: 'hub' }>,
  kinds: KindsWanted,
  device: 'cpu' | 'cuda',
  dir: string,
  hub: HubConfig,
  fetchFn: typeof fetch,
  label: string,
): Promise<{ listing: RepoListing; fetched: boolean }> {
  const revision = choice.revision ?? 'main';
  const kept = readCachedListing(dir, choice.id, revision);
  if (kept) return { listing: kept, fetched: false };
  const local = listingOfFolder(dir, choice.id);
  if (hub.offline || runsFrom(local, kinds, device, label)) return { listing: local, fetched: false };
  return { listing: await fetchListing(fetchFn, hub.endpoint, choice.id, revision, label), fetched: true };
}

/** Whether a folder's files hold a whole set fileChoice would run, for a model of one of `kinds`. */
function runsFrom(local: RepoListing, kinds: KindsWanted, device: 'cpu' | 'cuda', label: string): boolean {
  return kindList(kinds).some((kind) => {
    try {
      chooseFiles(local.files, kind, label, { device });
      return true;
    } catch {
      return false;
    }
  });
}

/** A download over the limit, refused where no one can be asked: its size, and how to allow it. */
const overLimitError = (label: string, bytes: number, limitBytes: number) =>
  new EngineError(
    'model-unavailable',
    `${label} is a download of ${formatSize(bytes)}, more than the ${formatSize(limitBytes)} ` +
      'that draftsmith.hub.maxDownloadGB allows; nothing of it was downloaded. ' +
      `To allow it, give --max-download-gb ${Math.ceil((bytes / GB) * 10) / 10} (or raise the setting).`,
  );

const offlineError = (label: string, hub: HubConfig) =>
  new EngineError(
    'model-unavailable',
    `${label} is not in the download cache (${hub.cacheDir}), and downloads are off (draftsmith.hub.offline, ` +
      `or --offline).`,
  );

/**
 * Makes sure the files of a Hub model that run here are in its cache folder: the listing, then
 * config.json (to check the kind of model before anything large comes), then the rest, its size
 * reported before the download starts.
 */
async function prepareHubModel(
  choice: Extract<TjsChoice, { kind: 'hub' }>,
  kinds: KindsWanted,
  what: string,
  hub: HubConfig,
  fetchFn: typeof fetch,
  device: 'cpu' | 'cuda',
  watch: LoadWatch,
  log: RuntimeOptions['log'],
  options: OpenOptions,
): Promise<Prepared> {
  const label = choiceLabel(choice);
  const dir = cacheFolder(hub, choice.id, choice.revision);
  const { listing, fetched } = await hubListing(choice, kinds, device, dir, hub, fetchFn, label);
  if (hub.offline && !existsSync(path.join(dir, 'config.json'))) throw offlineError(label, hub);
  const target = {
    endpoint: hub.endpoint,
    id: choice.id,
    revision: listing.sha ?? listing.revision,
    dir,
    label,
  };
  const quiet = { isCancelled: () => watch.isCancelled(), progress: () => {} };
  let swept = false;
  // What a download killed before left in the cache goes before this load's first download.
  const sweep = () => {
    if (swept) return;
    swept = true;
    for (const p of sweepTemporaries(hub.cacheDir))
      log('info', `removed ${p}, left over by a download that did not end`);
  };
  // The listing's side files are checked (present, not oversized) before the first byte comes.
  const config = sideFiles(listing.files, label).find((f) => f.path === 'config.json');
  // config.json first: a model of the wrong kind is refused before anything large comes.
  const configFresh = config !== undefined && missingFiles(dir, [config], label).length > 0;
  if (configFresh) {
    if (hub.offline) throw offlineError(label, hub);
    sweep();
    await downloadFiles(fetchFn, target, [config], quiet);
  }
  const kind = checkKind(readConfig(dir, label), kinds, label, what);
  const chosen = chooseFiles(listing.files, kind, label, {
    device,
    ...(options.prefer ? { prefer: options.prefer } : {}),
  });
  const missing = missingFiles(dir, chosen.files, label);
  if (missing.length > 0) {
    if (hub.offline) throw offlineError(label, hub);
    // The size reported is that of every file this load downloads, config.json included.
    const done = configFresh ? config.size : 0;
    const bytes = done + missing.reduce((n, f) => n + f.size, 0);
    const limitBytes = (hub.maxDownloadGB ?? DEFAULT_MAX_DOWNLOAD_GB) * GB;
    if (bytes > limitBytes) {
      const allowed = await watch.confirmDownload?.({ model: label, bytes, limitBytes });
      if (!allowed) {
        // Nothing of a model not downloaded stays (config.json came first, to check its kind).
        if (configFresh) removeFiles(dir, [config], label);
        if (allowed === false || watch.isCancelled()) throw new CancelledError();
        throw overLimitError(label, bytes, limitBytes);
      }
    }
    log(
      'info',
      `downloading ${label} (${describeDtype(chosen)}: ${chosen.graphs.map((g) => g.file).join(', ')}): ` +
        `${chosen.totalBytes} bytes in ${chosen.files.length} files, ${bytes} of them now, from ${hub.endpoint} ` +
        `into ${dir}`,
    );
    sweep();
    let lastPercent = -1;
    await downloadFiles(
      fetchFn,
      target,
      missing,
      {
        isCancelled: () => watch.isCancelled(),
        progress: (loaded, total) => {
          const percent = total > 0 ? Math.floor((100 * loaded) / total) : 100;
          if (percent === lastPercent) return;
          lastPercent = percent;
          watch.progress(
            `Downloading ${label}: ${megabytes(loaded)} of ${megabytes(total)} MB (${percent} %)`,
            total > 0 ? Math.min(1, loaded / total) : 1,
          );
        },
      },
      { model: chosen.files, done },
    );
  }
  if (fetched) writeCachedListing(dir, listing);
  return { dir, choice: chosen, kind };
}

/** Points transformers.js at one local folder: never a download, never its own cache. */
function configureLocal(tjs: Tjs, dir: string, fetchFn: typeof fetch): string {
  const env = tjs.env;
  env.useBrowserCache = false;
  env.useFSCache = false;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = path.dirname(dir);
  env.fetch = fetchFn;
  return path.basename(dir);
}

/** A Hub model or a folder in transformers.js's layout, of the kind (or one of the kinds) `kinds` names. */
export async function openHubModel(
  choice: ExternalChoice,
  kinds: KindsWanted,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
  options: OpenOptions = {},
): Promise<OpenedHubModel> {
  const label = choiceLabel(choice);
  // llama.cpp runs decoder-only language models; an encoder-decoder or an encoder needs transformers.js's layout.
  if (choice.kind === 'gguf')
    throw new EngineError(
      'bad-model',
      `${label} is a GGUF model (a language model llama.cpp runs); ${what} needs ` +
        `${KIND_WORDS[kindList(kinds)[0]].needs} in transformers.js's layout.`,
    );
  const rewrite = { outputs: true, int8Compute: options.int8Compute ?? false };
  const tjs = transformersJs(
    runtime.calls ?? new NativeCalls(),
    options.rewriteGraphs === false
      ? undefined
      : (file) => preparedGraph(file, graphCacheDir(hub), rewrite, (line) => runtime.log('info', line)).file,
  );
  const check = () => {
    if (watch.isCancelled()) throw new CancelledError();
  };
  // CUDA where the machine has it (the engine's decision for this configuration, as for the built-in
  // models), the CPU otherwise or when it fails, with the same one log line.
  const cuda =
    runtime.device !== 'cpu'
      ? (runtime.cuda ?? new CudaDecision(undefined, acceleratorOf(runtime.device) ?? 'cuda').forLoad(label))
      : undefined;
  const devices: (Accelerator | 'cpu')[] =
    cuda && cuda.decision.unavailable === undefined ? [cuda.decision.accelerator, 'cpu'] : ['cpu'];
  // The file order for a GPU (float16 first) on any accelerator, the CPU's otherwise.
  const filesFor = devices[0] === 'cpu' ? ('cpu' as const) : ('cuda' as const);
  const fetchFn = watchedFetch({
    isCancelled: () => watch.isCancelled(),
    stallMs: hub.stallSeconds * 1000,
    log: (m) => runtime.log('info', m),
  });

  let prepared: Prepared;
  try {
    if (choice.kind === 'folder') {
      const dir = path.resolve(choice.dir);
      if (!existsSync(path.join(dir, 'config.json'))) {
        throw new EngineError(
          'bad-model',
          `The folder ${choice.dir} is not a model in transformers.js's layout (config.json, tokenizer.json, ` +
            `onnx/): it has no config.json.`,
        );
      }
      const kind = checkKind(readConfig(dir, label), kinds, label, what);
      const listing = listingOfFolder(dir, label);
      prepared = {
        dir,
        choice: chooseFiles(listing.files, kind, `The folder ${choice.dir}`, { device: filesFor, ...options }),
        kind,
      };
    } else {
      watch.progress(`Loading ${label}…`);
      prepared = await prepareHubModel(choice, kinds, what, hub, fetchFn, filesFor, watch, runtime.log, options);
    }
    check();
  } catch (e) {
    throw explainDownload(e, label, hub);
  }

  const { dir, choice: files, kind } = prepared;
  const localId = configureLocal(tjs, dir, fetchFn);
  const base: PretrainedOptions = { local_files_only: true };
  let config: Record<string, unknown> & { model_type?: string };
  let tokenizer: TjsTokenizer;
  try {
    watch.progress(`Loading ${label}…`);
    config = await tjs.AutoConfig.from_pretrained(localId, base);
    tokenizer = await tjs.AutoTokenizer.from_pretrained(localId, base);
    check();
  } catch (e) {
    throw explainLoad(e, label, dir);
  }
  const Auto =
    kind === 'seq2seq' ? tjs.AutoModelForSeq2SeqLM : kind === 'encoder' ? tjs.AutoModel : tjs.AutoModelForCausalLM;
  const sessionOptions = {
    graphOptimizationLevel: 'all',
    ...(runtime.threads > 0 ? { intraOpNumThreads: runtime.threads, interOpNumThreads: 1 } : {}),
  };
  let lastError: unknown;
  for (const device of devices) {
    try {
      // device 'auto': transformers.js then leaves the execution providers to the session options
      // (with the guarded onnxruntime it knows no devices of its own).
      const model = await Auto.from_pretrained(localId, {
        ...base,
        dtype: files.dtype,
        ...(files.modelFileName ? { model_file_name: files.modelFileName } : {}),
        ...(files.externalData ? { use_external_data_format: files.externalData } : {}),
        device: 'auto',
        session_options: {
          ...sessionOptions,
          executionProviders: [device],
          ...(device !== 'cpu' ? { logSeverityLevel: 4 } : {}),
        },
      });
      if (watch.isCancelled()) {
        await model.dispose();
        throw new CancelledError();
      }
      if (device === 'cpu' && cuda) cuda.fellBack(runtime.device, runtime.log);
      runtime.log(
        'info',
        `loaded ${label} (${config.model_type ?? 'unknown architecture'}, ${describeDtype(files)}: ` +
          `${files.graphs.map((g) => g.file).join(', ')}) with transformers.js from ${dir} on ${device}`,
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
        dtype: describeDtype(files),
        choice: files,
        kind,
      };
    } catch (e) {
      lastError = e;
      if (e instanceof CancelledError) throw e;
      // A session CUDA could not open: the CPU next, and the rest of this configuration on the CPU.
      if (device !== 'cpu' && cuda) cuda.decision.markUnavailable(errorMessage(e).split('\n')[0]);
      else break;
    }
  }
  throw explainLoad(lastError, label, dir);
}
