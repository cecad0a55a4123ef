/**
 * Spelling: Code Spell Checker's dictionaries (cspellSpeller.ts) for the dialect the writer chose,
 * with its lists of software terms, tools and companies, so that technical prose ("tokenization",
 * "whitespace", "bugfix", "GitHub") reads as words.
 *
 * Left out, as a writer expects of a spell checker in prose: names (a capitalised word that does not
 * open its sentence), words in capitals (acronyms), code by its shape (technicalTokens.ts: flags,
 * handles, identifiers, paths, versions, anything with a digit), language and country codes, units,
 * "et al.", words of scripts other than Latin, and the dictionaries' words the writer or the project
 * keeps. Code, links, file names and e-mail addresses never reach here (checker.ts).
 *
 * Suggestions are the dictionary words one edit away (a letter deleted, inserted, replaced or two
 * swapped, a letter doubled or undoubled), best first, at most five, and two words where a space is
 * missing, never as the only suggestion (an unknown name such as "mecab" is not "me cab", and a lone
 * suggestion is one Fix All applies). A search further away (nspell's or cspell's suggest) can take
 * a second on a long unknown word, which a check as you type cannot afford.
 *
 * Not every unknown word is as likely a misspelling: one another English spells so ("behaviour"
 * under American, dialectSpellings.ts) and one made of known parts with no typo in sight
 * ("servername", "undecoded", wordFormation.ts) come out as their own kinds, which the checker
 * shows as hints; "ie" and "eg" are "i.e." and "e.g." without their points.
 */
import type { Speller } from '../metrics/nonwords';
import { DIALECTS, type Dialect } from './dialects';
import { CspellSpeller } from './cspellSpeller';
import { respelled } from './dialectSpellings';
import { EDGE, isCodeRun, isTechnicalWord } from './technicalTokens';
import { formationOf, PREFIX_SET, type Formation } from './wordFormation';

export interface SpellFinding {
  start: number;
  end: number;
  word: string;
  suggestions: string[];
  /**
   * misspelling: no more is known; dialect: another English's spelling (`dialect`), the chosen
   * dialect's form the one suggestion; coined: made of known parts (`formation`), no typo in sight.
   */
  kind: 'misspelling' | 'dialect' | 'coined';
  dialect?: Dialect;
  formation?: Formation;
}

/** Latin abbreviations written without their points. */
const POINTLESS: Readonly<Record<string, string>> = { ie: 'i.e.', eg: 'e.g.' };

/** The personal dictionary: words as written and lower-cased (cspell and LTeX+ word lists match either way). */
export class WordSet {
  private readonly exact = new Set<string>();
  private readonly lower = new Set<string>();
  constructor(words: Iterable<string> = []) {
    for (const w of words) this.add(w);
  }
  add(word: string): void {
    this.exact.add(word);
    this.lower.add(word.toLowerCase());
  }
  has(word: string): boolean {
    return this.exact.has(word) || this.lower.has(word.toLowerCase());
  }
  get size(): number {
    return this.exact.size;
  }
}

