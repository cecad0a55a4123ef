/**
 * Which model a command runs, as the user writes it: the draftsmith.<command>.model
 * setting, the Choose Model command's input box and the CLI's --model. One parser for all three:
 *
 *   ''  or  'built-in'                    the built-in model (the models folder's)
 *   /abs/folder, ~/folder, (CLI) ./folder an existing folder: a Draftsmith folder (model.json) or
 *                                         transformers.js's layout (config.json and onnx/)
 *   owner/name  or  owner/name@revision   a Hugging Face Hub model, downloaded on first use
 *   /abs/model.gguf, ~/..., (CLI) ./x.gguf an existing file: a GGUF model run by llama.cpp (Ollama's
 *                                         blobs have no .gguf name: any existing file is taken, and the
 *                                         engine checks it is GGUF)
 *
 * An existing folder wins over a Hub id of the same spelling (as transformers.js reads a local
 * folder first). Free of 'vscode' so the CLI and the unit tests use it as the extension does.
 */
import { statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HubModelId, ModelChoice } from './protocol';

export const BUILT_IN = 'built-in';

/**
 * The commands whose model the user may choose, one draftsmith.<system>.model setting each, and the
 * ops of the requests that carry the choice (their `model`), and whether a GGUF model (a language model
 * llama.cpp runs) can serve them (Summarize: an instruct model's summary). The systems the engine can run a chosen
 * model for (systems/registry.ts `external`), package.json's declarations and restricted settings are
 * held to this list by the settings test.
 */
export const MODEL_SETTINGS = {
  summarize: { commands: 'Summarize Document', ops: ['summarize'], gguf: true },
  essay: { commands: 'Expand Topic Words into Essay', ops: ['essay'], gguf: true },
  story: { commands: 'Continue Story and Write a Premise', ops: ['story', 'premise'], gguf: true },
  rewrite: { commands: 'Rewrite Selection', ops: ['rewrite'], gguf: true },
} as const;

/** What every message about a bad value says is accepted. */
export const ACCEPTED_MODELS =
  '"built-in", a Hugging Face Hub model id (owner/name, e.g. Xenova/distilgpt2, optionally owner/name@revision), ' +
  ("the path of an existing folder (a Draftsmith model folder with model.json, or a folder in transformers.js's " +
    'layout with config.json and onnx/), ') +
  'or the path of a GGUF model file (e.g. ~/models/qwen2.5-0.5b-instruct-q4_0.gguf)';

export interface ParseOptions {
  /** The folder a relative path is read from (the CLI: the working directory). None: relative paths are refused. */
  cwd?: string;
  /** Where ~ points (default: os.homedir()). */
  home?: string;
  /** Whether a path is an existing file (default: the file system's answer; a fake in the tests). */
  isFile?: (p: string) => boolean;
}

const existingFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** A name only a GGUF file has. */
const GGUF_NAME = /\.gguf$/i;

/**
 * Reads a model choice as the user wrote it; `isDirectory` says whether a path is an existing folder
 * (fs in the extension and the CLI, a fake in the tests). A folder comes back absolute.
 */
export function parseModelChoice(
  value: string,
  isDirectory: (p: string) => boolean,
  options: ParseOptions = {},
): { choice: ModelChoice } | { error: string } {
  const text = value.trim();
  if (text === '' || text.toLowerCase() === BUILT_IN) return { choice: { kind: 'built-in' } };

  const url = /^[a-z][a-z0-9+.-]+:\/\/[^/]*\/?(.*)$/i.exec(text);
  if (url) {
    const id = url[1].split('/').slice(0, 2).join('/');
    const example = hubIdProblem(id) === undefined ? id : 'Xenova/distilgpt2';
    return {
      error:
        `"${text}" is a web address; give the model's id alone (owner/name, here ${example}). A model is ` +
        `${ACCEPTED_MODELS}.`,
    };
  }
  const folder = folderPath(text, options);
  if (folder !== undefined && isDirectory(folder)) return { choice: { kind: 'folder', dir: folder } };
  const gguf = GGUF_NAME.test(text);
  if (looksLikePath(text) || gguf) {
    if (folder === undefined) {
      return {
        error:
          `"${text}" is a relative path; give the ${gguf ? "file's" : "folder's"} full path (or ~/...). A model ` +
          `is ${ACCEPTED_MODELS}.`,
      };
    }
    if ((options.isFile ?? existingFile)(folder)) return { choice: { kind: 'gguf', file: folder } };
    return {
      error:
        `${gguf ? `There is no GGUF file at ${folder}` : `There is no folder at ${folder} (nor a GGUF file)`}. A ` +
        `model is ${ACCEPTED_MODELS}.`,
    };
  }
  const problem = hubIdProblem(text);
  if (problem !== undefined)
    return { error: `"${text}" is not a model Draftsmith can use: ${problem}. A model is ${ACCEPTED_MODELS}.` };
  const at = text.indexOf('@');
  const id = at < 0 ? text : text.slice(0, at);
  const revision = at < 0 ? undefined : text.slice(at + 1);
  // The protocol's own schema has the last word, so what is accepted here is what the engine takes.
  const parsed = ModelChoice.safeParse(revision === undefined ? { kind: 'hub', id } : { kind: 'hub', id, revision });
  if (!parsed.success) return { error: `"${text}" is not a model Draftsmith can use. A model is ${ACCEPTED_MODELS}.` };
  return { choice: parsed.data };
}

