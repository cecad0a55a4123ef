/**
 * The names a document writes as code: the words of its code blocks, inline code, link addresses
 * and bare URLs. Technical prose names in words what its code names in identifiers ("call
 * `path.realpath()` … return the realpath", "`{ servername }` … the servername", "[yazl](…/yazl)"),
 * and a word the document also writes as code is that code's name, not a misspelling: a typo in
 * prose is not repeated in code the writer ran, nor in an address that resolves. Identifiers are
 * split where code joins words (camelCase, snake_case, dots, slashes), so `maxRedirections` gives
 * "redirections".
 *
 * Left out: links to a heading of the same page (`#anchor`) and the fragment of an address, which a
 * renderer makes from the heading's prose, misspellings included.
 */
import type { CheckFinding } from './checker';
import type { DocumentFormat } from '../text/markdown';

const FENCE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))/gm;
/** A code span, not across a blank line (a stray backtick must not make paragraphs code). */
const INLINE_CODE = /(`+)(?!`)((?:(?!\n[ \t]*\n)[\s\S])*?[^`])\1(?!`)/g;
const LINK_TARGET = /\]\(\s*<?([^)\s>]+)/g;
const REFERENCE = /^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)/gm;
const URL = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>()[\]"'`]+/gi;

/** The lower-cased words of a piece of code or an address (identifiers split where code joins words). */
function wordsOf(code: string, into: Set<string>): void {
  const split = code.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  for (const w of split.split(/[^\p{L}]+/u)) if (w.length > 1) into.add(w.toLowerCase());
}

/** The words `text` writes as code (see the header); in plain text, only its addresses. */
export function codeVocabulary(text: string, format: DocumentFormat): Set<string> {
  const words = new Set<string>();
  const address = (a: string) => {
    if (!a.startsWith('#')) wordsOf(a.replace(/#.*$/, ''), words);
  };
  for (const m of text.matchAll(URL)) address(m[0]);
  if (format !== 'markdown') return words;
  for (const m of text.matchAll(FENCE)) wordsOf(m[0], words);
  for (const m of text.matchAll(INLINE_CODE)) wordsOf(m[2], words);
  for (const m of text.matchAll(LINK_TARGET)) address(m[1]);
  for (const m of text.matchAll(REFERENCE)) address(m[1]);
  return words;
}

/** Drops, in place, the spelling findings of words `text` writes as code (see the header). */
export function withoutCodeNames(findings: CheckFinding[], text: string, format: DocumentFormat): void {
  if (!findings.some((f) => f.family === 'spelling')) return;
  const code = codeVocabulary(text, format);
  let k = 0;
  for (const f of findings)
    if (!(f.family === 'spelling' && f.word && code.has(f.word.toLowerCase()))) findings[k++] = f;
  findings.length = k;
}
