/**
 * A loopback Hugging Face Hub for the tests: an HTTP server on 127.0.0.1 that answers as
 * huggingface.co does, so that Draftsmith's listing, download and cache code runs against it:
 *
 * - `GET /api/models/<owner>/<name>[/revision/<rev>][?blobs=true]`: the model API, `sha` and
 *   `siblings` (with `blobs=true`: `size`, `blobId`, and `lfs: {size, sha256, pointerSize}` for files
 *   in Git LFS: the graphs, their external weights, anything over 10 MB);
 * - `GET /<owner>/<name>/resolve/<rev>/<file>`: the file, or for a file in LFS larger than
 *   `largeFileBytes` a 302 to `/cdn-lfs/<token>` on the same server (as the Hub sends LFS files to its
 *   CDN), which serves the bytes; `Range` → 206 with Content-Range;
 * - 401 `X-Error-Code: RepoNotFound` for an unknown or private repository, 401 `GatedRepo` for a
 *   gated one's files (its listing answers, as the Hub's does), 404 `RevisionNotFound` for an unknown
 *   revision, 404 `EntryNotFound` for a file an existing repository lacks.
 *
 * Repositories: the folders `<root>/<owner>/<name>/` (this project's exports), the mirrors of the
 * recommended models (`test/fixtures/hub-mirrors/<owner>/<name>.json`: the listing of the pinned
 * revision, served with its sizes; config.json from its `config`, every other file as filler bytes of
 * the listed size), and any a test adds to `repos`. Each file can be made to fail as real or hostile
 * servers do (`behave`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { repoRoot } from './helpers';
import { listenLoopback } from './loopbackServer';

/** How the server answers a file: normally, or one of the ways downloads fail. */
export type Behaviour =
  | 'ok'
  | '404'
  | '500'
  /** Content-Length of the whole file, half of it, then the connection closes. */
  | 'truncate'
  /** The headers and a first chunk, then nothing, the connection open. */
  | 'stall'
  /** No Content-Length (chunked), the file and then 1 MB more. */
  | 'overlong'
  /** Content-Length of the file, the file, then more bytes on the same connection. */
  | 'overlong-cl'
  /** Content-Length and body both a quarter shorter than the file, ending cleanly. */
  | 'short'
  /** A 302 to the same file on another host (localhost for 127.0.0.1). */
  | 'redirect-away'
  | { slowBytesPerSecond: number }
  /** Other bytes than the listing's file (with their own Content-Length). */
  | { body: Buffer | string };

/** A file of a repository a test makes: its bytes, or a size to fill (never held in memory). */
export type FileSpec = Buffer | string | { size: number; fill?: string };

export interface RepoSpec {
  /** A folder whose files are the repository's. */
  dir?: string;
  /** Files in memory (added to, or in place of, the folder's). */
  files?: Record<string, FileSpec>;
  private?: boolean;
  gated?: boolean;
  /** Names the listing gives that the repository does not serve (hostile listings). */
  extraListing?: { rfilename: string; size: number }[];
  /** Sizes the listing gives in place of the real ones (a listing that lies). */
  listedSizes?: Record<string, number>;
  /** The commit (40 hex); default: a hash of the files. */
  sha?: string;
  /** Other names the repository answers to as revisions (besides 'main' and a prefix of the commit). */
  revisions?: string[];
  /** The model API's `config` field. */
  config?: Record<string, unknown>;
}

export interface LoopbackHub {
  /** The endpoint to configure (HubConfig.endpoint), with its trailing slash. */
  endpoint: string;
  /** Every request's path (without its query), in order. */
  requests: string[];
  /** How each file is answered: by "owner/name/file" (or "*" for all); default 'ok'. */
  behave: Map<string, Behaviour>;
  /** Repositories by id, beyond (or over) the folders under the root and the mirrors. */
  repos: Map<string, RepoSpec>;
  /** Bytes of file bodies sent, per repository id. */
  sent: Map<string, number>;
  /** The repository's listing as the model API gives it (blobs=true). */
  listing(id: string): Promise<ApiListing | undefined>;
  /** Stops accepting and drops open connections (a server that went away). */
  close(): Promise<void>;
}

export interface ApiListing {
  id: string;
  sha: string;
  siblings: {
    rfilename: string;
    size: number;
    blobId: string;
    lfs?: { size: number; sha256: string; pointerSize: number };
  }[];
}

