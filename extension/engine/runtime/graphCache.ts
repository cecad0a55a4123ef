/**
 * Model files rewritten once (runtime/graphRewrite.ts) and kept in a cache folder, so that every
 * later load opens the rewritten graph at once. A cached file is used while its source has the size
 * and modification time it had when it was rewritten and the rewrite is this version's with the same
 * options; otherwise it is made again. A file nothing applies to is remembered as such and opened
 * where it is.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { rewriteGraph, type RewriteOptions } from './graphRewrite';

/** Changes whenever a rewrite changes what it writes: every cached file is then made again. */
export const REWRITE_VERSION = 1;

const Stamp = z.object({
  version: z.number(),
  source: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  options: z.object({ outputs: z.boolean(), int8Compute: z.boolean() }),
  /** Whether anything applied: if not, the source is opened itself. */
  rewritten: z.boolean(),
  identitiesRemoved: z.number(),
  int8ComputeNodes: z.number(),
});
export type GraphStamp = z.infer<typeof Stamp>;

/** Where `source`'s rewrite is kept: one name per source path and options. */
export function cachedGraphPath(cacheDir: string, source: string, options: RewriteOptions): string {
  const key = createHash('sha256').update(path.resolve(source)).digest('hex').slice(0, 16);
  const kind = `${options.outputs ? 'o' : ''}${options.int8Compute ? 'i' : ''}`;
  return path.join(cacheDir, `${path.basename(source, '.onnx')}-${key}-${kind}.onnx`);
}

function readStamp(file: string): GraphStamp | undefined {
  try {
    const parsed = Stamp.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file to open for `source`: its rewrite in `cacheDir` (made now if missing or stale), or
 * `source` itself where nothing applies or the cache cannot be written (a read-only folder loads
 * the original, slower, rather than failing).
 */
export function preparedGraph(
  source: string,
  cacheDir: string,
  options: RewriteOptions,
  log: (line: string) => void = () => {},
): { file: string; stamp: GraphStamp | undefined } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    return { file: source, stamp: undefined };
  }
  const target = cachedGraphPath(cacheDir, source, options);
  const stampFile = `${target}.json`;
  const old = readStamp(stampFile);
  const fresh =
    old &&
    old.version === REWRITE_VERSION &&
    old.source === path.resolve(source) &&
    old.size === stat.size &&
    old.mtimeMs === stat.mtimeMs &&
    old.options.outputs === options.outputs &&
    old.options.int8Compute === options.int8Compute;
  if (fresh && (!old.rewritten || fs.existsSync(target))) return { file: old.rewritten ? target : source, stamp: old };
  try {
    const result = rewriteGraph(fs.readFileSync(source), options);
    fs.mkdirSync(cacheDir, { recursive: true });
    const stamp: GraphStamp = {
      version: REWRITE_VERSION,
      source: path.resolve(source),
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      options: { ...options },
      rewritten: result.bytes !== undefined,
      identitiesRemoved: result.identitiesRemoved,
      int8ComputeNodes: result.int8ComputeNodes,
    };
    if (result.bytes) {
      // Written under a temporary name and renamed: a load cut short never leaves half a graph behind.
      const tmp = `${target}.tmp.${process.pid}`;
      const fd = fs.openSync(tmp, 'w');
      try {
        for (const chunk of result.bytes) fs.writeSync(fd, chunk);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, target);
      log(
        `rewrote ${path.basename(source)} once into ${target}: ${result.identitiesRemoved} output copies removed` +
          (options.int8Compute ? `, ${result.int8ComputeNodes} 4-bit products in int8` : ''),
      );
    } else fs.rmSync(target, { force: true });
    fs.writeFileSync(stampFile, JSON.stringify(stamp));
    return { file: result.bytes ? target : source, stamp };
  } catch (e) {
    log(`could not rewrite ${source} (${e instanceof Error ? e.message : String(e)}); loading it as it is`);
    return { file: source, stamp: undefined };
  }
}
