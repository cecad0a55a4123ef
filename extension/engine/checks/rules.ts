/**
 * The prose checks' rule families: what each finds, which library finds it, its setting and its
 * default. Data only, no imports: package.json's settings, the host, the CLI and the docs read it.
 *
 * Where the rules come from, and why:
 * - grammar, repeated words, spacing and long sentences: Harper (harper.js, its WebAssembly build),
 *   a maintained offline checker with several hundred rules and fixes; its RepeatedWords, Spaces and
 *   LongSentences rules are used as they are rather than retext-repeated-words or retext-readability,
 *   because they come out of the same pass that finds the grammar, with fixes.
 * - passive voice and wordy phrases: Harper has neither, so they come from retext-passive and
 *   retext-simplify (the word lists Vale and alex's authors maintain), run on the same text.
 * - spelling: Code Spell Checker's dictionaries (cspell-dictionary with @cspell/dict-*: the dialect's
 *   English, software terms, tools, companies), which know technical prose where hunspell en_US
 *   flagged 14 words in 1,000 of edited docs (docs/checks.md); names, code, links and the personal and
 *   project dictionaries left out; Harper's own SpellCheck is off so that one word gets one finding.
 * Defaults follow the JFLEG and technical-docs measurements in docs/checks.md: the families that flag
 * many fluent sentences (passive voice, wordy phrases) are hints, the rest warnings or information,
 * and a repeated word, almost never meant, is an error (what `draftsmith check` fails on by default).
 */

export type Severity = 'error' | 'warning' | 'information' | 'hint';
export type RuleSetting = Severity | 'off';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'information', 'hint'];
export const RULE_SETTINGS: readonly RuleSetting[] = ['off', ...SEVERITIES];

export interface FamilySpec {
  /** The setting under draftsmith.checks (draftsmith.checks.<setting>). */
  readonly setting: string;
  readonly title: string;
  /** What finds it. */
  readonly source: string;
  readonly description: string;
  readonly default: RuleSetting;
  /** Its fixes cannot change the meaning (Fix All Safe Issues applies them when there is exactly one). */
  readonly safe: boolean;
}

export const FAMILIES = {
  spelling: {
    setting: 'spelling',
    title: 'Spelling',
    source: "Code Spell Checker's dictionaries (cspell), for the dialect chosen",
    description:
      "Words that neither the dialect's dictionary nor the software-terms, tools and companies lists know; " +
      'another English\'s spelling ("behaviour" under American) and a word made of known parts with no typo in ' +
      'sight ("servername") are hints. Names (capitalised words inside a sentence), inline code, code blocks, ' +
      'links, e-mail addresses, identifiers, flags, handles, words with digits, language codes, units, the ' +
      "words the document writes as code, the names of the project's manifest (package.json, pyproject.toml, " +
      "Cargo.toml), and the words of the personal and project dictionaries (cSpell.words, cspell.json, Vale's " +
      'accept.txt) are left out.',
    default: 'warning',
    safe: true,
  },
  grammar: {
    setting: 'grammar',
    title: 'Grammar and usage',
    source: 'Harper',
    description:
      "Harper's rules: agreement, articles (a/an), confused words, capitalisation, punctuation, word order and " +
      'several hundred more. Single rules can be turned off with `#draftsmith.checks.grammarRulesOff#`.',
    default: 'warning',
    safe: false,
  },
  'repeated-word': {
    setting: 'repeatedWords',
    title: 'Repeated words',
    source: 'Harper (RepeatedWords)',
    description: 'The same word twice in a row ("the the"): an error, since it is almost never meant.',
    default: 'error',
    safe: true,
  },
  spacing: {
    setting: 'spacing',
    title: 'Spacing',
    source: 'Harper (Spaces, NoFrenchSpaces)',
    description:
      'Two or more spaces between words or after a sentence; not in Markdown, where runs of spaces are one ' +
      'space when rendered.',
    default: 'information',
    safe: true,
  },
  'long-sentence': {
    setting: 'longSentences',
    title: 'Long sentences',
    source: 'Harper (LongSentences)',
    description: 'Sentences of more than 40 words, which readers find hard to follow.',
    default: 'information',
    safe: false,
  },
  'passive-voice': {
    setting: 'passiveVoice',
    title: 'Passive voice',
    source: 'retext-passive',
    description: 'A form of "to be" followed by a past participle ("was thrown"): the doer of the action is hidden.',
    default: 'hint',
    safe: false,
  },
  'wordy-phrase': {
    setting: 'wordyPhrases',
    title: 'Wordy phrases',
    source: 'retext-simplify',
    description: 'Phrases with a simpler or shorter alternative ("in order to" → "to").',
    default: 'hint',
    safe: false,
  },
} as const satisfies Record<string, FamilySpec>;