/** The repositories our tests serve: this project's own models in transformers.js's layout. */
export const HUB_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'hub');
/** The listings of the recommended models' pinned revisions (extension/host/recommendedModels.ts). */
export const HUB_MIRRORS = path.join(repoRoot, 'test', 'fixtures', 'hub-mirrors');
export const STORY_LM = 'draftsmith/story-gpt2';
/** Its weights: int8-stored, float32-computed, so transformers.js's "fp32" file (the only graph it has). */
export const STORY_LM_WEIGHTS = 'onnx/model.onnx';
/** A tiny TAAS exported in BART's seq2seq layout (models/train/draftsmith_train/export_peer.py --hub-layout). */
export const SUMMARIZER = 'draftsmith/summarize-taas';

export interface LoopbackOptions {
  /** Folder of `<owner>/<name>/` repositories (default HUB_FIXTURES). */
  root?: string;
  /** Folder of mirror listings (default HUB_MIRRORS). */
  mirrors?: string;
  /** LFS files larger than this are redirected to the CDN path (default 1 MB). */
  largeFileBytes?: number;
}

interface Content {
  size: number;
  /** Bytes [start, end] (inclusive). */
  read(start: number, end: number): Readable;
  bytes(): Buffer;
}

const LFS_OVER = 10 * 1024 * 1024;
const isLfs = (file: string, size: number) => /\.onnx(_data(_\d+)?|\.data)?$/.test(file) || size > LFS_OVER;

function bufferContent(b: Buffer): Content {
  return { size: b.length, read: (s, e) => Readable.from([b.subarray(s, e + 1)]), bytes: () => b };
}

function fillContent(size: number, fill: string): Content {
  const unit = Buffer.alloc(64 * 1024, fill);
  return {
    size,
    read(s, e) {
      let at = s;
      return new Readable({
        read() {
          if (at > e) return void this.push(null);
          const n = Math.min(unit.length, e - at + 1);
          at += n;
          this.push(unit.subarray(0, n));
        },
      });
    },
    bytes: () => Buffer.alloc(size, fill),
  };
}

function fileContent(file: string): Content {
  const size = statSync(file).size;
  let cached: Buffer | undefined;
  const bytes = () => (cached ??= readFileSync(file));
  return { size, read: (s, e) => Readable.from([bytes().subarray(s, e + 1)]), bytes };
}

