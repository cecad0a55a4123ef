/**
 * What the download cache holds, for Manage Models: each downloaded repository (a folder with a
 * config.json under <cacheDir>/<owner>/<name>[/<revision>]) with its size; deleting one; and
 * importing a model folder copied from another machine, so that a machine without network can
 * run a Hub model by its id.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { EngineError } from '../errors';
import { holdTemporary } from './cacheTemporaries';
import { checkedRepoPath } from './repoListing';

export interface DownloadedModel {
  /** owner/name */
  id: string;
  /** The pinned revision, where the download is kept per revision. */
  revision?: string;
  dir: string;
  bytes: number;
  files: number;
  /**
   * Its files' count, bytes and latest change: a measurement of the folder (Manage Models) holds only
   * while this is unchanged.
   */
  stamp: string;
}

function sizeOf(dir: string): { bytes: number; files: number; stamp: string } {
  let bytes = 0;
  let files = 0;
  let latest = 0;
  const walk = (d: string, depth: number) => {
    if (depth > 6) return;
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p, depth + 1);
      else if (st.isFile()) {
        bytes += st.size;
        files++;
        latest = Math.max(latest, st.mtimeMs);
      }
    }
  };
  walk(dir, 0);
  return { bytes, files, stamp: `${files}:${bytes}:${Math.round(latest)}` };
}

const isModel = (dir: string) => existsSync(path.join(dir, 'config.json'));
const subfolders = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir).filter((n) => !n.startsWith('.') && lstatSync(path.join(dir, n)).isDirectory())
    : [];

/** Every model in the cache, largest first. */
export function downloadedModels(cacheDir: string): DownloadedModel[] {
  const out: DownloadedModel[] = [];
  for (const owner of subfolders(cacheDir)) {
    for (const name of subfolders(path.join(cacheDir, owner))) {
      const dir = path.join(cacheDir, owner, name);
      const id = `${owner}/${name}`;
      if (isModel(dir)) out.push({ id, dir, ...sizeOf(dir) });
      for (const revision of subfolders(dir)) {
        const rdir = path.join(dir, revision);
        if (revision !== 'onnx' && isModel(rdir)) out.push({ id, revision, dir: rdir, ...sizeOf(rdir) });
      }
    }
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

/** Removes one downloaded model; refuses anything that is not a model folder inside the cache. */
export function deleteDownloaded(cacheDir: string, dir: string): void {
  const rel = path.relative(path.resolve(cacheDir), path.resolve(dir));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel) || !isModel(dir))
    throw new EngineError('bad-input', `${dir} is not a downloaded model in ${cacheDir}`);
  rmSync(dir, { recursive: true, force: true });
  // The owner's folder goes too once empty.
  const owner = path.dirname(path.resolve(dir));
  if (owner !== path.resolve(cacheDir) && existsSync(owner) && readdirSync(owner).length === 0)
    rmSync(owner, { recursive: true });
}

/**
 * Copies a model folder (config.json, tokenizer files, onnx/) into the cache as `id`, so that it
 * loads by its id offline. The id must be owner/name; an existing download of it is replaced only
 * once the copy is complete.
 */
export function importFolder(cacheDir: string, source: string, id: string): DownloadedModel {
  if (!/^[\w.-]+\/[\w.-]+$/.test(id) || id.split('/').some((p) => p === '.' || p === '..'))
    throw new EngineError('bad-input', `"${id}" is not a Hub id (owner/name)`);
  checkedRepoPath(id, id);
  if (!isModel(source) || !existsSync(path.join(source, 'onnx')))
    throw new EngineError(
      'bad-input',
      `${source} has no config.json and onnx/ folder: not a model in transformers.js's layout`,
    );
  const dir = path.join(cacheDir, id);
  const tmp = holdTemporary(dir);
  try {
    cpSync(source, tmp.path, { recursive: true, dereference: true });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    renameSync(tmp.path, dir);
  } catch (e) {
    rmSync(tmp.path, { recursive: true, force: true });
    throw e;
  } finally {
    tmp.release();
  }
  return { id, dir, ...sizeOf(dir) };
}
