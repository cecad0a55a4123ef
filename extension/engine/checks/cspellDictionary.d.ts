/**
 * The part of cspell-dictionary's API the speller uses. Its own types are not reachable under this
 * project's module resolution (the package is ESM only, with "exports"); esbuild bundles it.
 */
declare module 'cspell-dictionary' {
  export interface SpellingDictionary {
    has(word: string, options: { ignoreCase: boolean }): boolean;
  }
  export function createSpellingDictionary(
    lines: readonly string[],
    name: string,
    source: string,
    options: object,
  ): SpellingDictionary;
  export function createSpellingDictionaryFromTrieFile(
    data: string | Uint8Array<ArrayBuffer>,
    name: string,
    source: string,
    options: object,
  ): SpellingDictionary;
}
