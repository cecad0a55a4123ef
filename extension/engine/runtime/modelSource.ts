/**
 * Where a model folder's files come from. A system asks its source for a folder by name
 * ('summarize', 'roundtrip-hier') and gets a local folder back; what is in it is then checked against
 * its model.json (manifest.ts: schema, every file present and non-empty, every sha256) exactly as
 * for any folder, wherever it came from. So a source only decides where the files are, never whether
 * they are good.
 *
 * Today: a models folder with one sub-folder per system (the shipped models/, or the folder
 * draftsmith.modelsPath names: the host picks which, host/modelsPath.ts), and a single model folder
 * (the CLI's --model DIR, the evaluations' --variant NAME=DIR). The seam for later: a Hub cache or a
 * URL is one more ModelSource whose folder() downloads into a cache once (each file checked against
 * the manifest's sha256 as it arrives) and then answers with that local folder, offline from then on.
 */
import * as path from 'node:path';

export interface ModelSource {
  /** In words, for logs and messages: "/home/me/models", "the folder /tmp/roundtrip-hier". */
  readonly label: string;
  /**
   * The local folder holding the model folder `name` (a system's folder name, e.g. 'summarize' or
   * 'roundtrip-hier'). Resolves once its files are on this machine; does not check them.
   */
  folder(name: string): Promise<string>;
}

/** A folder with one sub-folder per system: <root>/<name> (the built-in models, or the user's models path). */
export function modelsFolder(root: string): ModelSource {
  return { label: root, folder: async (name) => path.join(root, name) };
}

/** One model folder, whatever name is asked for: the folder a user named for one system. */
export function singleFolder(dir: string): ModelSource {
  return { label: `the folder ${dir}`, folder: async () => dir };
}
