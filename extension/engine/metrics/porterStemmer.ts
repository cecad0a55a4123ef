// Porter stemmer, matching NLTK's `nltk.stem.porter.PorterStemmer()` in its default
// NLTK_EXTENSIONS mode, which is the stemmer rouge-score uses for `use_stemmer=True`.
//
// Why not an npm package: `stemmer` (wooorm) and `porter-stemmer` implement Martin Porter's
// reference variant. On a 7.9k-word vocabulary they disagree with NLTK on ~1.2% of words,
// common ones included ("always" -> "alwai" vs "alway", "display" -> "displai" vs "display",
// "hopefully" -> "hopefulli" vs "hope"). That is enough to move ROUGE scores by more than 0.001,
// so this file ports NLTK's rules instead.
//
// Algorithm: M.F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980, with NLTK's
// extensions: a table of irregular forms, "ies"/"ied" on 4-letter words -> "ie", y -> i only
// after a consonant, ALLI tried before the other step-2 rules, BLI -> BLE, FULLI -> FUL,
// LOGI -> LOG, and the 2-letter *o condition. Each step names the paper's rule it implements.

/** A suffix rule: [suffix, replacement, condition on the stem left after removing the suffix].
 * The special suffix '*d' matches any double consonant ending. */
type Rule = [suffix: string, replacement: string, condition: ((stem: string) => boolean) | null];

/** NLTK_EXTENSIONS irregular forms: word -> stem, returned without running the steps. */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'],
  ['inning', 'inning'],
  ['outings', 'outing'],
  ['outing', 'outing'],
  ['cannings', 'canning'],
  ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
]);

const isVowelLetter = (c: string): boolean => c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';

/** Porter's consonant: not a, e, i, o, u, and 'y' only when the letter before it is a vowel
 * (or it starts the word). Walks back over runs of 'y' iteratively. */
function isConsonant(word: string, i: number): boolean {
  if (isVowelLetter(word[i])) return false;
  if (word[i] !== 'y') return true;
  let negate = false;
  while (i > 0 && word[i] === 'y') {
    negate = !negate;
    i--;
  }
  return !isVowelLetter(word[i]) !== negate;
}

/** m in [C](VC){m}[V]: the number of vowel->consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  let prevConsonant = true;
  for (let i = 0; i < stem.length; i++) {
    const c = isConsonant(stem, i);
    if (c && !prevConsonant) m++;
    prevConsonant = c;
  }
  return m;
}

const hasPositiveMeasure = (stem: string): boolean => measure(stem) > 0;

/** *v*: the stem contains a vowel. */
function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: the word ends with a double consonant. */
function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y (NLTK also accepts a
 * 2-letter vowel-consonant stem). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n >= 3) {
    const last = word[n - 1];
    return (
      isConsonant(word, n - 3) &&
      !isConsonant(word, n - 2) &&
      isConsonant(word, n - 1) &&
      last !== 'w' &&
      last !== 'x' &&
      last !== 'y'
    );
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

/** Applies the first rule whose suffix matches; if its condition fails, no later rule is tried. */
function applyRuleList(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d') {
      if (!endsDoubleConsonant(word)) continue;
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (word.endsWith(suffix)) {
      const stem = suffix === '' ? word : word.slice(0, -suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

/** Step 1a: SSES -> SS, IES -> I (NLTK: "dies" -> "die"), SS -> SS, S -> (nothing). */
function step1a(word: string): string {
  if (word.endsWith('ies') && word.length === 4) return word.slice(0, -3) + 'ie';
  return applyRuleList(word, [
    ['sses', 'ss', null],
    ['ies', 'i', null],
    ['ss', 'ss', null],
    ['s', '', null],
  ]);
}

/** Step 1b: (m>0) EED -> EE; (*v*) ED and (*v*) ING are removed, then AT/BL/IZ get their E
 * back, a double consonant (not l, s, z) is undoubled, or (m=1 and *o) adds an E. */
function step1b(word: string): string {
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let stem: string | null = null;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix) && containsVowel(word.slice(0, -suffix.length))) {
      stem = word.slice(0, -suffix.length);
      break;
    }
  }
  if (stem === null) return word;
  const last = stem[stem.length - 1];
  return applyRuleList(stem, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => last !== 'l' && last !== 's' && last !== 'z'],
    ['', 'e', (s) => measure(s) === 1 && endsCvc(s)],
  ]);
}

