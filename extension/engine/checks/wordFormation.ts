/**
 * How sure the speller is that an unknown word is a misspelling: a typo is almost always one edit
 * from the word meant (Damerau 1964: about 80 % of misspellings are one letter inserted, deleted,
 * replaced, or two letters swapped), while technical prose coins words by joining known parts that
 * no dictionary lists: a prefix and a word ("undecoded", "prepatch", "desugars"), or two words
 * written as one ("servername", "keepalive", "readlink", "npmignore"). Such a word is a term the
 * dictionaries lack more often than a misspelling, and is shown as a hint, not a warning.
 *
 * A word is taken as coined only when nothing points at a typo:
 * - a prefix and a known word, unless a dictionary word is one slip away in the ways typists slip
 *   most (a letter doubled or undoubled, two letters swapped, a capital left out: "untill");
 * - two known words, unless a dictionary word is one edit of any kind away ("lifestile"; the word
 *   less a plural's "s" is no such evidence: "pathnames"), and only when each part has four letters
 *   or more, or the short part is a software term or abbreviation rather than an English word: two
 *   short English words run together are a missing space ("alot", "usecases", "wrongway"), which is
 *   worth a warning.
 */

/** Prefixes English and technical English join to words without a hyphen. */
const PREFIXES = [
  'anti',
  'auto',
  'co',
  'counter',
  'de',
  'dis',
  'hyper',
  'inter',
  'macro',
  'meta',
  'micro',
  'mis',
  'multi',
  'non',
  'over',
  'poly',
  'post',
  'pre',
  're',
  'semi',
  'sub',
  'super',
  'un',
  'under',
] as const;
export const PREFIX_SET: ReadonlySet<string> = new Set(PREFIXES);

/** What the speller knows, as formation asks it. */
export interface Lexicon {
  /** The dialect's dictionary (an English word). */
  language(word: string): boolean;
  /** A software term, tool or abbreviation (not an English word alone). */
  term(word: string): boolean;
}

export type Formation =
  { kind: 'prefix'; prefix: string; rest: string } | { kind: 'compound'; first: string; second: string };

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Each word one edit from `w` (a letter deleted, swapped with the next, replaced or inserted), with
 * whether it is a slip.
 */
function* edits(w: string): Generator<{ word: string; slip: boolean }> {
  for (let i = 0; i <= w.length; i++) {
    const a = w.slice(0, i);
    const b = w.slice(i);
    if (b.length > 0) yield { word: a + b.slice(1), slip: b[0] === a.at(-1) || b[0] === b[1] };
    if (b.length > 1) yield { word: a + b[1] + b[0] + b.slice(2), slip: true };
    for (const c of LETTERS) {
      if (b.length > 0 && c !== b[0]) yield { word: a + c + b.slice(1), slip: false };
      yield { word: a + c + b, slip: c === a.at(-1) || c === b[0] };
    }
  }
}

/**
 * Whether a dictionary word is one edit from `word`: any edit, or only a slip (see the header);
 * `exceptSingular`: the word less a final "s" does not count.
 */
export function nearWord(
  word: string,
  language: (w: string) => boolean,
  slipsOnly: boolean,
  exceptSingular = false,
): boolean {
  const lower = word.toLowerCase();
  if (lower !== word && language(lower)) return true;
  if (/^\p{Ll}/u.test(word) && language(word.charAt(0).toUpperCase() + word.slice(1))) return true;
  const singular = exceptSingular && lower.endsWith('s') ? lower.slice(0, -1) : undefined;
  for (const e of edits(lower)) if ((e.slip || !slipsOnly) && e.word !== singular && language(e.word)) return true;
  return false;
}

/** How `word` (unknown to the lexicon) is made of known parts, or undefined (see the header). */
export function formationOf(word: string, lexicon: Lexicon): Formation | undefined {
  const lower = word.toLowerCase();
  const known = (w: string) => lexicon.language(w) || lexicon.term(w);
  for (const prefix of PREFIXES) {
    const rest = lower.slice(prefix.length);
    if (lower.startsWith(prefix) && rest.length >= 3 && known(rest)) {
      if (nearWord(word, lexicon.language, true)) return undefined;
      return { kind: 'prefix', prefix, rest };
    }
  }
  let found: Formation | undefined;
  for (let i = 3; i <= lower.length - 3 && !found; i++) {
    const first = lower.slice(0, i);
    const second = lower.slice(i);
    const part = (p: string) => (p.length >= 4 ? known(p) : lexicon.term(p) && !lexicon.language(p));
    if (part(first) && part(second)) found = { kind: 'compound', first, second };
  }
  if (found && nearWord(word, lexicon.language, false, true)) return undefined;
  return found;
}
