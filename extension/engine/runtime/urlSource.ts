/**
 * Draftsmith model folders from a URL (draftsmith.modelsUrl, the CLI's
 * --models-url): <base>/<name>/model.json and the files it lists, as models/train exports them. A
 * larger model trained on a GPU then reaches users without entering git. Each folder is downloaded
 * once into the cache (<cacheDir>/urls/<hash of the base>/<name>), every file checked against the
 * manifest's sha256 as it arrives; only a complete, checked folder is moved into place (a cancelled,
 * failed or wrong download leaves nothing there), and from then on it loads offline like any folder.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CancelledError, EngineError, errorMessage } from '../errors';
import { holdTemporary, sweepTemporaries } from '../hub/cacheTemporaries';
import { DownloadAborted, watchedFetch } from '../hub/hubFetch';
import type { LoadWatch } from '../hub/hubModel';
import { Manifest } from './manifest';
import type { ModelSource } from './modelSource';

export interface UrlSourceOptions {
  cacheDir: string;
  offline: boolean;
  stallMs: number;
  log(message: string): void;
}

const MB = 1024 * 1024;

/** The folder a base URL's models are kept in: one per base, so two servers' "summarize" never mix. */
export function urlCacheFolder(base: string, cacheDir: string): string {
  return path.join(cacheDir, 'urls', createHash('sha256').update(base).digest('hex').slice(0, 16));
}

export function urlModels(base: string, opts: UrlSourceOptions, watch: LoadWatch): ModelSource {
  const root = base.endsWith('/') ? base : `${base}/`;
  return {
    label: root,
    async folder(name) {
      const dest = path.join(urlCacheFolder(root, opts.cacheDir), name);
      if (existsSync(path.join(dest, 'model.json'))) return dest;
      if (opts.offline) {
        throw new EngineError(
          'model-unavailable',
          `The ${name} model from ${root} has not been downloaded, and downloads are off ` +
            `(draftsmith.hub.offline, or --offline).`,
        );
      }
      const temporary = holdTemporary(dest);
      const part = temporary.path;
      sweepTemporaries(opts.cacheDir);
      try {
        await download(new URL(`${name}/`, root).href, name, part, opts, watch);
        await fs.mkdir(path.dirname(dest), { recursive: true });
        // Another load may have finished the same folder meanwhile: then its copy stays.
        if (existsSync(dest)) await fs.rm(part, { recursive: true, force: true });
        else await fs.rename(part, dest);
        return dest;
      } catch (e) {
        await fs.rm(part, { recursive: true, force: true });
        if (e instanceof DownloadAborted) throw e.reason;
        if (e instanceof EngineError) throw e;
        throw new EngineError(
          'model-unavailable',
          `The ${name} model could not be downloaded from ${root}: ` +
            `${errorMessage(e)}${e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : ''}`,
        );
      } finally {
        temporary.release();
      }
    },
  };
}

async function download(
  folderUrl: string,
  name: string,
  into: string,
  opts: UrlSourceOptions,
  watch: LoadWatch,
): Promise<void> {
  const get = watchedFetch({ isCancelled: () => watch.isCancelled(), stallMs: opts.stallMs, log: opts.log });
  const manifestUrl = new URL('model.json', folderUrl).href;
  const res = await get(manifestUrl);
  if (res.status === 404)
    throw new EngineError('model-unavailable', `There is no ${name} model at ${folderUrl} (${manifestUrl}: 404).`);
  if (!res.ok) throw new EngineError('model-unavailable', `${manifestUrl} answered ${res.status} ${res.statusText}.`);
  const manifestText = await res.text();
  let manifest: Manifest;
  try {
    manifest = Manifest.parse(JSON.parse(manifestText));
  } catch (e) {
    throw new EngineError(
      'bad-model',
      `${manifestUrl} is not a Draftsmith model.json: ${errorMessage(e).split('\n')[0]}`,
    );
  }
  // Every file the folder needs, each with its hash: nothing unchecked is written.
  const files = [...new Set([...Object.values(manifest.files), ...Object.keys(manifest.sha256)])];
  for (const f of files) {
    if (!manifest.sha256[f])
      throw new EngineError('bad-model', `${manifestUrl}: sha256 lists no hash for ${f}; every model file needs one.`);
    if (path.isAbsolute(f) || f.split(/[\\/]/).includes('..'))
      throw new EngineError('bad-model', `${manifestUrl}: ${f} is outside the model folder.`);
  }
  await fs.mkdir(into, { recursive: true });
  let done = 0;
  for (const [i, f] of files.entries()) {
    const url = new URL(f, folderUrl).href;
    const r = await get(url);
    if (!r.ok || !r.body) throw new EngineError('model-unavailable', `${url} answered ${r.status} ${r.statusText}.`);
    const total = Number(r.headers.get('content-length') ?? 0);
    const target = path.join(into, f);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const hash = createHash('sha256');
    const out = createWriteStream(target);
    let got = 0;
    let lastReport = 0;
    try {
      const reader = r.body.getReader();
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        hash.update(value);
        got += value.length;
        if (!out.write(value)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        if (got - lastReport > MB / 2 || got === total) {
          lastReport = got;
          watch.progress(
            `Downloading the ${name} model: file ${i + 1} of ${files.length}, ${((done + got) / MB).toFixed(1)} MB`,
            total ? Math.min(1, (i + got / total) / files.length) : i / files.length,
          );
        }
      }
    } finally {
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
    if (watch.isCancelled()) throw new CancelledError();
    done += got;
    const actual = hash.digest('hex');
    if (actual !== manifest.sha256[f]) {
      throw new EngineError(
        'bad-model',
        `${url} does not match its model.json: sha256 ${actual.slice(0, 12)}…, expected ` +
          `${manifest.sha256[f].slice(0, 12)}…. Nothing of the ${name} model was kept.`,
      );
    }
  }
  await fs.writeFile(path.join(into, 'model.json'), manifestText);
  opts.log(
    `downloaded the ${name} model from ${folderUrl}: ${files.length} files, ${(done / MB).toFixed(1)} MB, ` +
      `every sha256 checked`,
  );
}