/** Step 1c (NLTK): Y -> I when preceded by a consonant that is not the whole stem. */
function step1c(word: string): string {
  return applyRuleList(word, [['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

const STEP2_RULES: readonly Rule[] = [
  ['ational', 'ate', hasPositiveMeasure],
  ['tional', 'tion', hasPositiveMeasure],
  ['enci', 'ence', hasPositiveMeasure],
  ['anci', 'ance', hasPositiveMeasure],
  ['izer', 'ize', hasPositiveMeasure],
  ['bli', 'ble', hasPositiveMeasure],
  ['alli', 'al', hasPositiveMeasure],
  ['entli', 'ent', hasPositiveMeasure],
  ['eli', 'e', hasPositiveMeasure],
  ['ousli', 'ous', hasPositiveMeasure],
  ['ization', 'ize', hasPositiveMeasure],
  ['ation', 'ate', hasPositiveMeasure],
  ['ator', 'ate', hasPositiveMeasure],
  ['alism', 'al', hasPositiveMeasure],
  ['iveness', 'ive', hasPositiveMeasure],
  ['fulness', 'ful', hasPositiveMeasure],
  ['ousness', 'ous', hasPositiveMeasure],
  ['aliti', 'al', hasPositiveMeasure],
  ['iviti', 'ive', hasPositiveMeasure],
  ['biliti', 'ble', hasPositiveMeasure],
  ['fulli', 'ful', hasPositiveMeasure],
  // The 'l' of LOGI stays with the stem for the measure, so "geologi" -> "geolog" like "archaeologi".
  ['logi', 'log', (stem) => hasPositiveMeasure(stem + 'l')],
];

/** Step 2: (m>0) double suffixes to single ones (ATIONAL -> ATE, ...). NLTK tries ALLI -> AL
 * first and, when it applies, runs step 2 again on the result. */
function step2(word: string): string {
  if (word.endsWith('alli') && hasPositiveMeasure(word.slice(0, -4))) return step2(word.slice(0, -4) + 'al');
  return applyRuleList(word, STEP2_RULES);
}

/** Step 3: (m>0) ICATE -> IC, ATIVE -> , ALIZE -> AL, ICITI -> IC, ICAL -> IC, FUL -> , NESS -> . */
const STEP3: Record<string, string> = {
  icate: 'ic',
  ative: '',
  alize: 'al',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
};
const STEP3_RULES: Rule[] = Object.entries(STEP3).map(([suffix, to]) => [suffix, to, hasPositiveMeasure]);

function step3(word: string): string {
  return applyRuleList(word, STEP3_RULES);
}

const gt1 = (stem: string): boolean => measure(stem) > 1;

/** Step 4: (m>1) removes these suffixes, in the paper's order; ION only after S or T. */
const STEP4 = 'al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize'.split(' ');
const STEP4_RULES: Rule[] = STEP4.map((suffix) => [
  suffix,
  '',
  suffix === 'ion' ? (stem: string) => gt1(stem) && (stem.endsWith('s') || stem.endsWith('t')) : gt1,
]);

function step4(word: string): string {
  return applyRuleList(word, STEP4_RULES);
}

/** Step 5a: (m>1) E -> ; (m=1 and not *o) E -> . Both conditions are tried. */
function step5a(word: string): string {
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : word;
}

/** Step 5b: (m>1 and *d and *L) -> single letter ("controll" -> "control"). */
function step5b(word: string): string {
  return applyRuleList(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/** Stems one word exactly as NLTK's `PorterStemmer().stem(word)` does (it lowercases first). */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  const irregular = IRREGULAR.get(lower);
  if (irregular !== undefined) return irregular;
  if (lower.length <= 2) return lower;
  return step5b(step5a(step4(step3(step2(step1c(step1b(step1a(lower))))))));
}
