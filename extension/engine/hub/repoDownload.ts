/**
 * Downloads the files chosen from a listing into a model's cache folder, each checked before it is
 * kept: never more bytes than the listing gives (whatever the server's headers say), exactly that
 * many, the sha256 the listing gives (files in Git LFS), and JSON that parses. A file is written
 * under a temporary name and renamed only once it passed; anything else leaves nothing behind.
 * Nothing is ever written outside the cache folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, statfsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { CancelledError, EngineError, errorMessage } from '../errors';
import { isJsonFile, megabytes, type ListedFile } from './fileChoice';
import { holdTemporary } from './cacheTemporaries';
import { DownloadAborted } from './hubFetch';
import { checkedRepoPath, hubRefusal, LISTING_FILE } from './repoListing';

/** A file that is not what the listing says: the download is refused and the model's files removed. */
export class IntegrityError extends EngineError {
  constructor(message: string) {
    super('bad-model', message);
  }
}

export interface DownloadTarget {
  endpoint: string;
  id: string;
  /** The revision the URLs name: the listing's commit where it gave one. */
  revision: string;
  /** The model's cache folder. */
  dir: string;
  /** The repository in messages. */
  label: string;
}

export interface DownloadWatch {
  isCancelled(): boolean;
  /** Bytes of this download so far, and in all. */
  progress(loaded: number, total: number): void;
}

/** Where `file` lies under `dir`; an EngineError where it would not lie inside it. */
export function localPath(dir: string, file: string, label: string): string {
  const p = path.resolve(dir, ...checkedRepoPath(file, label).split('/'));
  const rel = path.relative(path.resolve(dir), p);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new EngineError('bad-model', `${label} was refused: ${file} would lie outside its cache folder.`);
  }
  return p;
}

/** The files of `files` not yet in `dir` with their listed size. */
export function missingFiles(dir: string, files: readonly ListedFile[], label: string): ListedFile[] {
  return files.filter((f) => {
    const p = localPath(dir, f.path, label);
    return !existsSync(p) || !statSync(p).isFile() || statSync(p).size !== f.size;
  });
}

/** Removes `files` (and the kept listing) from `dir`: after an integrity failure, nothing of the model stays. */
export function removeFiles(dir: string, files: readonly ListedFile[], label: string): void {
  for (const f of files) rmSync(localPath(dir, f.path, label), { force: true });
  rmSync(path.join(dir, LISTING_FILE), { force: true });
}

/** Free bytes where `dir` lies (or its nearest existing parent); Infinity where the platform cannot say. */
function freeBytes(dir: string): number {
  let d = path.resolve(dir);
  while (!existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  try {
    const s = statfsSync(d);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

/**
 * Downloads `files` (those missing) into target.dir through `fetchFn`. Throws IntegrityError for a file
 * that is not what the listing says (after removing what was downloaded of the model), CancelledError,
 * or an EngineError('model-unavailable') for a server or network that failed.
 */
export async function downloadFiles(
  fetchFn: typeof fetch,
  target: DownloadTarget,
  files: readonly ListedFile[],
  watch: DownloadWatch,
  more: {
    /** The model's files, all removed after an integrity failure (default: `files`). */
    model?: readonly ListedFile[];
    /** Bytes of the model this load downloaded before, counted in the progress. */
    done?: number;
  } = {},
): Promise<void> {
  const done = more.done ?? 0;
  const total = done + files.reduce((n, f) => n + f.size, 0);
  const free = freeBytes(target.dir);
  if (free < total - done) {
    throw new EngineError(
      'model-unavailable',
      `${target.label} needs ${megabytes(total - done)} MB in ${target.dir}, and only ${megabytes(free)} MB ` +
        `are free there.`,
    );
  }
  let before = done;
  watch.progress(before, total);
  for (const f of files) {
    try {
      await downloadOne(fetchFn, target, f, (n) => watch.progress(before + n, total), watch);
    } catch (e) {
      if (e instanceof IntegrityError) removeFiles(target.dir, more.model ?? files, target.label);
      throw e;
    }
    before += f.size;
  }
}

function fileUrl(target: DownloadTarget, file: string): string {
  const base = target.endpoint.endsWith('/') ? target.endpoint : `${target.endpoint}/`;
  const encodedFile = file.split('/').map(encodeURIComponent).join('/');
  return `${base}${target.id}/resolve/${encodeURIComponent(target.revision)}/${encodedFile}`;
}

async function downloadOne(
  fetchFn: typeof fetch,
  target: DownloadTarget,
  f: ListedFile,
  progress: (loaded: number) => void,
  watch: DownloadWatch,
): Promise<void> {
  const { label } = target;
  const dest = localPath(target.dir, f.path, label);
  const response = await fetchFn(fileUrl(target, f.path));
  const refused = hubRefusal(response, label, target.endpoint, f.path);
  if (refused || response.status !== 200 || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw (
      refused ??
      new EngineError(
        'model-unavailable',
        `The Hub could not send ${label}: ${response.status} ${response.statusText} (${f.path}).`,
      )
    );
  }
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) !== f.size) {
    await response.body.cancel().catch(() => undefined);
    throw new IntegrityError(
      `${label} was refused: the server sends ${f.path} as ${declared} bytes, and the listing says ${f.size}. ` +
        `Nothing of it was kept.`,
    );
  }
  mkdirSync(path.dirname(dest), { recursive: true });
  const temporary = holdTemporary(dest);
  const tmp = temporary.path;
  // A file handle, every write awaited: nothing of the file is written after a failure was handled.
  const out = await open(tmp, 'wx').catch((e: unknown) => {
    temporary.release();
    throw e;
  });
  const hash = createHash('sha256');
  let n = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > f.size) {
        await reader.cancel().catch(() => undefined);
        throw new IntegrityError(
          `${label} was refused: the server sent more of ${f.path} than the ${f.size} bytes the listing gives. ` +
            `Nothing of it was kept.`,
        );
      }
      hash.update(value);
      await out.write(value);
      progress(n);
      if (watch.isCancelled()) {
        await reader.cancel().catch(() => undefined);
        throw new CancelledError();
      }
    }
    await out.close();
    if (n !== f.size) {
      throw new IntegrityError(
        `${label} was refused: ${f.path} came with ${n} bytes, and the listing says ${f.size}. Nothing of it was kept.`,
      );
    }
    const sha = hash.digest('hex');
    if (f.sha256 && sha !== f.sha256) {
      throw new IntegrityError(
        `${label} was refused: ${f.path} has sha256 ${sha}, and the listing says ${f.sha256}. Nothing of it was kept.`,
      );
    }
    if (isJsonFile(f.path)) {
      try {
        JSON.parse(readFileSync(tmp, 'utf8'));
      } catch (e) {
        throw new IntegrityError(
          `${label} was refused: its ${f.path} is not JSON (${errorMessage(e).split('\n')[0]}). Nothing of it ` +
            `was kept.`,
        );
      }
    }
    renameSync(tmp, dest);
  } catch (e) {
    await out.close().catch(() => undefined);
    rmSync(tmp, { force: true });
    if (e instanceof DownloadAborted) throw e.reason;
    throw e;
  } finally {
    temporary.release();
  }
}