export type Family = keyof typeof FAMILIES;
export const FAMILY_NAMES = Object.keys(FAMILIES) as Family[];

/**
 * Harper rules off by default. On JFLEG they flag corrected sentences at least half as often (per
 * sentence) as erroneous ones, with 5 false flags or more (`draftsmith eval checks`, docs/checks.md).
 * Most are style preferences (the Oxford comma, "and also", regionalisms) rather than errors.
 */
const JFLEG_FALSE_ALARMS = [
  'AvoidAndAlso',
  'CompoundNouns',
  'Excellent',
  'MissingTo',
  'OxfordComma',
  'Regionalisms',
  'WouldNeverHave',
];

/**
 * Harper rules that read the terms of technical writing as mistakes, counted on edited READMEs and
 * API docs (docs/checks.md): the abbreviations of the trade ("params", "stdin", "10ms", "config")
 * spelled out, identifiers split ("needDrain" → "need Drain", "millis" → "mill is"), "callback" and
 * "timeout" read as phrasal verbs, "UNC" and "unreference" read as a mistyped negative, countable uses
 * of mass nouns ("redirections"), capitals asked of
 * names a project spells its own way ("api", "url"), and typographic preferences (an en dash in
 * "100-199", "nonzero" for "non-zero", "all the" for "all of the", a comma after "Otherwise").
 */
const TECHNICAL_FALSE_ALARMS = [
  'CondenseAllThe',
  'DiscourseMarkers',
  'DisjointPrefixes',
  'ExpandAlgorithm',
  'ExpandAlloc',
  'ExpandArgument',
  'ExpandConfiguration',
  'ExpandCoordinate',
  'ExpandDecl',
  'ExpandDependencies',
  'ExpandDereference',
  'ExpandDirectory',
  'ExpandMemoryShorthands',
  'ExpandMinimum',
  'ExpandParameter',
  'ExpandPointer',
  'ExpandStandardInputAndOutput',
  'ExpandTimeShorthands',
  'MassNouns',
  'NumericRangeEnDash',
  'OkToOkay',
  'OrthographicConsistency',
  'PhrasalVerbAsCompoundNoun',
  'SplitWords',
  'WrongNegative',
];

export const DEFAULT_GRAMMAR_RULES_OFF: readonly string[] = [...JFLEG_FALSE_ALARMS, ...TECHNICAL_FALSE_ALARMS];

/**
 * Harper rules not applied to Markdown, where they were wrong more often than right on edited READMEs
 * and API docs (docs/checks.md). A sentence that starts in lower case is mostly a name written that
 * way (undici, h2c, picomatch), a method or file name (.description, .npmignore) or a table of
 * contents entry; reference docs drop articles on purpose ("Whether to include request body"); and a
 * state name or participle after "to" ("transition to destroyed") is not a verb that should be bare.
 */
export const MARKDOWN_GRAMMAR_RULES_OFF: readonly string[] = [
  'InflectedVerbAfterTo',
  'MissingDeterminer',
  'MissingPreposition',
  'SentenceCapitalization',
];

/** The Harper rules that are families of their own; every other Harper rule is grammar. */
export const HARPER_FAMILY: Readonly<Record<string, Family>> = {
  RepeatedWords: 'repeated-word',
  Spaces: 'spacing',
  NoFrenchSpaces: 'spacing',
  LongSentences: 'long-sentence',
};

/** The families Harper finds: with all of them off, Harper is neither loaded nor run. */
export const HARPER_FAMILIES: readonly Family[] = ['grammar', ...new Set(Object.values(HARPER_FAMILY))];

/** Harper rules never run: spelling is nspell's. */
export const HARPER_ALWAYS_OFF: readonly string[] = ['SpellCheck'];

/** The default setting of every family. */
export function defaultRuleSettings(): Record<Family, RuleSetting> {
  return Object.fromEntries(FAMILY_NAMES.map((f) => [f, FAMILIES[f].default])) as Record<Family, RuleSetting>;
}
