/**
 * What technical prose writes outside backticks that is code or a name, not English: identifiers,
 * command-line flags, versions, handles, list enumerators. The checker reads each as a placeholder
 * word, as it reads inline code, so that "set SACREBLEU_DIR first" or "pass --echo" is a sentence
 * with nothing in it to flag ("DIR" → "directory", "--" → an en dash were false alarms counted on
 * real READMEs), and a finding that touches one is dropped.
 *
 * A few words in double quotes with no punctuation inside ("the the", "wich", "an boolean") are
 * mentioned, not used: a writer quotes a word or an error to talk about it. Dialogue keeps its
 * punctuation inside the quotes ("Go," she said) and is checked.
 *
 * Each pattern runs only where its telltale is in the paragraph: most paragraphs have none.
 */

export interface TechnicalPattern {
  readonly what: string;
  readonly telltale: RegExp;
  readonly pattern: RegExp;
}

export const TECHNICAL: readonly TechnicalPattern[] = [
  {
    what: 'camelCase and PascalCase with inner capitals (needDrain, EventSource, SQLite)',
    telltale: /[a-z][A-Z]|[A-Z]{2}[a-z]{2}/,
    pattern: /(?<![\w$.-])[A-Za-z_$]*(?:[a-z][A-Z]|[A-Z]{2}[a-z]{2})[\w$]*(?:\(\))?/g,
  },
  {
    what: 'snake_case and SCREAMING_CASE (SACREBLEU_DIR, max_length)',
    telltale: /\w_\w/,
    pattern: /(?<![\w$.-])[A-Za-z_$][\w$]*_[\w$]+(?:\(\))?/g,
  },
  {
    what: 'dotted names and calls (processing.running, undici.Dispatcher, destroy())',
    telltale: /\w\.\w|\w\(\)/,
    // Each part two characters or more: "e.g.", "i.e." and "U.S." are words.
    pattern: /(?<![\w$.-])[A-Za-z_$][\w$]+(?:\.[A-Za-z_$][\w$]+)+(?:\(\))?|(?<![\w$.-])[A-Za-z_$][\w$]*\(\)/g,
  },
  {
    what: 'versions (1.2.3, v7, v2.0.0-beta.1)',
    telltale: /\d\.\d|\bv\d/,
    pattern: /(?<![\w.])(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+)(?:[-+][\w.]*\w)?(?![\w])/g,
  },
  {
    what: 'command-line flags (--echo, -m, --max-header-size=16KiB)',
    telltale: /(?<![\w-])--?[A-Za-z]/,
    pattern: /(?<![\w-])--?[A-Za-z][\w-]*(?:=[^\s,;)]+)?/g,
  },
  {
    what: 'handles and scoped package names (@martinpopel, @huggingface/transformers)',
    telltale: /@/,
    pattern: /(?<![\w@])@[A-Za-z0-9][\w.-]*(?:\/[\w.-]*\w)?/g,
  },
  {
    what: 'words mentioned in quotes, up to four, no punctuation inside ("the the", "wich", "a"/"an")',
    telltale: /["\u201c]/,
    pattern:
      /"[\p{L}\p{M}'\u2019-]+(?: [\p{L}\p{M}'\u2019-]+){0,3}"|\u201c[\p{L}\p{M}'\u2019-]+(?: [\p{L}\p{M}'\u2019-]+){0,3}\u201d/gu,
  },
  {
    what: 'list enumerators ((i), (ii), (a)) and numbered terms (Type-I, Type-II)',
    telltale: /\([ivxa-h]{1,4}\)|-[IVX]+\b/,
    pattern: /\((?:[ivx]{1,4}|[a-h])\)|\b[A-Za-z]+-[IVX]+\b/g,
  },
];
