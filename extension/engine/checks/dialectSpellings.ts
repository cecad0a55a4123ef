/**
 * The other Englishes' spellings of a word: "behaviour" under American is not a misspelling but the
 * British (or Canadian, Australian) spelling of "behavior", and the writer may well be British with
 * the dialect left at its default. Such a word is told apart from a misspelling by two facts: another
 * dialect's dictionary has it, and one of the systematic differences between the dialects (the
 * -our/-or, -ise/-ize, -yse/-yze, -tre/-ter, -ence/-ense, -lled/-led, -ogue/-og, -amme/-am, ae/oe/e
 * and -gement/-gment patterns of Webster's reform) turns it into a word of the chosen dialect.
 *
 * Both facts are needed: the British list alone also takes "informations" and "knowledges" (rare
 * plurals a learner writes for the uncountable nouns), which no pattern maps to an American word, so
 * they stay misspellings (docs/checks.md measures this on JFLEG).
 */

/** One direction of a systematic difference: a pattern of one spelling and its replacement in the other. */
type Pattern = readonly [RegExp, string];

/** Commonwealth spellings into American ones. */
const TO_AMERICAN: readonly Pattern[] = [
  [/our/g, 'or'],
  [/is(e|es|ed|ing|ation|ations|er|ers|able)$/g, 'iz$1'],
  [/ys(e|es|ed|ing|er|ers)$/g, 'yz$1'],
  [/tre(s|d)?$/g, 'ter$1'],
  [/ence(s)?$/g, 'ense$1'],
  [/ll(ed|ing|er|ers)$/g, 'l$1'],
  [/ogue(s)?$/g, 'og$1'],
  [/amme(s)?$/g, 'am$1'],
  [/ae/g, 'e'],
  [/oe/g, 'e'],
  [/gement(s)?$/g, 'gment$1'],
];

/** American spellings into Commonwealth ones (the same differences read the other way). */
const FROM_AMERICAN: readonly Pattern[] = [
  [/or/g, 'our'],
  [/iz(e|es|ed|ing|ation|ations|er|ers|able)$/g, 'is$1'],
  [/yz(e|es|ed|ing|er|ers)$/g, 'ys$1'],
  [/ter(s|ed)?$/g, 'tre$1'],
  [/ense(s)?$/g, 'ence$1'],
  [/([aeiou])l(ed|ing|er|ers)$/g, '$1ll$2'],
  [/og(s)?$/g, 'ogue$1'],
  [/gment(s)?$/g, 'gement$1'],
];

/** The spellings `pattern` makes of `word`: each match replaced alone, then all of them together. */
function respellings(word: string, [pattern, replacement]: Pattern): string[] {
  const out: string[] = [];
  for (const m of word.matchAll(pattern)) {
    const one = m[0].replace(new RegExp(pattern.source), replacement);
    out.push(word.slice(0, m.index) + one + word.slice(m.index + m[0].length));
  }
  if (out.length > 1) out.push(word.replace(pattern, replacement));
  return out;
}

/**
 * `word` as the chosen dialect spells it, when one systematic difference makes a word it knows
 * (`known`), else undefined. `toAmerican`: whether the chosen dialect is American (the patterns
 * differ in direction only). Case is kept from `word`'s first letter.
 */
export function respelled(word: string, toAmerican: boolean, known: (w: string) => boolean): string | undefined {
  const lower = word.toLowerCase();
  for (const pattern of toAmerican ? TO_AMERICAN : [...FROM_AMERICAN, ...TO_AMERICAN])
    for (const r of respellings(lower, pattern))
      if (r !== lower && known(r)) return /^\p{Lu}/u.test(word) ? r.charAt(0).toUpperCase() + r.slice(1) : r;
  return undefined;
}