/** Every file under `dir`, relative with forward slashes (hidden ones left out). */
function walk(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    if (d.name.startsWith('.')) return [];
    const r = rel ? `${rel}/${d.name}` : d.name;
    return d.isDirectory() ? walk(dir, r) : d.isFile() ? [r] : [];
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const gitBlobId = (b: Buffer) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${b.length}\0`), b]))
    .digest('hex');

export async function startLoopbackHub(options: string | LoopbackOptions = {}): Promise<LoopbackHub> {
  const opts: LoopbackOptions = typeof options === 'string' ? { root: options } : options;
  const root = opts.root ?? HUB_FIXTURES;
  const mirrors = opts.mirrors ?? HUB_MIRRORS;
  const largeFileBytes = opts.largeFileBytes ?? 1024 * 1024;
  const requests: string[] = [];
  const behave = new Map<string, Behaviour>();
  const repos = new Map<string, RepoSpec>();
  const sent = new Map<string, number>();
  /** CDN tokens to the file they serve. */
  const cdn = new Map<string, { id: string; file: string }>();
  let port = 0;

  /** The repository `id`: a test's, a folder under the root, or a mirror. */
  function repoOf(id: string): RepoSpec | undefined {
    const spec = repos.get(id);
    if (spec) return spec;
    const [owner, name] = id.split('/');
    if (!owner || !name || owner.startsWith('.') || name.startsWith('.')) return undefined;
    const dir = path.join(root, owner, name);
    if (existsSync(dir) && statSync(dir).isDirectory()) return { dir };
    const mirror = path.join(mirrors, owner, `${name}.json`);
    if (existsSync(mirror)) {
      const m = JSON.parse(readFileSync(mirror, 'utf8')) as {
        revision: string;
        sha?: string;
        config?: Record<string, unknown>;
        configJson?: Record<string, unknown>;
        siblings: { rfilename: string; size: number }[];
      };
      const files: Record<string, FileSpec> = {};
      for (const s of m.siblings) {
        // config.json carries what the engine reads of it (configJson), padded to the listed size.
        const text =
          s.rfilename === 'config.json'
            ? JSON.stringify(m.configJson ?? m.config ?? {})
            : s.rfilename.endsWith('.json')
              ? '{}'
              : '';
        files[s.rfilename] = text ? text + ' '.repeat(Math.max(0, s.size - Buffer.byteLength(text))) : { size: s.size };
      }
      return { files, sha: m.sha, revisions: [m.revision], config: m.config };
    }
    return undefined;
  }

  /** The repository's files, by path. */
  function filesOf(spec: RepoSpec): Map<string, Content> {
    const out = new Map<string, Content>();
    if (spec.dir) for (const f of walk(spec.dir)) out.set(f, fileContent(path.join(spec.dir, f)));
    for (const [f, c] of Object.entries(spec.files ?? {})) {
      out.set(
        f,
        Buffer.isBuffer(c)
          ? bufferContent(c)
          : typeof c === 'string'
            ? bufferContent(Buffer.from(c))
            : fillContent(c.size, c.fill ?? '\0'),
      );
    }
    return out;
  }

  const hashes = new Map<Content, string>();
  async function listing(id: string): Promise<ApiListing | undefined> {
    const spec = repoOf(id);
    if (!spec) return undefined;
    const siblings: ApiListing['siblings'] = [];
    for (const [file, c] of filesOf(spec)) {
      const size = spec.listedSizes?.[file] ?? c.size;
      if (isLfs(file, c.size) && c.size <= 64 * 1024 * 1024) {
        // Large filler files (mirrors) are listed without a sha256: the real one is not known.
        const digest = hashes.get(c) ?? sha256(c.bytes());
        hashes.set(c, digest);
        siblings.push({
          rfilename: file,
          size,
          blobId: gitBlobId(Buffer.from(digest)),
          lfs: { size, sha256: digest, pointerSize: 134 },
        });
      } else {
        siblings.push({
          rfilename: file,
          size,
          blobId: c.size <= 64 * 1024 * 1024 ? gitBlobId(c.bytes()) : '0'.repeat(40),
        });
      }
    }
    for (const x of spec.extraListing ?? []) siblings.push({ ...x, blobId: '0'.repeat(40) });
    siblings.sort((a, b) => a.rfilename.localeCompare(b.rfilename));
    const sha =
      spec.sha ??
      createHash('sha1')
        .update(id + JSON.stringify(siblings))
        .digest('hex');
    return { id, sha, siblings };
  }

  /** Whether `revision` names the repository's one commit. */
  const knows = (spec: RepoSpec, l: ApiListing, revision: string) =>
    revision === 'main' ||
    (revision.length >= 7 && l.sha.startsWith(revision)) ||
    (spec.revisions ?? []).includes(revision);

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    void res
      .writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers })
      .end(JSON.stringify(body));
  const repoNotFound = (res: ServerResponse) =>
    json(
      res,
      401,
      { error: 'Repository not found' },
      { 'X-Error-Code': 'RepoNotFound', 'X-Error-Message': 'Repository not found' },
    );

  const count = (id: string, n: number) => sent.set(id, (sent.get(id) ?? 0) + n);

  /** Sends `c` (or the part `Range` asks for) as `id`'s `file`, as `how` says. */
  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    file: string,
    c: Content,
    how: Behaviour,
  ): void {
    if (how === '500') return void res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal Error');
    if (typeof how === 'object' && 'body' in how) {
      const b = Buffer.from(how.body);
      count(id, b.length);
      return void res
        .writeHead(200, { 'Content-Length': String(b.length), 'Content-Type': 'application/octet-stream' })
        .end(b);
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), c.size - 1) : c.size - 1;
      if (start >= c.size || end < start) {
        return void res.writeHead(416, { 'Content-Range': `bytes */${c.size}` }).end();
      }
      res.writeHead(206, {
        'Content-Length': String(end - start + 1),
        'Content-Range': `bytes ${start}-${end}/${c.size}`,
        'Accept-Ranges': 'bytes',
        'Content-Type': 'application/octet-stream',
      });
      count(id, end - start + 1);
      return void c.read(start, end).pipe(res);
    }
    const size = c.size;
    const counted = (s: Readable) => s.on('data', (chunk: Buffer) => count(id, chunk.length));
    if (how === 'overlong-cl') {
      // Written on the socket itself: Node's server would not send more than its Content-Length.
      const socket = res.socket!;
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n`,
      );
      counted(c.read(0, size - 1))
        .on('data', (chunk: Buffer) => socket.write(chunk))
        .on('end', () => socket.end(Buffer.alloc(1024 * 1024, 'X')));
      return;
    }
    if (how === 'overlong') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      counted(c.read(0, size - 1))
        .on('data', (chunk: Buffer) => res.write(chunk))
        .on('end', () => res.end(Buffer.alloc(1024 * 1024, 'X')));
      return;
    }
    if (how === 'short') {
      const n = Math.floor((size * 3) / 4);
      res.writeHead(200, { 'Content-Length': String(n), 'Content-Type': 'application/octet-stream' });
      return void counted(c.read(0, n - 1)).pipe(res);
    }
    res.writeHead(200, {
      'Content-Length': String(size),
      'Content-Type': 'application/octet-stream',
      'Accept-Ranges': 'bytes',
    });
    if (how === 'stall') {
      counted(c.read(0, Math.min(size, 1024) - 1)).on('data', (chunk: Buffer) => res.write(chunk));
      return;
    }
    if (how === 'truncate') {
      counted(c.read(0, Math.floor(size / 2)))
        .on('data', (chunk: Buffer) => res.write(chunk))
        .on('end', () => res.destroy());
      return;
    }
    if (typeof how === 'object') {
      const all = c.bytes();
      const chunk = Math.max(1, Math.floor(how.slowBytesPerSecond / 20));
      let at = 0;
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        const part = all.subarray(at, at + chunk);
        count(id, part.length);
        res.write(part);
        at += chunk;
        if (at >= size) {
          clearInterval(tick);
          res.end();
        }
      }, 50);
      res.on('close', () => clearInterval(tick));
      return;
    }
    counted(c.read(0, size - 1)).pipe(res);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const [rawPath, query = ''] = (req.url ?? '').split('?');
      const url = decodeURIComponent(rawPath);
      requests.push(url);
      const api = /^\/api\/models\/([^/]+\/[^/]+?)(?:\/revision\/([^/]+))?$/.exec(url);
      if (api) {
        const [, id, revision = 'main'] = api;
        const spec = repoOf(id);
        if (!spec || spec.private) return repoNotFound(res);
        const l = (await listing(id))!;
        if (!knows(spec, l, revision)) {
          return json(res, 404, { error: `Invalid rev id: ${revision}` }, { 'X-Error-Code': 'RevisionNotFound' });
        }
        const blobs = /(^|&)blobs=true(&|$)/.test(query);
        return json(res, 200, {
          _id: l.sha.slice(0, 24),
          id,
          modelId: id,
          sha: l.sha,
          private: false,
          gated: spec.gated ? 'manual' : false,
          disabled: false,
          library_name: 'transformers.js',
          tags: ['transformers.js', 'onnx'],
          ...(spec.config ? { config: spec.config } : {}),
          siblings: blobs ? l.siblings : l.siblings.map((s) => ({ rfilename: s.rfilename })),
        });
      }
      const lfs = /^\/cdn-lfs\/([0-9a-f]+)$/.exec(url);
      if (lfs) {
        const to = cdn.get(lfs[1]);
        const spec = to && repoOf(to.id);
        const c = spec && filesOf(spec).get(to.file);
        if (!to || !c) return void res.writeHead(404).end('Not found');
        const how = behave.get(`${to.id}/${to.file}`) ?? behave.get('*') ?? 'ok';
        return serve(req, res, to.id, to.file, c, how === 'redirect-away' ? 'ok' : how);
      }
      const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url);
      if (!m) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      const [, id, revision, file] = m;
      const spec = repoOf(id);
      if (!spec || spec.private) return repoNotFound(res);
      if (spec.gated) {
        return json(
          res,
          401,
          {
            error: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
          },
          { 'X-Error-Code': 'GatedRepo' },
        );
      }
      const l = (await listing(id))!;
      if (!knows(spec, l, revision)) {
        return json(res, 404, { error: `Invalid rev id: ${revision}` }, { 'X-Error-Code': 'RevisionNotFound' });
      }
      const how = behave.get(`${id}/${file}`) ?? behave.get('*') ?? 'ok';
      const c = filesOf(spec).get(file);
      if (how === '404' || !c) {
        return void res
          .writeHead(404, {
            'Content-Type': 'text/plain',
            'X-Error-Code': 'EntryNotFound',
            'X-Error-Message': 'Entry not found',
          })
          .end('Entry not found');
      }
      const big = isLfs(file, c.size) && c.size > largeFileBytes;
      if (big || how === 'redirect-away') {
        const token = createHash('sha256').update(`${id}\0${file}`).digest('hex');
        cdn.set(token, { id, file });
        const host = how === 'redirect-away' ? `localhost:${port}` : `127.0.0.1:${port}`;
        return void res
          .writeHead(302, { Location: `http://${host}/cdn-lfs/${token}`, 'X-Linked-Size': String(c.size) })
          .end();
      }
      serve(req, res, id, file, c, how);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  const { endpoint, close } = await listenLoopback(server);
  port = Number(new URL(endpoint).port);
  return { endpoint, requests, behave, repos, sent, listing, close };
}
