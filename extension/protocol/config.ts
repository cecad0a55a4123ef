/**
 * How the engine is configured (the host's settings, the CLI's flags) and which model a command runs.
 */
import { z } from 'zod';
import { DEFAULT_THREADS } from '../engine/runtime/threads';

/** auto: CUDA where there is one, else the CPU; or one execution provider by name (onnxruntime-node's). */
export const DeviceSetting = z.enum(['auto', 'cpu', 'cuda', 'dml', 'coreml', 'webgpu']);
export type DeviceSetting = z.infer<typeof DeviceSetting>;

/**
 * Where Hub models come from and are kept. The endpoint is the Hub's URL layout
 * (<endpoint><id>/resolve/<revision>/<file>): huggingface.co, a mirror, or the tests' loopback Hub.
 */
export const HubConfig = z.object({
  endpoint: z.string().url().default('https://huggingface.co/'),
  /** The download cache: the extension's global storage, or ~/.cache/draftsmith for the CLI. */
  cacheDir: z.string().min(1),
  /** Never download: only models already in the cache (or local folders) load. */
  offline: z.boolean().default(false),
  /** A download that receives nothing for this long fails (a server that stops answering). */
  stallSeconds: z.number().min(1).max(600).default(30),
  /**
   * The most tokens (prompt and output) a Hub language model reads, below its own limit: its cache
   * grows with each, so this bounds memory. Absent: hub/hubSystems.ts DEFAULT_CONTEXT_CAP.
   */
  contextTokens: z.number().int().min(256).max(131072).optional(),
  /**
   * A model whose download is larger than this many GB (10^9 bytes) is asked about first (the
   * editor) or refused until allowed (the CLI). Absent: engine/hub/downloadLimit.ts's default.
   */
  maxDownloadGB: z.number().min(0).max(1000).optional(),
});
export type HubConfig = z.infer<typeof HubConfig>;

export const EngineConfig = z.object({
  /** Folder holding one sub-folder per system (summarize/, essay/, ...). */
  modelsDir: z.string().min(1),
  /**
   * Draftsmith model folders from a URL in place of modelsDir (draftsmith.modelsUrl): <url>/<folder>/
   * model.json and its files, downloaded once into hub.cacheDir, each file checked against its sha256.
   */
  modelsUrl: z
    .string()
    .url()
    .refine((u) => /^https?:/.test(u), 'an http or https URL')
    .optional(),
  hub: HubConfig.optional(),
  device: DeviceSetting.default('auto'),
  /** Intra-op threads per session; 0 lets onnxruntime choose (one per core). */
  threads: z.number().int().min(0).max(64).default(DEFAULT_THREADS),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

// ---- which model a command runs ------------------------------------------------------

/** A Hugging Face Hub repository id: owner/name. */
export const HubModelId = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/, 'a Hub model id is owner/name');

/**
 * The model a request runs: the built-in one (the models folder's), a Hub model (downloaded into
 * the cache on first use), a local folder (a Draftsmith folder with model.json, or a folder in
 * transformers.js's layout with config.json and onnx/), or a GGUF file run by llama.cpp (one of
 * Ollama's or LM Studio's, or any other).
 */
export const ModelChoice = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('built-in') }),
  z.object({
    kind: z.literal('hub'),
    id: HubModelId,
    // A branch, tag or commit; never '.' or '..' (it names a folder of the download cache).
    revision: z
      .string()
      .min(1)
      .max(100)
      .regex(/^(?!\.{1,2}$)[\w.-]+$/)
      .optional(),
  }),
  z.object({ kind: z.literal('folder'), dir: z.string().min(1) }),
  z.object({ kind: z.literal('gguf'), file: z.string().min(1) }),
]);
export type ModelChoice = z.infer<typeof ModelChoice>;

/** What a result says about a model that is not a built-in Draftsmith model (absent: one of ours). */
/**
 * One decoding value a Hub model ran with, and whose it was: the user's setting, the model's
 * generation_config, or Draftsmith's default.
 */
export const DecodingValue = z.object({
  name: z.string(),
  value: z.number(),
  from: z.enum(['setting', 'model', 'draftsmith']),
});
export type DecodingValue = z.infer<typeof DecodingValue>;

export const ExternalModel = z.object({
  /** The Hub id, or the folder. */
  id: z.string(),
  /** config.json's model_type (gpt2, bart, ...). */
  architecture: z.string(),
  /** What the insights panel can show for it, in words (e.g. no attention: the graph does not export it). */
  note: z.string(),
  /** The decoding values that ran, where the model has its own (generation_config.json). */
  decoding: z.array(DecodingValue).optional(),
  /** Set when the text was cut to the context cap (draftsmith.hub.contextTokens): what was read of how much. */
  contextCut: z.object({ usedTokens: z.number().int(), totalTokens: z.number().int() }).optional(),
});
export type ExternalModel = z.infer<typeof ExternalModel>;
