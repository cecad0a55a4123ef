/**
 * Non-word rate: the share of a text's alphabetic tokens that an en_US spelling
 * dictionary rejects, the fluency measure the model cards report. The definition is the recipes'
 * own, models/train/draftsmith_train/fluency.py (`sentence_case`, `split_sentences`,
 * `spell_tokens`, `hunspell_rejects`), matched line for line here:
 *  - a text with no capital letter at all gets sentence case first (lower-cased chat text);
 *  - sentences split where '.', '!' or '?' (and closing quotes) precede a space and a capital, a
 *    digit or an opening quote, except after an abbreviation or a single initial;
 *  - a token is a whitespace word with its edge punctuation stripped; tokens with digits, '/', '@'
 *    or '.' are left out; hyphenated words are judged part by part; a final "'s" is dropped; only
 *    parts of ASCII letters (with at most one inner apostrophe) count; a capitalised part that does
 *    not open its sentence is a name and is left out;
 *  - a token is a non-word when the dictionary rejects it both as written and capitalised
 *    ("paris", "i'm" are wrong case, not non-words);
 *  - the rate pools tokens over all the texts: non-words / tokens.
 * The recipes ask hunspell en_US (Debian's hunspell-en-us); here nspell, a JavaScript hunspell,
 * reads the dictionary-en package (hunspell en_US from SCOWL, a smaller word list than Debian's):
 * on the same held-out texts the two rates differ by under one token in a thousand (docs/METRICS.md).
 * The grammatical-sentence rate has no such port: it needs link-grammar (C, Python bindings), so it
 * stays with the model-card tooling (models/train/fluency.sh).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { NonwordSummary } from '../../protocol';

export type { NonwordSummary };

const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr st jr sr vs etc e.g i.e prof gen col lt sgt no fig approx inc ltd co corp dept jan feb mar apr ' +
    'jun jul aug sep sept oct nov dec u.s u.k a.m p.m'
  ).split(' '),
);
const END = /([.!?]+["'”’)\]]*)\s+(?=["'“‘([]?[A-Z0-9])/g;
const CLOSERS = /["'”’)\]]+$/;
const TOKEN_EDGE = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu;
const ALPHA = /^[A-Za-z]+(?:'[A-Za-z]+)?$/;

/** fluency.py `sentence_case`: a text without any capital letter gets them back; cased text is left as it is. */
export function sentenceCase(text: string): string {
  if (/\p{Lu}/u.test(text)) return text;
  const cased = text
    .trim()
    .replace(/(^|[.!?]["')\]]*\s+)([a-z])/g, (_, before: string, c: string) => before + c.toUpperCase());
  return cased.replace(/\bi\b(?=$|[\s',.!?;:])/g, 'I');
}

/** roundtrip_data.py `split_sentences` (the rule fluency.py splits with). */
export function splitSentences(text: string): string[] {
  const t = text.replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  let start = 0;
  for (const m of t.matchAll(END)) {
    const at = m.index;
    const last = (
      t
        .slice(start, at + 1)
        .split(' ')
        .at(-1) ?? ''
    )
      .replace(/[.!?"'”’)\]]+$/, '')
      .toLowerCase();
    if (
      m[1].startsWith('.') &&
      m[1].replace(CLOSERS, '').length === 1 &&
      (ABBREVIATIONS.has(last) || /^[a-z]$/.test(last))
    )
      continue;
    out.push(t.slice(start, at + m[1].length).trim());
    start = at + m[0].length;
  }
  const tail = t.slice(start).trim();
  if (tail) out.push(tail);
  return out.filter((s) => s.length > 0);
}

/** fluency.py `spell_tokens`: the tokens of one sentence that the dictionary judges. */
export function spellTokens(sentence: string): string[] {
  const out: string[] = [];
  sentence
    .replace(/’/g, "'")
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .forEach((raw, i) => {
      const t = raw.replace(TOKEN_EDGE, '');
      if (!t || /\p{Nd}/u.test(t) || t.includes('/') || t.includes('@') || t.includes('.')) return;
      t.split('-')
        .filter((p) => p.length > 0)
        .forEach((p, j) => {
          const part = p.endsWith("'s") ? p.slice(0, -2) : p;
          if (!ALPHA.test(part)) return;
          if (/^[A-Z]/.test(part) && (i > 0 || j > 0)) return; // a name inside the sentence
          out.push(part);
        });
    });
  return out;
}

/** Every token a text's non-word rate judges, sentence by sentence as fluency.py's `score`. */
export function judgedTokens(text: string): string[] {
  return splitSentences(sentenceCase(text)).flatMap(spellTokens);
}

export interface Speller {
  correct(word: string): boolean;
}

let bundled: Speller | undefined;

/** hunspell en_US of the dictionary-en package, read once (~0.3 s). The package is ESM with top-level
 * await, so its files are read directly rather than imported (esbuild bundles CommonJS). */
export function enUsSpeller(): Speller {
  if (!bundled) {
    const dir = path.dirname(require.resolve('dictionary-en'));

    const nspell = require('nspell') as (aff: Buffer, dic: Buffer) => Speller;
    bundled = nspell(readFileSync(path.join(dir, 'index.aff')), readFileSync(path.join(dir, 'index.dic')));
  }
  return bundled;
}

/** fluency.py `hunspell_rejects`: a word is a non-word when rejected as written and capitalised. */
export function isNonword(word: string, speller: Speller = enUsSpeller()): boolean {
  return !speller.correct(word) && !speller.correct(word.charAt(0).toUpperCase() + word.slice(1));
}

/** The non-word rate of the texts together (tokens pooled, as the model cards' rows). */
export function nonwordRate(texts: readonly string[], speller: Speller = enUsSpeller()): NonwordSummary {
  const verdict = new Map<string, boolean>();
  let tokens = 0;
  let nonwords = 0;
  const examples: string[] = [];
  for (const text of texts) {
    for (const w of judgedTokens(text)) {
      tokens++;
      let bad = verdict.get(w);
      if (bad === undefined) {
        bad = isNonword(w, speller);
        verdict.set(w, bad);
        if (bad && examples.length < 12) examples.push(w);
      }
      if (bad) nonwords++;
    }
  }
  return { rate: tokens > 0 ? nonwords / tokens : null, nonwords, tokens, examples };
}
