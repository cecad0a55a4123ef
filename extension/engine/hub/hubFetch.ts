/**
 * The fetch transformers.js downloads with (its env.fetch): Node's fetch, made cancellable and
 * bounded. A download the user cancels, or that receives nothing for `stallMs` (a server that stops
 * answering), is aborted; transformers.js's file cache then deletes its temporary file (it writes
 * <file>.tmp.* and renames only a complete download), so nothing half-written is ever used.
 */
import { CancelledError, EngineError } from '../errors';

export interface FetchWatch {
  /** True once the user has cancelled the request that is downloading. */
  isCancelled(): boolean;
  /** Nothing received for this long: the download fails. */
  stallMs: number;
  /** Every request made, for the logs ("GET <url> -> 200"). */
  log?(message: string): void;
}

/** Why the last download was aborted (the abort reason Node's fetch reports is not always ours). */
export class DownloadAborted extends Error {
  constructor(readonly reason: CancelledError | EngineError) {
    super(reason.message);
  }
}

const POLL_MS = 100;

export function watchedFetch(watch: FetchWatch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const controller = new AbortController();
    let reason: CancelledError | EngineError | undefined;
    const abort = (r: CancelledError | EngineError) => {
      if (reason) return;
      reason = r;
      controller.abort(r);
    };
    /**
     * Runs `wait` (the headers, or one chunk of the body) under the watch: a cancel, or nothing for
     * stallMs, aborts it. The watch runs only while someone waits: a response whose body is never
     * read (a 404, a size probe) leaves no timer behind.
     */
    const watched = async <T>(wait: () => Promise<T>): Promise<T> => {
      const since = Date.now();
      const timer = setInterval(() => {
        if (watch.isCancelled()) abort(new CancelledError());
        else if (Date.now() - since > watch.stallMs) {
          abort(
            new EngineError(
              'model-unavailable',
              `The download of ${url} stopped: nothing received for ${Math.round(watch.stallMs / 1000)} s.`,
            ),
          );
        }
      }, POLL_MS);
      try {
        return await wait();
      } catch (e) {
        throw reason ? new DownloadAborted(reason) : e;
      } finally {
        clearInterval(timer);
      }
    };
    const response = await watched(() => fetch(input, { ...init, signal: controller.signal }));
    watch.log?.(`GET ${url} -> ${response.status}`);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        const { done, value } = await watched(() => reader.read());
        if (done) return c.close();
        if (watch.isCancelled()) abort(new CancelledError());
        if (reason) throw new DownloadAborted(reason);
        c.enqueue(value);
      },
      cancel(r) {
        return reader.cancel(r);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