/**
 * Why `text` is not a Hub model id (owner/name, optionally @revision), in words; undefined when it is
 * one. The Choose Model command's input box shows it as the user types.
 */
export function hubIdProblem(text: string): string | undefined {
  const value = text.trim();
  if (!value) return 'give a model id such as Xenova/distilgpt2';
  const at = value.indexOf('@');
  const id = at < 0 ? value : value.slice(0, at);
  const revision = at < 0 ? undefined : value.slice(at + 1);
  if (!id.includes('/')) return 'a Hub model id is owner/name (e.g. Xenova/distilgpt2), not just a name';
  if (id.split('/').length > 2) return 'a Hub model id is owner/name, with one "/"';
  if (!HubModelId.safeParse(id).success)
    return 'a Hub model id is owner/name, each part letters, digits, "-", "_" or "." (starting with a letter or digit)';
  if (revision !== undefined && !/^[\w.-]{1,100}$/.test(revision))
    return 'the revision after "@" is a branch, tag or commit: letters, digits, "-", "_" or "."';
  return undefined;
}

/** A choice in words, for messages: "the built-in model", "Xenova/gpt2 (Hugging Face Hub)", "the folder /m". */
export function describeModelChoice(choice: ModelChoice): string {
  switch (choice.kind) {
    case 'built-in':
      return 'the built-in model';
    case 'hub':
      return `${choice.id}${choice.revision ? `@${choice.revision}` : ''} (Hugging Face Hub)`;
    case 'folder':
      return `the folder ${choice.dir}`;
    case 'gguf':
      return `the GGUF model ${choice.file}`;
  }
}

/** A choice as the setting holds it: parseModelChoice(formatModelChoice(c)) gives c back (for a folder that exists). */
export function formatModelChoice(choice: ModelChoice): string {
  switch (choice.kind) {
    case 'built-in':
      return BUILT_IN;
    case 'hub':
      return choice.revision ? `${choice.id}@${choice.revision}` : choice.id;
    case 'folder':
      return choice.dir;
    case 'gguf':
      return choice.file;
  }
}

/**
 * Whether two choices name the same model (a Hub id's case does not matter to the Hub; 'main' is the default revision).
 */
export function sameModelChoice(a: ModelChoice, b: ModelChoice): boolean {
  if (a.kind === 'built-in' || b.kind === 'built-in') return a.kind === b.kind;
  if (a.kind === 'hub' && b.kind === 'hub')
    return a.id.toLowerCase() === b.id.toLowerCase() && (a.revision ?? 'main') === (b.revision ?? 'main');
  if (a.kind === 'folder' && b.kind === 'folder') return path.resolve(a.dir) === path.resolve(b.dir);
  if (a.kind === 'gguf' && b.kind === 'gguf') return path.resolve(a.file) === path.resolve(b.file);
  return false;
}

/**
 * What a folder holds, for a check before it is chosen: 'draftsmith' (model.json), 'transformers.js'
 * (config.json and an onnx/ folder), or undefined (neither: the engine could not load it).
 */
export function folderLayout(
  dir: string,
  exists: (p: string) => boolean,
): 'draftsmith' | 'transformers.js' | undefined {
  if (exists(path.join(dir, 'model.json'))) return 'draftsmith';
  if (exists(path.join(dir, 'config.json')) && exists(path.join(dir, 'onnx'))) return 'transformers.js';
  return undefined;
}

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co/';

/**
 * A Hub address as the engine takes it (http or https, ending in "/"), or what is wrong with it;
 * unset or blank is the Hub's own. `name` is the setting or option, for the message.
 */
export function parseHubEndpoint(value: unknown, name: string): string | { error: string } {
  if (value === undefined || value === null || (typeof value === 'string' && !value.trim()))
    return DEFAULT_HUB_ENDPOINT;
  const wrong = {
    error:
      `${name} is ${JSON.stringify(value)}, not a web address: give the Hub's (${DEFAULT_HUB_ENDPOINT}) or a ` +
      `mirror's, starting with https:// or http://.`,
  };
  if (typeof value !== 'string') return wrong;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return wrong;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return wrong;
  const text = url.toString();
  return text.endsWith('/') ? text : `${text}/`;
}

/** The absolute folder `text` names, or undefined when it is relative and no cwd is given. */
function folderPath(text: string, options: ParseOptions): string | undefined {
  const home = options.home ?? os.homedir();
  if (text === '~') return home;
  if (text.startsWith('~/') || text.startsWith('~\\')) return path.join(home, text.slice(2));
  if (path.isAbsolute(text) || /^[A-Za-z]:[\\/]/.test(text)) return path.resolve(text);
  return options.cwd !== undefined ? path.resolve(options.cwd, text) : undefined;
}

/** Text that can only be a path, never a Hub id (so a missing folder is reported as one). */
function looksLikePath(text: string): boolean {
  return (
    path.isAbsolute(text) ||
    /^[A-Za-z]:[\\/]/.test(text) ||
    text === '~' ||
    /^~[\\/]/.test(text) ||
    /^\.\.?([\\/]|$)/.test(text) ||
    text.includes('\\') ||
    text.split('/').length > 2
  );
}
