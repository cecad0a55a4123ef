/**
 * A repository's file listing: names, sizes and (for files in Git LFS) sha256, from the Hub's model
 * API (`GET <endpoint>api/models/<id>/revision/<revision>?blobs=true`, the request huggingface_hub's
 * `model_info(files_metadata=True)` makes), from the copy kept beside a download, or from a local
 * folder's files. Every path in it is checked before anything else reads it: a listing that names a
 * path outside the repository (`..`, an absolute path, a backslash) is refused as a whole.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { EngineError } from '../errors';
import { holdTemporary } from './cacheTemporaries';
import type { ListedFile } from './fileChoice';

/** What the model API answers (the fields Draftsmith reads; the real answer has many more). */
const ApiSibling = z.object({
  rfilename: z.string(),
  size: z.number().int().nonnegative().optional(),
  blobId: z.string().optional(),
  lfs: z
    .object({
      size: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      pointerSize: z.number().int().optional(),
    })
    .optional(),
});
export const ApiModelInfo = z.object({
  id: z.string().optional(),
  sha: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  private: z.boolean().optional(),
  gated: z.union([z.literal(false), z.string()]).optional(),
  siblings: z.array(ApiSibling).max(100_000),
});
export type ApiModelInfo = z.infer<typeof ApiModelInfo>;

/** A listing as Draftsmith keeps it. */
export const RepoListing = z.object({
  id: z.string(),
  /** The revision asked for (a branch, a tag or a commit). */
  revision: z.string(),
  /** The commit it resolved to, where the server said: downloads ask for this one. */
  sha: z.string().optional(),
  /** Gated on the Hub ('auto', 'manual'): its files need an accepted licence and a token. */
  gated: z.string().optional(),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string().optional() })),
});
export type RepoListing = z.infer<typeof RepoListing>;

/**
 * `p` when it is a plain relative path inside a repository; an EngineError naming it otherwise.
 * Refused: empty, absolute (`/x`, `C:x`), a backslash, an empty, `.` or `..` segment, control
 * characters.
 */
export function checkedRepoPath(p: string, label: string): string {
  const why =
    p.length === 0 || p.length > 1000
      ? 'an empty or overlong path'
      : p.startsWith('/') || /^[A-Za-z]:/.test(p)
        ? 'an absolute path'
        : p.includes('\\')
          ? 'a backslash'
          : [...p].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)
            ? 'a control character'
            : p.split('/').some((s) => s === '' || s === '.' || s === '..')
              ? 'a path outside the repository'
              : undefined;
  if (why) {
    throw new EngineError(
      'bad-model',
      `${label} was refused: its file listing names ${JSON.stringify(p)}, ${why}. Nothing of it was downloaded.`,
    );
  }
  return p;
}

/** The listing in an API answer, every path checked, sizes required. */
export function listingFromApi(json: unknown, id: string, revision: string, label: string): RepoListing {
  const parsed = ApiModelInfo.safeParse(json);
  if (!parsed.success) {
    throw new EngineError(
      'model-unavailable',
      `The Hub's answer for ${label} is not a model listing (${parsed.error.issues[0]?.message ?? 'unreadable'}).`,
    );
  }
  const seen = new Set<string>();
  const files: ListedFile[] = [];
  for (const s of parsed.data.siblings) {
    const p = checkedRepoPath(s.rfilename, label);
    if (seen.has(p)) throw new EngineError('bad-model', `${label} was refused: its file listing names ${p} twice.`);
    seen.add(p);
    const size = s.lfs?.size ?? s.size;
    if (size === undefined) {
      throw new EngineError(
        'model-unavailable',
        `The Hub's listing of ${label} gives no size for ${p} (the server does not answer blobs=true).`,
      );
    }
    files.push({ path: p, size, ...(s.lfs ? { sha256: s.lfs.sha256 } : {}) });
  }
  const gated = parsed.data.gated;
  return {
    id,
    revision,
    ...(parsed.data.sha ? { sha: parsed.data.sha } : {}),
    ...(typeof gated === 'string' ? { gated } : {}),
    files,
  };
}

/** The model API's address for a listing with sizes. */
export function listingUrl(endpoint: string, id: string, revision: string): string {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  return `${base}api/models/${id}/revision/${encodeURIComponent(revision)}?blobs=true`;
}

/** The most bytes a listing's answer may have (a repository of 100,000 files is about 20 MB). */
export const MAX_LISTING_BYTES = 32 * 1024 * 1024;

