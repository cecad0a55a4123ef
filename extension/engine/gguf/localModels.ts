/**
 * The GGUF models already on this computer: Ollama's (blobs named by digest, manifests naming them),
 * LM Studio's (.gguf files under publisher/repository folders), and those in folders the user adds
 * (draftsmith.gguf.folders). Choose Model lists them; nothing is read but names, manifests and sizes.
 *
 * Where they are by default, on Linux, macOS and Windows alike under the home folder:
 *   Ollama     $OLLAMA_MODELS, else ~/.ollama/models (and /usr/share/ollama/.ollama/models, Linux's
 *              system service); manifests/<registry>/<namespace>/<model>/<tag>, blobs/sha256-<hex>
 *   LM Studio  ~/.lmstudio/models (0.3 and later), ~/.cache/lm-studio/models (earlier)
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

export type LocalSource = 'ollama' | 'lm-studio' | 'folder';

export interface LocalGguf {
  /** The file to load (an Ollama blob has no .gguf name). */
  file: string;
  /** How its app names it: "llama3.2:3b", "lmstudio-community/Qwen2.5-0.5B-Instruct-GGUF/…Q4_K_M.gguf". */
  name: string;
  source: LocalSource;
  bytes: number;
}

export interface Places {
  home: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** More folders to search for .gguf files (draftsmith.gguf.folders). */
  folders?: readonly string[];
}

/** Where Ollama and LM Studio keep their models on this platform. */
export function defaultPlaces(places: Places): { ollama: string[]; lmStudio: string[] } {
  const { home, platform, env } = places;
  const ollama = env.OLLAMA_MODELS ? [env.OLLAMA_MODELS] : [path.join(home, '.ollama', 'models')];
  if (!env.OLLAMA_MODELS && platform === 'linux') ollama.push('/usr/share/ollama/.ollama/models');
  return {
    ollama,
    lmStudio: [path.join(home, '.lmstudio', 'models'), path.join(home, '.cache', 'lm-studio', 'models')],
  };
}

/** An Ollama manifest: the layer of the model's weights names its blob by digest. */
const OllamaManifest = z.object({
  layers: z.array(z.object({ mediaType: z.string(), digest: z.string(), size: z.number().optional() })),
});
const MODEL_LAYER = 'application/vnd.ollama.image.model';
const DEFAULT_REGISTRY = 'registry.ollama.ai';

/**
 * Folders are searched this deep, and no further than this many entries: a home folder added by mistake stays quick.
 */
const MAX_DEPTH = 5;
const MAX_ENTRIES = 20000;

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function sizeOf(file: string): number | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/** Every file under `root` (up to MAX_DEPTH), as paths relative to it. */
function walk(root: string): string[] {
  const out: string[] = [];
  let seen = 0;
  const visit = (dir: string, depth: number) => {
    for (const e of entries(dir)) {
      if (++seen > MAX_ENTRIES) return;
      const full = path.join(dir, e.name);
      if (e.isDirectory() && depth < MAX_DEPTH && !e.name.startsWith('.')) visit(full, depth + 1);
      else if (e.isFile()) out.push(path.relative(root, full));
    }
  };
  visit(root, 0);
  return out.sort();
}

/** Ollama's models: one per manifest (model:tag), its weights' blob. */
export function ollamaModels(dir: string): LocalGguf[] {
  const out: LocalGguf[] = [];
  for (const rel of walk(path.join(dir, 'manifests'))) {
    let manifest: z.infer<typeof OllamaManifest>;
    try {
      const parsed = OllamaManifest.safeParse(JSON.parse(readFileSync(path.join(dir, 'manifests', rel), 'utf8')));
      if (!parsed.success) continue;
      manifest = parsed.data;
    } catch {
      continue; // not a manifest
    }
    const layer = manifest.layers.find((l) => l.mediaType === MODEL_LAYER);
    if (!layer || !/^sha256[:-][0-9a-f]{64}$/.test(layer.digest)) continue;
    const file = path.join(dir, 'blobs', layer.digest.replace(':', '-'));
    const bytes = sizeOf(file);
    if (bytes === undefined) continue;
    const parts = rel.split(path.sep);
    if (parts.length < 4) continue;
    const [registry, namespace, model, tag] = parts.slice(-4);
    const name =
      registry === DEFAULT_REGISTRY
        ? `${namespace === 'library' ? '' : `${namespace}/`}${model}:${tag}`
        : `${registry}/${namespace}/${model}:${tag}`;
    out.push({ file, name, source: 'ollama', bytes });
  }
  return out;
}

/**
 * The .gguf files under a folder: a split model by its first part only (llama.cpp reads the rest),
 * and no vision projector (mmproj-*.gguf), which is no language model.
 */
export function ggufFilesIn(dir: string, source: LocalSource): LocalGguf[] {
  const out: LocalGguf[] = [];
  for (const rel of walk(dir)) {
    const base = path.basename(rel);
    if (!/\.gguf$/i.test(base) || /^mmproj/i.test(base)) continue;
    const part = /-(\d{5})-of-\d{5}\.gguf$/i.exec(base);
    if (part && part[1] !== '00001') continue;
    const file = path.join(dir, rel);
    const bytes = sizeOf(file);
    if (bytes !== undefined) out.push({ file, name: rel.split(path.sep).join('/'), source, bytes });
  }
  return out;
}

/** Every GGUF model found: Ollama's, LM Studio's, then the added folders'; each file once. */
export function findLocalGgufs(places: Places): LocalGguf[] {
  const { ollama, lmStudio } = defaultPlaces(places);
  const found = [
    ...ollama.flatMap((d) => ollamaModels(d)),
    ...lmStudio.flatMap((d) => ggufFilesIn(d, 'lm-studio')),
    ...(places.folders ?? []).flatMap((d) => ggufFilesIn(d, 'folder')),
  ];
  const seen = new Set<string>();
  return found.filter((m) => {
    const key = path.resolve(m.file);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
