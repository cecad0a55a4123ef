/**
 * The contract every system keeps: the engine, the CLI and the evaluations load a system
 * through the registry (registry.ts), run requests on it, show what it is, and release it. Like
 * fairseq's registered architectures: the code around the systems never names one of them.
 */
import type { EngineRequest, ResultFor } from '../../protocol';
import { EngineError } from '../errors';
import { loadModelFolder, type Manifest, type ModelFolder } from '../runtime/manifest';
import { Tokenizer } from '../text/tokenizer';
import { releaseSessions, type Session } from '../runtime/onnx';
import type { RunContext } from './context';
import type { GuardSetup } from './decodingGuards';

/** Every op of the protocol's requests. */
export type Op = EngineRequest['op'];
/** The request of one op (or of several). */
export type RequestOf<O extends Op> = Extract<EngineRequest, { op: O }>;

/** What the panel, the CLI and the logs say about a loaded system. */
export interface SystemDescription {
  /** The registry's name for the system ('summarize', 'roundtrip', ...). */
  system: string;
  /** The model's name (model.json's name), or the system's own where it has no model. */
  name: string;
  /** model.json's description: the model card's one-line summary ('' when there is none). */
  description: string;
  /** The architecture it runs (model.json's architecture.type). */
  architecture: string;
  /** The folder it was loaded from (null: no model). */
  dir: string | null;
  /** The execution provider its sessions run on ('cpu', 'cuda'; 'none' without a model). */
  device: string;
}

/** A loaded system, answering the ops O. */
export interface System<O extends Op = Op> {
  /** Runs one request of its ops; the result answers the request's op. */
  run(request: RequestOf<O>, ctx: RunContext): Promise<ResultFor<RequestOf<O>>>;
  describe(): SystemDescription;
  /**
   * Releases its onnxruntime sessions now (session.release()), not whenever the garbage collector
   * gets to them: a model's sessions hold its weights in native memory. The system must not be run
   * afterwards; a second call does nothing.
   */
  dispose(): Promise<void>;
}

/** The description of a system loaded from a model folder. */
export function describeFolder(system: string, folder: ModelFolder, device: string): SystemDescription {
  const m = folder.manifest;
  return {
    system,
    name: m.name,
    description: m.description,
    architecture: m.architecture.type,
    dir: folder.dir,
    device,
  };
}

/**
 * What every system loaded from a Draftsmith model folder (model.json) has alike: its name and
 * description are the manifest's, and its decoding guards know the folder's words.
 */
export abstract class FolderSystem {
  protected constructor(
    private readonly system: string,
    protected readonly folder: ModelFolder,
    /** The execution provider its sessions run on. */
    readonly device: string,
    /** The decoding guards' known words and pieces (decodingGuards.ts). */
    protected readonly guards: GuardSetup,
  ) {}

  get name(): string {
    return this.folder.manifest.name;
  }

  describe(): SystemDescription {
    return describeFolder(this.system, this.folder, this.device);
  }
}

export type Architecture = Manifest['architecture'];

/**
 * A built-in model folder of one of the system's architectures: model.json read and checked, the
 * architecture narrowed to `types`, the tokenizer loaded. `what` names the model in the message.
 */
export async function loadFolderModel<T extends Architecture['type']>(
  dir: string,
  system: string,
  types: readonly T[],
  what: string,
): Promise<LoadedFolder<Extract<Architecture, { type: T }>>> {
  const folder = await loadModelFolder(dir, system);
  const arch = folder.manifest.architecture;
  const isOneOf = (a: Architecture): a is Extract<Architecture, { type: T }> =>
    (types as readonly string[]).includes(a.type);
  if (!isOneOf(arch))
    throw new EngineError('bad-model', `${dir}/model.json: architecture ${arch.type} is not a ${what} model`);
  const tokenizer = await Tokenizer.load(dir, folder.manifest.specialTokens.unk);
  return { folder, arch, tokenizer };
}

/** What loadFolderModel gives a system: the folder, its architecture and its tokenizer. */
export interface LoadedFolder<A> {
  folder: ModelFolder;
  arch: A;
  tokenizer: Tokenizer;
}

/** A system's dispose(): releases its sessions (read when called) the first time; later calls do nothing. */
export function releaseOnce(sessions: () => readonly (Session | undefined)[]): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await releaseSessions(sessions());
  };
}
