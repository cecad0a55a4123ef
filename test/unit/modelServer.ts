/**
 * A loopback server of Draftsmith model folders (draftsmith.modelsUrl): serves a
 * models folder as <endpoint><folder>/<file>, each file answered normally or as a failing server
 * would (404, a body cut off, or the right length with a wrong byte: a file that is not the one
 * model.json's sha256 names).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { listenLoopback } from './loopbackServer';
import * as path from 'node:path';

export type FileBehaviour = 'ok' | '404' | 'truncate' | 'corrupt';

export interface ModelServer {
  endpoint: string;
  requests: string[];
  /** By "<folder>/<file>"; default 'ok'. */
  behave: Map<string, FileBehaviour>;
  close(): Promise<void>;
}

export async function startModelServer(root: string): Promise<ModelServer> {
  const requests: string[] = [];
  const behave = new Map<string, FileBehaviour>();
  const server = createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? '/').split('?')[0]).replace(/^\/+/, '');
    requests.push(rel);
    const file = path.join(root, rel);
    const how = behave.get(rel) ?? 'ok';
    if (how === '404' || !file.startsWith(root) || !existsSync(file) || !statSync(file).isFile())
      return void res.writeHead(404).end('not found');
    const body = readFileSync(file);
    res.writeHead(200, { 'Content-Length': String(body.length), 'Content-Type': 'application/octet-stream' });
    if (how === 'truncate') {
      res.write(body.subarray(0, body.length >> 1));
      return void res.destroy();
    }
    if (how === 'corrupt') {
      const bad = Buffer.from(body);
      bad[bad.length >> 1] ^= 0xff;
      return void res.end(bad);
    }
    res.end(body);
  });
  const { endpoint, close } = await listenLoopback(server);
  return { endpoint, requests, behave, close };
}
