/**
 * The word lists projects already keep for other spell checkers, read as known words: Code Spell
 * Checker's `cSpell.words` and `cSpell.ignoreWords` in .vscode/settings.json; its config files
 * (cspell.json, .cspell.json, cspell.config.json, cspell.config.yaml/.yml, cSpell.json): `words`,
 * `ignoreWords` and the local word-list files of `dictionaryDefinitions`; and Vale's vocabularies
 * (accept.txt of each `Vocab` in .vale.ini, under StylesPath: config/vocabularies/NAME or, before
 * Vale 3, Vocab/NAME). They are looked for in the checked file's folder and every folder above it up
 * to `root` (the workspace folder, or the git root for the CLI). And the names a project's manifest
 * gives (the nearest package.json, pyproject.toml or Cargo.toml: its own name, its commands and its
 * dependencies), which its docs write in lower case as words ("undici", "minimatch", "unist"): no
 * writer keeps those in a word list by hand, and a typo of a word is not a dependency's name.
 *
 * A file that cannot be read or parsed adds nothing (the check goes on); what is read is zod-checked.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
// Its ESM build: the UMD one, which "main" names, requires files esbuild cannot see.
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser/lib/esm/main';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { isDictionaryWord, parseDictionary } from './dictionary';
import type { Dialect } from './dialects';

export const CSPELL_CONFIG_FILES = [
  'cspell.json',
  '.cspell.json',
  'cSpell.json',
  'cspell.config.json',
  'cspell.config.yaml',
  'cspell.config.yml',
] as const;
export const VSCODE_SETTINGS = path.join('.vscode', 'settings.json');
const VALE_INI = '.vale.ini';
const MAX_BYTES = 4 * 1024 * 1024;

const Words = z.array(z.unknown()).catch([]);
const CspellConfig = z
  .object({
    words: Words.optional(),
    ignoreWords: Words.optional(),
    dictionaryDefinitions: z
      .array(z.object({ path: z.string().optional() }).passthrough())
      .catch([])
      .optional(),
  })
  .passthrough();
const VscodeSettings = z
  .object({ 'cSpell.words': Words.optional(), 'cSpell.ignoreWords': Words.optional() })
  .passthrough();

const MANIFESTS = ['package.json', 'pyproject.toml', 'Cargo.toml'] as const;
const PackageJson = z
  .object({
    name: z.string().catch(''),
    bin: z.union([z.string(), z.record(z.string(), z.unknown())]).catch({}),
    dependencies: z.record(z.string(), z.unknown()).catch({}),
    devDependencies: z.record(z.string(), z.unknown()).catch({}),
    peerDependencies: z.record(z.string(), z.unknown()).catch({}),
    optionalDependencies: z.record(z.string(), z.unknown()).catch({}),
  })
  .partial();

export interface ProjectWords {
  words: string[];
  /** The files the words came from. */
  sources: string[];
}

function readSmall(file: string): string | undefined {
  try {
    if (!existsSync(file) || !statSync(file).isFile() || statSync(file).size > MAX_BYTES) return undefined;
    return readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
}

/** The words of a list: strings that are one word (a phrase or junk is skipped, as in dictionary.ts). */
const oneWords = (xs: readonly unknown[]): string[] =>
  parseDictionary(xs.filter((x) => typeof x === 'string').join('\n'));

/** Code Spell Checker's config file at `file`: its words, ignoreWords and local word-list files. */
export function cspellConfigWords(file: string): string[] {
  const text = readSmall(file);
  if (text === undefined) return [];
  let data: unknown;
  try {
    data = /\.ya?ml$/.test(file) ? parseYaml(text) : parseJsonc(text);
  } catch {
    return [];
  }
  const c = CspellConfig.safeParse(data);
  if (!c.success) return [];
  const words = [...oneWords(c.data.words ?? []), ...oneWords(c.data.ignoreWords ?? [])];
  for (const d of c.data.dictionaryDefinitions ?? []) {
    if (!d.path || /^[a-z]+:/i.test(d.path) || !/\.(txt|dic)$/i.test(d.path)) continue;
    const list = readSmall(path.resolve(path.dirname(file), d.path));
    if (list !== undefined) words.push(...parseDictionary(list));
  }
  return words;
}

/** `cSpell.words` and `cSpell.ignoreWords` of a VS Code settings file (JSON with comments). */
export function vscodeSettingsWords(file: string): string[] {
  const text = readSmall(file);
  if (text === undefined) return [];
  const s = VscodeSettings.safeParse(parseJsonc(text));
  return s.success ? [...oneWords(s.data['cSpell.words'] ?? []), ...oneWords(s.data['cSpell.ignoreWords'] ?? [])] : [];
}

/**
 * Vale's accept.txt entries: plain words, and the simple patterns Vale's docs show ("[Tt]ypeScript", "(?i)draftsmith").
 */
export function valeAcceptWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^\(\?i\)/, '');
    const m = /^\[(\p{L})(\p{L})\](.+)$/u.exec(line);
    const forms = m ? [m[1] + m[3], m[2] + m[3]] : [line];
    for (const f of forms) if (/^[\p{L}\p{N}][\p{L}\p{N}'’.-]*$/u.test(f) && /\p{L}/u.test(f)) out.push(f);
  }
  return out;
}

