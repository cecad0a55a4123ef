/**
 * The fetch every Hub request goes through (the listing, each file, and transformers.js's env.fetch):
 * Node's fetch, made cancellable and bounded. A download the user cancels, or that receives nothing
 * for `stallMs` (a server that stops answering), is aborted; the downloader then deletes its
 * temporary file, so nothing half-written is ever used.
 *
 * Redirects are followed here, not by fetch, and only within the endpoint's own site: the same host,
 * or for huggingface.co the hosts of its own CDN (huggingface.co answers a file in Git LFS with a 302
 * to cdn-lfs.hf.co or cas-bridge.xethub.hf.co). A redirect elsewhere, or from https to http, is
 * refused: it would let a host the user never named choose the bytes Draftsmith writes. An access
 * token (HF_TOKEN, as transformers.js sends it) goes to huggingface.co itself, never along a redirect.
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
const MAX_REDIRECTS = 5;

/** The Hub's own hosts: the site and its CDN. */
const isHubHost = (host: string) => /(^|\.)(huggingface\.co|hf\.co)$/i.test(host);

/** Whether a redirect from `from` may be followed to `to`. */
export function redirectAllowed(from: URL, to: URL): boolean {
  if (from.protocol === 'https:' && to.protocol !== 'https:') return false;
  if (to.protocol !== 'https:' && to.protocol !== 'http:') return false;
  if (to.host === from.host) return true;
  return isHubHost(from.hostname) && isHubHost(to.hostname) && to.protocol === 'https:';
}

/** The access token for `url`: HF_TOKEN, for huggingface.co's own hosts only. */
function authorization(url: URL): string | undefined {
  const token = process.env.HF_TOKEN ?? process.env.HF_ACCESS_TOKEN;
  return token && isHubHost(url.hostname) ? `Bearer ${token}` : undefined;
}

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
    let at = new URL(url);
    let response: Response | undefined;
    for (let hop = 0; ; hop++) {
      const headers = new Headers(init?.headers);
      headers.delete('authorization');
      const auth = hop === 0 ? authorization(at) : undefined;
      if (auth) headers.set('Authorization', auth);
      const here = at;
      response = await watched(() => fetch(here, { ...init, headers, redirect: 'manual', signal: controller.signal }));
      watch.log?.(`GET ${here.href} -> ${response.status}`);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) break;
      await response.body?.cancel().catch(() => undefined);
      const next = new URL(location, here);
      if (!redirectAllowed(here, next)) {
        throw new EngineError(
          'model-unavailable',
          `${here.host} redirected the download of ${url} to ${next.protocol}//${next.host}, another site; ` +
            `Draftsmith follows redirects only within ` +
            `${here.host}${isHubHost(here.hostname) ? " and the Hub's CDN" : ''}.`,
        );
      }
      if (hop >= MAX_REDIRECTS) {
        throw new EngineError(
          'model-unavailable',
          `The download of ${url} was redirected more than ${MAX_REDIRECTS} times.`,
        );
      }
      at = next;
    }
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