/** What an error answer of the Hub means, in words, with the id; undefined for an answer that is not an error. */
export function hubRefusal(
  response: { status: number; statusText?: string; headers: { get(name: string): string | null } },
  label: string,
  endpoint: string,
  what: string,
): EngineError | undefined {
  const code = response.headers.get('x-error-code');
  const status = response.status;
  if (status < 400) return undefined;
  if (code === 'GatedRepo') {
    return new EngineError(
      'model-unavailable',
      `${label} is gated at ${endpoint}: its files need its licence accepted on the Hub and an access token ` +
        `(HF_TOKEN).`,
    );
  }
  if (code === 'RepoNotFound' || (status === 401 && code === null)) {
    return new EngineError(
      'model-unavailable',
      `${label} was not found at ${endpoint}, or it is private or gated (its files need an access token, HF_TOKEN).`,
    );
  }
  if (code === 'RevisionNotFound') {
    return new EngineError('model-unavailable', `${label}: ${endpoint} has no such revision of it.`);
  }
  if (code === 'EntryNotFound') {
    return new EngineError('model-unavailable', `${label} was not found at ${endpoint}, or has no ${what}.`);
  }
  if (status === 404) {
    return new EngineError(
      'model-unavailable',
      `${label} was not found at ${endpoint}, or the server has no model API (${what}), which Draftsmith reads ` +
        `to choose the files to download.`,
    );
  }
  const text = response.headers.get('x-error-message') ?? response.statusText ?? '';
  return new EngineError(
    'model-unavailable',
    `The Hub could not send ${label}: ${`${status} ${text}`.trim()} (${what}).`,
  );
}

/** Fetches the listing of `id` at `revision` through `fetchFn` (the watched fetch: cancellable, bounded). */
export async function fetchListing(
  fetchFn: typeof fetch,
  endpoint: string,
  id: string,
  revision: string,
  label: string,
): Promise<RepoListing> {
  const url = listingUrl(endpoint, id, revision);
  const response = await fetchFn(url, { headers: { Accept: 'application/json' } });
  const refused = hubRefusal(response, label, endpoint, 'its file listing');
  if (refused) {
    await response.body?.cancel().catch(() => undefined);
    throw refused;
  }
  const text = await readCapped(response, MAX_LISTING_BYTES, `the file listing of ${label}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EngineError('model-unavailable', `The Hub's answer for ${label} is not a model listing (not JSON).`);
  }
  return listingFromApi(json, id, revision, label);
}

/** A response's body as text, refused past `max` bytes. */
async function readCapped(response: Response, max: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw new EngineError('model-unavailable', `${what} was refused: ${declared} bytes, more than ${max}.`);
  }
  const chunks: Uint8Array[] = [];
  let n = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > max) {
        await reader.cancel().catch(() => undefined);
        throw new EngineError('model-unavailable', `${what} was refused: more than ${max} bytes.`);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Where the listing of a download is kept: beside its files, in a name no repository file can take. */
export const LISTING_FILE = '.draftsmith-listing.json';

export function readCachedListing(dir: string, id: string, revision: string): RepoListing | undefined {
  const file = path.join(dir, LISTING_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const listing = RepoListing.parse(JSON.parse(readFileSync(file, 'utf8')));
    if (listing.id !== id || listing.revision !== revision) return undefined;
    for (const f of listing.files) checkedRepoPath(f.path, id);
    return listing;
  } catch {
    // A damaged copy is no listing: the next load online fetches it again.
    rmSync(file, { force: true });
    return undefined;
  }
}

export function writeCachedListing(dir: string, listing: RepoListing): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LISTING_FILE);
  const tmp = holdTemporary(file);
  try {
    writeFileSync(tmp.path, JSON.stringify(listing));
    renameSync(tmp.path, file);
  } finally {
    tmp.release();
  }
}

/**
 * A local folder's files as a listing (for a folder the user chose, or a download cache without a
 * kept listing). Hidden entries and symbolic links are left out; at most 4 levels, 20,000 files.
 */
export function listingOfFolder(dir: string, id: string): RepoListing {
  const files: ListedFile[] = [];
  const walk = (rel: string, depth: number) => {
    if (depth > 4 || files.length > 20_000) return;
    for (const name of readdirSync(path.join(dir, rel))) {
      if (name.startsWith('.')) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, relPath));
      if (st.isDirectory()) walk(relPath, depth + 1);
      else if (st.isFile()) files.push({ path: relPath, size: st.size });
    }
  };
  if (existsSync(dir)) walk('', 0);
  return { id, revision: 'local', files };
}