/** The accept.txt files of the vocabularies a .vale.ini names. */
export function valeVocabularyFiles(ini: string): string[] {
  const text = readSmall(ini);
  if (text === undefined) return [];
  const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(.+?)\\s*$`, 'mi').exec(text.replace(/\r/g, ''))?.[1];
  const styles = path.resolve(path.dirname(ini), value('StylesPath') ?? 'styles');
  const vocabs = (value('Vocab') ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v && !v.includes('..'));
  return vocabs.flatMap((v) =>
    [path.join(styles, 'config', 'vocabularies', v, 'accept.txt'), path.join(styles, 'Vocab', v, 'accept.txt')].filter(
      (f) => existsSync(f),
    ),
  );
}

/** The names a package.json gives: its own, its commands' (`bin`) and its dependencies'. */
function packageJsonNames(text: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const p = PackageJson.safeParse(data);
  if (!p.success) return [];
  const { name, bin, dependencies, devDependencies, peerDependencies, optionalDependencies } = p.data;
  return [
    name ?? '',
    ...(typeof bin === 'object' ? Object.keys(bin) : []),
    ...[dependencies, devDependencies, peerDependencies, optionalDependencies].flatMap((d) => Object.keys(d ?? {})),
  ];
}

/**
 * The names a pyproject.toml or Cargo.toml gives, read by line rather than with a TOML parser (only
 * names are wanted): `name = "…"` in [project], [tool.poetry] or [package]; the keys of the
 * dependency tables; and the names that open PEP 508 strings in `dependencies = [...]` lists.
 */
function tomlNames(text: string): string[] {
  const out: string[] = [];
  let table = '';
  let inList = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[{1,2}([^\]]+)\]{1,2}$/.exec(line);
    if (header) {
      table = header[1].trim();
      inList = false;
      continue;
    }
    const depsTable = /(^|\.)(dev-|build-|optional-)?dependencies$/.test(table);
    const key = /^([A-Za-z0-9_.-]+)\s*=/.exec(line)?.[1];
    if (/^(project|tool\.poetry|package)$/.test(table) && key === 'name') {
      const v = /=\s*["']([^"']+)["']/.exec(line)?.[1];
      if (v) out.push(v);
    } else if (depsTable && key && !table.endsWith('optional-dependencies')) out.push(key);
    // A list of PEP 508 strings ("requests>=2"): `dependencies = [` in [project], or a group's list.
    if (key && /^[\w.-]+\s*=\s*\[/.test(line) && (/dependencies$/.test(key) || depsTable)) inList = true;
    if (inList) {
      for (const m of line.matchAll(/["']\s*([A-Za-z0-9][A-Za-z0-9._-]*)/g)) out.push(m[1]);
      if (line.includes(']')) inList = false;
    }
  }
  return out;
}

/**
 * The words of the names in the manifest nearest to `file` (package.json, pyproject.toml or
 * Cargo.toml, searched up to `root`): each name split at its punctuation ("@types/unist" gives "types"
 * and "unist", "fast-glob" "fast" and "glob"). Only the nearest folder with a manifest counts: it is
 * the project the file belongs to.
 */
export function manifestWords(file: string, root: string): { words: string[]; sources: string[] } {
  for (const dir of foldersUp(file, root)) {
    const words: string[] = [];
    const sources: string[] = [];
    for (const name of MANIFESTS) {
      const text = readSmall(path.join(dir, name));
      if (text === undefined) continue;
      const names = name === 'package.json' ? packageJsonNames(text) : tomlNames(text);
      const parts = names.flatMap((n) => n.split(/[^\p{L}\p{N}]+/u)).filter((w) => /^\p{L}{2,}$/u.test(w));
      if (parts.length > 0) sources.push(path.join(dir, name));
      words.push(...parts);
    }
    if (sources.length > 0) return { words: [...new Set(words)], sources };
  }
  return { words: [], sources: [] };
}

/** The folders from `file`'s own up to `root` (only `file`'s folder when `root` is not above it). */
export function foldersUp(file: string, root: string): string[] {
  const out: string[] = [];
  let dir = path.resolve(path.dirname(file));
  const top = path.resolve(root);
  for (;;) {
    out.push(dir);
    if (dir === top || path.relative(top, dir).startsWith('..')) break;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

/** The project's known words for `file` (see the header), looked for up to `root`. */
export function projectWords(file: string, root: string): ProjectWords {
  const words: string[] = [];
  const sources: string[] = [];
  const take = (source: string, found: string[]) => {
    if (found.length === 0) return;
    words.push(...found);
    sources.push(source);
  };
  for (const dir of foldersUp(file, root)) {
    take(path.join(dir, VSCODE_SETTINGS), vscodeSettingsWords(path.join(dir, VSCODE_SETTINGS)));
    for (const name of CSPELL_CONFIG_FILES) take(path.join(dir, name), cspellConfigWords(path.join(dir, name)));
    for (const accept of valeVocabularyFiles(path.join(dir, VALE_INI)))
      take(accept, valeAcceptWords(readSmall(accept) ?? ''));
  }
  const manifest = manifestWords(file, root);
  words.push(...manifest.words);
  sources.push(...manifest.sources);
  return { words: [...new Set(words)], sources };
}

/** Code Spell Checker's `language` locales ("en-GB", "en,en-GB") as the checks' dialects, the first named. */
const LOCALES: Readonly<Record<string, Dialect>> = {
  'en-us': 'American',
  'en-gb': 'British',
  'en-ca': 'Canadian',
  'en-au': 'Australian',
};

/**
 * The English the project declares in its nearest Code Spell Checker config (`"language": "en-GB"`),
 * searched from `file`'s folder up to `root`; undefined when none names one the checks know.
 */
export function projectDialect(file: string, root: string): Dialect | undefined {
  for (const dir of foldersUp(file, root))
    for (const name of CSPELL_CONFIG_FILES) {
      const text = readSmall(path.join(dir, name));
      if (text === undefined) continue;
      let data: unknown;
      try {
        data = /\.ya?ml$/.test(name) ? parseYaml(text) : parseJsonc(text);
      } catch {
        continue;
      }
      const language = z.object({ language: z.string() }).safeParse(data);
      if (!language.success) continue;
      for (const locale of language.data.language.split(',')) {
        const dialect = LOCALES[locale.trim().toLowerCase()];
        if (dialect) return dialect;
      }
    }
  return undefined;
}

/** Whether the project keeps Code Spell Checker's words (a cSpell setting or a cspell config file) at `root`. */
export function usesCodeSpellChecker(root: string): boolean {
  if (CSPELL_CONFIG_FILES.some((n) => existsSync(path.join(root, n)))) return true;
  const settings = readSmall(path.join(root, VSCODE_SETTINGS));
  return settings !== undefined && /"cSpell\./.test(settings);
}

/** The git root above `dir`, or undefined (the CLI's `root` when run in a repository). */
export function gitRoot(dir: string): string | undefined {
  let d = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(d, '.git'))) return d;
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/**
 * Adds `word` to `cSpell.words` in the VS Code settings file `file` (made when missing), keeping its
 * comments and layout. Written as a file, not through VS Code's settings API, which refuses a
 * setting no installed extension declares (Code Spell Checker may not be installed here).
 */
export function addToCspellWords(file: string, word: string): void {
  if (!isDictionaryWord(word)) throw new Error(`"${word}" is not one word`);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '{}\n';
  const s = VscodeSettings.safeParse(parseJsonc(text) ?? {});
  if (!s.success) throw new Error(`${file} is not a settings object`);
  const words = (s.data['cSpell.words'] ?? []).filter((w): w is string => typeof w === 'string');
  if (words.includes(word)) return;
  const edits = modify(text, ['cSpell.words'], [...words, word], {
    formattingOptions: { insertSpaces: true, tabSize: 2 },
  });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, applyEdits(text, edits), 'utf8');
}
