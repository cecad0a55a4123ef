/**
 * The speller for prose and technical text: Code Spell Checker's dictionaries (cspellDictionaries.ts)
 * read with cspell-dictionary, the lookup layer of cspell-lib. cspell-lib's whole-document API is not
 * used: it reads configuration, loads its bundled dictionaries and tokenizes on its own for every
 * call (seconds to load, hundreds of megabytes); here the checker tokenizes prose (spelling.ts) and
 * asks only "is this word known?".
 *
 * Case: a language dictionary's capitals are names, so "paris" and "english" are not "Paris" and
 * "English" (a word capitalised to open a sentence still matches its lower-case entry); the domain
 * lists (software terms, tools, companies) take a word in any case, as writers type "github" and "pytorch".
 */
import {
  createSpellingDictionary,
  createSpellingDictionaryFromTrieFile,
  type SpellingDictionary,
} from 'cspell-dictionary';
import { dictionariesFor, readDictionaryData, type DictionarySpec } from './cspellDictionaries';
import { DEFAULT_DIALECT, type Dialect } from './dialects';

const loaded = new Map<string, SpellingDictionary>();

function load(spec: DictionarySpec): SpellingDictionary {
  let d = loaded.get(spec.name);
  if (!d) {
    const data = readDictionaryData(spec);
    d =
      data.kind === 'trie'
        ? createSpellingDictionaryFromTrieFile(data.data, spec.name, spec.pkg, {})
        : createSpellingDictionary(data.lines, spec.name, spec.pkg, {});
    loaded.set(spec.name, d);
  }
  return d;
}

export class CspellSpeller {
  private readonly language: SpellingDictionary[];
  private readonly terms: SpellingDictionary[];
  private readonly names: SpellingDictionary[];
  readonly dialect: Dialect;

  /** The dictionaries of `dialect`; `alsoAccept`: other dialects whose spellings are known too. */
  constructor(dialect: Dialect = DEFAULT_DIALECT, alsoAccept: readonly Dialect[] = []) {
    this.dialect = dialect;
    const specs = [dialect, ...alsoAccept.filter((d) => d !== dialect)].flatMap((d) =>
      dictionariesFor(d).filter((s) => s.dialect !== undefined),
    );
    this.language = specs.map(load);
    this.terms = dictionariesFor(dialect)
      .filter((s) => s.kind === 'terms')
      .map(load);
    this.names = dictionariesFor(dialect)
      .filter((s) => s.kind === 'names')
      .map(load);
  }

  correct(word: string): boolean {
    return this.inLanguage(word) || this.inTerms(word);
  }

  /** Whether the dialect's dictionary knows `word` (a capital that opens a sentence matches its lower-case entry). */
  inLanguage(word: string): boolean {
    const w = word.replace(/[’`]/g, "'");
    if (this.language.some((d) => d.has(w, { ignoreCase: false }))) return true;
    if (/^\p{Lu}/u.test(w)) {
      const lower = w === w.toUpperCase() ? w.toLowerCase() : w.charAt(0).toLowerCase() + w.slice(1);
      if (this.language.some((d) => d.has(lower, { ignoreCase: false }))) return true;
    }
    return false;
  }

  /** Whether the software terms (any case) or the names (as written) know `word`. */
  inTerms(word: string): boolean {
    const w = word.replace(/[’`]/g, "'");
    return (
      this.terms.some((d) => d.has(w, { ignoreCase: true })) || this.names.some((d) => d.has(w, { ignoreCase: false }))
    );
  }
}
