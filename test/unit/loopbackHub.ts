/**
 * A loopback Hugging Face Hub for the tests: an HTTP server on 127.0.0.1 that serves
 * model repositories from local folders in the Hub's URL layout, <endpoint>/<owner>/<name>/resolve/
 * <revision>/<file>, so that transformers.js's real download and cache code runs against it. Each
 * file can be made to fail as real servers do: 404, 500, a body cut off mid-way (the connection
 * closed early), a server that stops answering, or a slow one (to cancel mid-download).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as path from 'node:path';
import { repoRoot } from './helpers';
import { listenLoopback } from './loopbackServer';

/** How the server answers a file: normally, or one of the ways downloads fail. */
export type Behaviour = 'ok' | '404' | '500' | 'truncate' | 'stall' | { slowBytesPerSecond: number };

export interface LoopbackHub {
  /** The endpoint to configure (HubConfig.endpoint), with its trailing slash. */
  endpoint: string;
  /** Every request's path, in order. */
  requests: string[];
  /** How each file is answered: by "owner/name/file" (or "*" for all); default 'ok'. */
  behave: Map<string, Behaviour>;
  /** Stops accepting and drops open connections (a server that went away). */
  close(): Promise<void>;
}

/** The repositories our tests serve: this project's own models in transformers.js's layout. */
export const HUB_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'hub');
export const STORY_LM = 'draftsmith/story-gpt2';
/** Its weights: int8-stored, float32-computed, so transformers.js's "fp32" file (the engine asks for the q8 file first, which 404s). */
export const STORY_LM_WEIGHTS = 'onnx/model.onnx';
/** A tiny TAAS exported in BART's seq2seq layout (models/train/draftsmith_train/export_peer.py --hub-layout). */
export const SUMMARIZER = 'draftsmith/summarize-taas';

export async function startLoopbackHub(root = HUB_FIXTURES): Promise<LoopbackHub> {
  const requests: string[] = [];
  const behave = new Map<string, Behaviour>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = decodeURIComponent((req.url ?? '').split('?')[0]);
    requests.push(url);
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url);
    if (!m) return void res.writeHead(404).end('not a resolve URL');
    const [, owner, name, , file] = m;
    const key = `${owner}/${name}/${file}`;
    const how = behave.get(key) ?? behave.get('*') ?? 'ok';
    const local = path.join(root, owner, name, file);
    if (how === '404' || !local.startsWith(root) || !existsSync(local) || !statSync(local).isFile()) {
      return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Entry not found');
    }
    if (how === '500') return void res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal Error');
    const size = statSync(local).size;
    res.writeHead(200, { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream' });
    if (how === 'stall') {
      // The headers, a first chunk, then nothing: the connection stays open.
      createReadStream(local, { start: 0, end: Math.min(size, 1024) - 1 }).on('data', (c) => res.write(c));
      return;
    }
    if (how === 'truncate') {
      // Half the file, then the connection closes: fewer bytes than Content-Length promised.
      createReadStream(local, { start: 0, end: Math.floor(size / 2) })
        .on('data', (c) => res.write(c))
        .on('end', () => res.destroy());
      return;
    }
    if (typeof how === 'object') {
      const chunk = Math.max(1, Math.floor(how.slowBytesPerSecond / 20));
      let at = 0;
      const fd = require('node:fs').readFileSync(local) as Buffer;
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        res.write(fd.subarray(at, at + chunk));
        at += chunk;
        if (at >= size) {
          clearInterval(tick);
          res.end();
        }
      }, 50);
      res.on('close', () => clearInterval(tick));
      return;
    }
    createReadStream(local).pipe(res);
  });
  const { endpoint, close } = await listenLoopback(server);
  return { endpoint, requests, behave, close };
}
