/**
 * The word lists spelling reads: Code Spell Checker's dictionaries from npm (@cspell/dict-*), one
 * list for every dialect and every domain, so that a new dictionary is one line here.
 *
 * A language dictionary ships as a "TrieXv3" text trie, which cspell-trie-lib decodes in about a
 * second; its binary form (BTrie) decodes in about 20 ms. The build (scripts/build.mjs, through
 * `compileDictionaries`) writes the binary form of each list into dist/dictionaries/, and the
 * speller reads that when it is there, else the package's own file (slower, same words).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { convertToBTrie } from 'cspell-trie-lib';
import type { Dialect } from './dialects';

export interface DictionarySpec {
  /** A short name (also the compiled file's name). */
  name: string;
  /** The npm package and the file in it. */
  pkg: string;
  file: string;
  /** The dialect whose language dictionary this is; undefined: a domain list, read under every dialect. */
  dialect?: Dialect;
  /**
   * language: a dialect's words, whose capitals are names ("Paris", not "paris"); terms: software
   * words, taken in any case as writers type them ("github", "pytorch"); names: proper names, taken
   * only as written ("Chinese" is a company's name too, "chinese" no word).
   */
  kind: 'language' | 'terms' | 'names';
}

export const DICTIONARIES: readonly DictionarySpec[] = [
  { name: 'en_US', pkg: '@cspell/dict-en_us', file: 'en_US.trie.gz', dialect: 'American', kind: 'language' },
  // The MIT-licensed British list (@cspell/dict-en-gb is LGPL).
  { name: 'en_GB', pkg: '@cspell/dict-en-gb-mit', file: 'en_GB.trie.gz', dialect: 'British', kind: 'language' },
  { name: 'en_CA', pkg: '@cspell/dict-en-ca', file: 'en_CA.trie', dialect: 'Canadian', kind: 'language' },
  { name: 'en_AU', pkg: '@cspell/dict-en-au', file: 'en_AU.trie', dialect: 'Australian', kind: 'language' },
  { name: 'software-terms', pkg: '@cspell/dict-software-terms', file: 'dict/softwareTerms.txt.gz', kind: 'terms' },
  { name: 'software-tools', pkg: '@cspell/dict-software-terms', file: 'dict/software-tools.txt', kind: 'terms' },
  {
    name: 'computing-acronyms',
    pkg: '@cspell/dict-software-terms',
    file: 'dict/computing-acronyms.txt',
    kind: 'terms',
  },
  { name: 'networking-terms', pkg: '@cspell/dict-software-terms', file: 'dict/networkingTerms.txt', kind: 'terms' },
  { name: 'web-services', pkg: '@cspell/dict-software-terms', file: 'dict/webServices.txt', kind: 'terms' },
  { name: 'fullstack', pkg: '@cspell/dict-fullstack', file: 'dict/fullstack.txt', kind: 'terms' },
  { name: 'companies', pkg: '@cspell/dict-companies', file: 'dict/companies.txt', kind: 'names' },
  { name: 'markdown', pkg: '@cspell/dict-markdown', file: 'markdown.txt.gz', kind: 'terms' },
];

/** The lists read under `dialect`: its language dictionary and every domain list. */
export function dictionariesFor(dialect: Dialect): DictionarySpec[] {
  return DICTIONARIES.filter((d) => d.dialect === undefined || d.dialect === dialect);
}

/**
 * Where the build puts the compiled lists: dist/dictionaries, beside the bundle or a folder or two
 * above it (the tests).
 */
export function compiledDir(): string {
  const near = [0, 1, 2].map((up) => path.join(__dirname, ...Array<string>(up).fill('..'), 'dictionaries'));
  return near.find((d) => existsSync(d)) ?? near[0];
}

/** The package's own file for `spec` (its package.json "exports" may hide it from require.resolve). */
export function packageFile(spec: DictionarySpec): string {
  const tried: string[] = [];
  for (const base of require.resolve.paths(spec.pkg) ?? []) {
    const file = path.join(base, spec.pkg, spec.file);
    tried.push(file);
    if (existsSync(file)) return file;
  }
  throw new Error(`${spec.pkg} is not installed (looked for ${tried.slice(0, 2).join(', ')})`);
}

/** A dictionary's data, as cspell-dictionary takes it: BTrie bytes, a text trie, or word lines. */
export type DictionaryData =
  { kind: 'trie'; data: string | Uint8Array<ArrayBuffer> } | { kind: 'words'; lines: string[] };

function readText(file: string): string {
  const bytes = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** The words of `spec`, from the compiled file when the build made one. */
export function readDictionaryData(spec: DictionarySpec, dir = compiledDir()): DictionaryData {
  const compiled = path.join(dir, `${spec.name}.btrie`);
  if (existsSync(compiled)) return { kind: 'trie', data: new Uint8Array(readFileSync(compiled)) };
  const file = packageFile(spec);
  const text = readText(file);
  return /\.trie(\.gz)?$/.test(file) ? { kind: 'trie', data: text } : { kind: 'words', lines: text.split(/\r?\n/) };
}

/** Writes the binary form of every dictionary into `dir` (the build's step). */
export async function compileDictionaries(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const spec of DICTIONARIES) {
    const file = packageFile(spec);
    const content = new TextEncoder().encode(readText(file));
    const kind = /\.trie(\.gz)?$/.test(file) ? 'trie' : 'txt';
    const out = await convertToBTrie({ url: new URL(`file:///${spec.name}.${kind}`), content });
    const target = path.join(dir, `${spec.name}.btrie`);
    if (existsSync(target) && statSync(target).mtimeMs >= statSync(file).mtimeMs) continue;
    writeFileSync(target, out.content);
    written.push(target);
  }
  return written;
}
