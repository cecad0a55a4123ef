/**
 * The host <-> worker channel: requests, cancels and configuration in; progress, partial text,
 * results and errors out.
 */
import { z } from 'zod';
import { EngineConfig } from './config';
import { EngineRequest, EngineResult } from './engine';

/** A download over draftsmith.hub.maxDownloadGB: the model, what it would download, and the limit, in bytes. */
export const DownloadQuestion = z.object({
  model: z.string(),
  bytes: z.number().int().nonnegative(),
  limitBytes: z.number().nonnegative(),
});
export type DownloadQuestion = z.infer<typeof DownloadQuestion>;

export const ToWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('configure'), config: EngineConfig }),
  // The worker runs requests one at a time, in order. `channel`: a newer request of the same channel
  // supersedes this one, which then ends with a 'cancelled' error saying so (inline suggestions want
  // only the latest); requests without one are never superseded.
  z.object({
    type: z.literal('request'),
    id: z.number().int(),
    request: EngineRequest,
    channel: z.string().min(1).max(100).optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
  // The answer to the request's 'confirm-download': whether the user allowed the download.
  z.object({ type: z.literal('download-answer'), id: z.number().int(), allow: z.boolean() }),
  // Before the host terminates the worker thread: cancel everything, refuse new requests, answer
  // 'stopped' once no onnxruntime call is under way (terminating a thread inside one aborts the
  // whole host process).
  z.object({ type: z.literal('stop') }),
  // Tests only: the worker honours it only when started with DRAFTSMITH_TEST_CRASH=1 (env or
  // workerData). 'throw': an uncaught exception; 'exit': process.exit in the worker; 'hang': a
  // busy loop that never answers 'stop'. All three happen in JS between decoding steps.
  z.object({ type: z.literal('crash-for-test'), how: z.enum(['throw', 'exit', 'hang']) }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

// ---- worker -> host ------------------------------------------------------------------------------

export const ErrorCode = z.enum([
  'cancelled', // the user pressed Cancel
  'bad-input', // empty, unreadable or otherwise unusable text
  'bad-model', // a model folder is missing a file, has a corrupt file, or a wrong manifest
  'bad-request', // a message that failed validation
  'internal', // anything else: a bug
  'stopped', // the worker went away (crash, restart, shutdown) before answering, or is stopping
  'time-limit', // host side: the request ran past draftsmith.maxSecondsPerRequest and was stopped
  // a chosen Hub model could not be downloaded (offline, not found, server error, cancelled download)
  'model-unavailable',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const FromWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  // The answer to 'stop': no onnxruntime call is running and none will start; safe to terminate.
  z.object({ type: z.literal('stopped') }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  z.object({
    type: z.literal('progress'),
    id: z.number().int(),
    message: z.string(),
    fraction: z.number().min(0).max(1).optional(),
  }),
  z.object({ type: z.literal('partial'), id: z.number().int(), text: z.string() }),
  // The request's model is a download over the limit: the host asks the user, and answers 'download-answer'.
  z.object({ type: z.literal('confirm-download'), id: z.number().int(), question: DownloadQuestion }),
  z.object({ type: z.literal('result'), id: z.number().int(), result: EngineResult }),
  z.object({ type: z.literal('error'), id: z.number().int(), code: ErrorCode, message: z.string() }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
