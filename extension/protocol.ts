/**
 * The typed messages between host, worker and webview, declared once (the role rust-analyzer's
 * lsp_ext.ts plays). Every message that crosses a thread or a webview boundary is parsed with
 * these schemas on arrival; nothing is cast.
 *
 * Streaming follows continue's shape: a request gets any number of progress/partial messages and
 * ends with exactly one result or error; a cancel ends it with an error of code "cancelled".
 */
import { z } from 'zod';

// ---- engine settings ---------------------------------------------------------------------------

export const DeviceSetting = z.enum(['auto', 'cpu', 'cuda']);
export type DeviceSetting = z.infer<typeof DeviceSetting>;

export const EngineConfig = z.object({
  /** Folder holding one sub-folder per system (summarize/, essay/, ...). */
  modelsDir: z.string().min(1),
  device: DeviceSetting.default('auto'),
  /** 0 lets onnxruntime choose. */
  threads: z.number().int().min(0).max(64).default(0),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

// ---- per-system requests and results ----------------------------------------------------------

export const BeamOptions = z.object({
  beamSize: z.number().int().min(1).max(16).optional(),
  maxLength: z.number().int().min(1).max(512).optional(),
  minLength: z.number().int().min(0).max(512).optional(),
  lengthPenalty: z.number().min(0).max(5).optional(),
  noRepeatNgramSize: z.number().int().min(0).max(10).optional(),
});
export type BeamOptions = z.infer<typeof BeamOptions>;

export const SummarizeRequest = z.object({
  op: z.literal('summarize'),
  text: z.string(),
  maxInputTokens: z.number().int().min(16).max(4096).optional(),
  decoding: BeamOptions.optional(),
});
export type SummarizeRequest = z.infer<typeof SummarizeRequest>;

/** One source token with its topic-aware attention weight α_t (TAAS Eq. 11) and its span in the input text. */
export const AttendedToken = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  weight: z.number(),
});
export type AttendedToken = z.infer<typeof AttendedToken>;

export const AttendedPhrase = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  weight: z.number(),
});
export type AttendedPhrase = z.infer<typeof AttendedPhrase>;

export const GenerationStats = z.object({
  inputTokens: z.number().int(),
  usedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  encodeMs: z.number(),
  decodeMs: z.number(),
  tokensPerSecond: z.number(),
  device: z.string(),
  model: z.string(),
});
export type GenerationStats = z.infer<typeof GenerationStats>;

export const SummarizeResult = z.object({
  op: z.literal('summarize'),
  summary: z.string(),
  /** The source text exactly as the user selected it; token spans index into it. */
  source: z.string(),
  /** True when the source was longer than the model's input and only its start was used. */
  truncated: z.boolean(),
  /** Characters of `source` that the model read (all of it unless truncated). */
  usedChars: z.number().int(),
  tokens: z.array(AttendedToken),
  topPhrases: z.array(AttendedPhrase),
  topics: z.array(z.object({ id: z.number().int(), words: z.array(z.string()) })),
  stats: GenerationStats,
});
export type SummarizeResult = z.infer<typeof SummarizeResult>;

export const EngineRequest = z.discriminatedUnion('op', [SummarizeRequest]);
export type EngineRequest = z.infer<typeof EngineRequest>;
export const EngineResult = z.discriminatedUnion('op', [SummarizeResult]);
export type EngineResult = z.infer<typeof EngineResult>;
export type ResultFor<R extends EngineRequest> = Extract<EngineResult, { op: R['op'] }>;

// ---- host -> worker ------------------------------------------------------------------------------

export const ToWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('configure'), config: EngineConfig }),
  z.object({ type: z.literal('request'), id: z.number().int(), request: EngineRequest }),
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

// ---- worker -> host ------------------------------------------------------------------------------

export const ErrorCode = z.enum([
  'cancelled',     // the user pressed Cancel
  'bad-input',     // empty, unreadable or otherwise unusable text
  'bad-model',     // a model folder is missing a file, has a corrupt file, or a wrong manifest
  'bad-request',   // a message that failed validation
  'internal',      // anything else: a bug
  'stopped',       // host side: the worker went away (crash, restart, shutdown) before answering
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const FromWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  z.object({ type: z.literal('progress'), id: z.number().int(), message: z.string(), fraction: z.number().min(0).max(1).optional() }),
  z.object({ type: z.literal('partial'), id: z.number().int(), text: z.string() }),
  z.object({ type: z.literal('result'), id: z.number().int(), result: EngineResult }),
  z.object({ type: z.literal('error'), id: z.number().int(), code: ErrorCode, message: z.string() }),
]);
export type FromWorker = z.infer<typeof FromWorker>;

// ---- host <-> insights panel ---------------------------------------------------------------------

export const ToPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('summarize'), result: SummarizeResult }),
  z.object({ type: z.literal('empty'), message: z.string() }),
]);
export type ToPanel = z.infer<typeof ToPanel>;

export const FromPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
]);
export type FromPanel = z.infer<typeof FromPanel>;