const WORD_RUN = /\S+/g;
const LATIN_WORD = /^\p{Script=Latin}+(?:['’]\p{Script=Latin}+)*$/u;
const SENTENCE_END = /[.!?:;…]["'”’)\]]*$/;
const KEYBOARD = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const NEIGHBOURS = new Map<string, string>();
KEYBOARD.forEach((row, r) =>
  [...row].forEach((c, i) => {
    const near = [row[i - 1], row[i + 1], KEYBOARD[r - 1]?.[i], KEYBOARD[r + 1]?.[i]].filter(Boolean).join('');
    NEIGHBOURS.set(c, near);
  }),
);

export class SpellChecker {
  private readonly verdicts = new Map<string, boolean>();
  private readonly suggestions = new Map<string, string[]>();
  /** The other dialects' spellers, made when first asked (their dictionaries load in milliseconds). */
  private readonly others = new Map<Dialect, CspellSpeller>();

  constructor(
    private speller: Speller & {
      inLanguage?(word: string): boolean;
      inTerms?(word: string): boolean;
    } = new CspellSpeller(),
    private words: WordSet = new WordSet(),
  ) {}

  setWords(words: WordSet): void {
    this.words = words;
  }

  /** The dictionaries of `dialect` (the verdicts so far were the old dialect's). */
  setDialect(dialect: Dialect): void {
    // Only the dialect's own spellings: docs/checks.md measures accepting British ones under American.
    this.speller = new CspellSpeller(dialect);
    this.verdicts.clear();
    this.suggestions.clear();
  }

  private known(word: string): boolean {
    let v = this.verdicts.get(word);
    if (v === undefined) {
      v = this.speller.correct(word);
      if (this.verdicts.size > 100_000) this.verdicts.clear();
      this.verdicts.set(word, v);
    }
    return v;
  }

  /**
   * Whether a suggestion is a word: the dialect's dictionary alone when the speller has one (a tenth of the lookups).
   */
  private word(candidate: string): boolean {
    return this.speller.inLanguage ? this.speller.inLanguage(candidate) : this.known(candidate);
  }

  /**
   * Whether the dictionary (or the personal one) takes `word` as written (hunspell takes "The" for
   * "the", not "paris" for "Paris").
   */
  accepts(word: string): boolean {
    if (this.words.has(word)) return true;
    const w = word.replace(/’/g, "'");
    if (this.known(w)) return true;
    // en_US spells loanwords without their accents ("cafe", "naive"): "café" is no misspelling.
    const plain = w.normalize('NFD').replace(/\p{M}/gu, '');
    return plain !== w && this.known(plain);
  }

  /** The misspelled words of `text` (offsets in `text`). */
  check(text: string): SpellFinding[] {
    const out: SpellFinding[] = [];
    let sentenceStart = true;
    for (const m of text.matchAll(WORD_RUN)) {
      const run = m[0];
      const opens = sentenceStart;
      sentenceStart = SENTENCE_END.test(run);
      const lineStart = m.index === 0 || /[\r\n]\s*$/.test(text.slice(Math.max(0, m.index - 8), m.index));
      const bare = run.replace(EDGE, '');
      if (!bare || isCodeRun(run) || bare.length > 40) continue;
      const bareAt = m.index + run.indexOf(bare);
      // Hyphenated words part by part, as hunspell does.
      let offset = 0;
      bare.split(/([-‐–—])/).forEach((part, i) => {
        const at = bareAt + offset;
        offset += part.length;
        if (i % 2 === 1 || part.length < 2) return;
        const word = part.replace(/['’]s$/, '');
        if (!LATIN_WORD.test(word)) return;
        if (word === word.toUpperCase()) return; // an acronym
        if (/\p{Ll}\p{Lu}/u.test(word)) return; // camelCase
        if (/^\p{Lu}.*\p{Lu}/u.test(word)) return; // a name in mixed case ("MPNet", "OLMo")
        if (/^\p{Lu}/u.test(word) && !(opens || lineStart) && i === 0) return; // a name
        if (/^\p{Lu}/u.test(word) && i > 0) return;
        // A prefix before a hyphen ("Un-escape", "non-zero", "re-run") is half a word, not one.
        if (
          i === 0 &&
          bare.length > part.length &&
          /^[-‐]/.test(bare.slice(part.length)) &&
          PREFIX_SET.has(word.toLowerCase())
        )
          return;
        if (isTechnicalWord(word) || this.accepts(word)) return;
        out.push({ start: at, end: at + word.length, word, ...this.diagnose(word) });
      });
    }
    return out;
  }

  /** What kind of unknown word `word` is, and its suggestions (see the header). */
  private diagnose(word: string): Pick<SpellFinding, 'kind' | 'suggestions' | 'dialect' | 'formation'> {
    const lower = word.toLowerCase();
    if (POINTLESS[lower] !== undefined) {
      const fix = /^\p{Lu}/u.test(word)
        ? POINTLESS[lower].charAt(0).toUpperCase() + POINTLESS[lower].slice(1)
        : POINTLESS[lower];
      return { kind: 'misspelling', suggestions: [fix] };
    }
    const other = this.otherDialect(word);
    if (other) return { kind: 'dialect', dialect: other.dialect, suggestions: [other.spelling] };
    const suggestions = this.suggest(word);
    const { inTerms, inLanguage } = this.speller;
    if (inTerms && inLanguage) {
      const formation = formationOf(word, {
        language: (w) => inLanguage.call(this.speller, w),
        term: (w) => inTerms.call(this.speller, w) || isTechnicalWord(w),
      });
      if (formation) return { kind: 'coined', formation, suggestions };
    }
    return { kind: 'misspelling', suggestions };
  }

  /**
   * The dialect that spells `word` so, and the chosen dialect's spelling, when another English's
   * dictionary has the word and one of the systematic differences maps it to a word of the chosen
   * dialect (dialectSpellings.ts); undefined otherwise, or when the speller has no dialect.
   */
  private otherDialect(word: string): { dialect: Dialect; spelling: string } | undefined {
    if (!(this.speller instanceof CspellSpeller)) return undefined;
    const chosen = this.speller;
    const spelling = respelled(word, chosen.dialect === 'American', (w) => chosen.inLanguage(w));
    if (spelling === undefined) return undefined;
    for (const d of DIALECTS) {
      if (d === chosen.dialect) continue;
      let other = this.others.get(d);
      if (!other) this.others.set(d, (other = new CspellSpeller(d)));
      if (other.inLanguage(word)) return { dialect: d, spelling };
    }
    return undefined;
  }

  /** Dictionary words one edit from `word`, best first (see the header). */
  suggest(word: string): string[] {
    const cached = this.suggestions.get(word);
    if (cached) return cached;
    const lower = word.toLowerCase();
    const scored = new Map<string, number>();
    const offer = (c: string, score: number) => {
      if (c.length === 0 || c === lower) return;
      const prev = scored.get(c);
      if (prev !== undefined && prev <= score) return;
      const ok = c.includes(' ') ? c.split(' ').every((p) => p.length > 0 && this.word(p)) : this.word(c);
      if (ok) scored.set(c, score);
    };
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    for (let i = 0; i <= lower.length; i++) {
      const a = lower.slice(0, i);
      const b = lower.slice(i);
      // delete (a doubled letter: 0)
      if (b.length > 0) offer(a + b.slice(1), b[0] === a.at(-1) || b[0] === b[1] ? 0 : 2);
      if (b.length > 1) offer(a + b[1] + b[0] + b.slice(2), 0); // swap
      for (const c of letters) {
        if (b.length > 0 && c !== b[0]) offer(a + c + b.slice(1), NEIGHBOURS.get(b[0])?.includes(c) ? 1 : 2); // replace
        offer(a + c + b, c === a.at(-1) || c === b[0] ? 0 : 2); // insert (a doubled letter: 0)
      }
      if (i > 1 && i < lower.length - 1) offer(`${a} ${b}`, 3); // a missing space
    }
    // Two words only beside a one-word suggestion (see the header).
    if ([...scored.keys()].every((c) => c.includes(' '))) scored.clear();
    const upper = /^\p{Lu}/u.test(word);
    const ranked = [...scored.entries()]
      .sort((x, y) => x[1] - y[1] || (x[0][0] === lower[0] ? 0 : 1) - (y[0][0] === lower[0] ? 0 : 1))
      .slice(0, 5)
      .map(([c]) => (upper ? c.charAt(0).toUpperCase() + c.slice(1) : c));
    // A word the dictionary has only capitalised ("paris"): the capital is the suggestion.
    if (!upper && this.known(word.charAt(0).toUpperCase() + word.slice(1)))
      ranked.unshift(word.charAt(0).toUpperCase() + word.slice(1));
    if (this.suggestions.size > 20_000) this.suggestions.clear();
    this.suggestions.set(word, ranked);
    return ranked;
  }
}
