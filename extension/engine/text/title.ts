/**
 * A plain-text document's title line: what news pages, notes and drafts put first ("Indonesians face
 * fuel price rise", a blank line, then the article). It is not a sentence: a summary leaves it out
 * (or shows it as the title), never glues it to the first sentence, and Lead-3 does not count it.
 */
import { looksLikeMarkup } from './reader';

/**
 * Where a plain-text title ends (0: the text has none): a first line with a letter, at most 25
 * words and no end punctuation, followed by a blank line and more text ("Indonesians face fuel price
 * rise", then the article). Sentences that start before it are the title: kept out of the summary,
 * never glued to the first sentence.
 */
export function titleEnd(text: string): number {
  const m = /^(\s*)(\S[^\n]*?)[ \t]*\r?\n[ \t]*\r?\n/u.exec(text);
  if (!m) return 0;
  const line = m[2];
  if (/[.!?…:;,]["'”’)\]]*$/u.test(line) || looksLikeMarkup(line)) return 0;
  if (
    !/\p{L}/u.test(line) ||
    (line.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).length > 25 ||
    !/\S/.test(text.slice(m[0].length))
  )
    return 0;
  return m[1].length + line.length;
}
