// Lead-3: the extractive baseline of summarization papers (See et al. 2017; Nallapati et al. 2017):
// the summary is the document's first three sentences. TAAS reports ROUGE against it.
//
// The sentence splitter is a deliberately small rule set, not a trained model (papers use
// NLTK Punkt or Stanford CoreNLP, so Lead-3 scores can differ slightly from published ones):
//   - a blank line always ends a sentence (headings and list items carry no final period);
//   - otherwise a sentence ends at . ! or ? (repeats like "?!" or "..." included), plus any closing
//     quotes or brackets, when whitespace and then an uppercase letter follow, possibly after an
//     opening quote or bracket;
//   - except after a known abbreviation ("Mr.", "Dr.", "Jan.", "e.g.", ...), a dotted initialism
//     ("U.S.", "a.m.") or a single-capital initial ("J. K. Rowling"), which are nearly always
//     followed by more of the same sentence. The cost: "He moved to the U.S. Then ..." stays one.
//   - line breaks inside a paragraph are soft wraps and become spaces.

/** Abbreviations (lowercase, without the final period) that do not end a sentence. Titles,
 * months and Latin short forms only: "Inc." or "etc." end sentences too often to list. */
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'rev', 'hon', 'gen', 'sen', 'rep', 'gov',
  'pres', 'lt', 'col', 'capt', 'sgt', 'mt', 'fr', 'no', 'nos', 'vs', 'v', 'cf', 'al', 'fig', 'approx',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);

/** Terminal punctuation plus closing quotes/brackets, when followed by space and a capital. */
const BOUNDARY = /[.!?]+["'”’)\]]*(?=\s+["'“‘(\[]*\p{Lu})/gu;

/** True when the period at the end of `word` (which includes it) belongs to an abbreviation. */
function isAbbreviation(word: string): boolean {
  const bare = word.replace(/^[^\p{L}]+/u, '').slice(0, -1); // drop "(" or '"' before, "." after
  if (ABBREVIATIONS.has(bare.toLowerCase())) return true;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(bare)) return true; // U.S  e.g  a.m
  return /^\p{Lu}$/u.test(bare); // an initial: J. K. Rowling
}

function splitParagraph(paragraph: string, out: string[]): void {
  const text = paragraph.replace(/\s+/g, ' ').trim();
  let start = 0;
  for (const m of text.matchAll(BOUNDARY)) {
    const end = (m.index ?? 0) + m[0].length;
    if (m[0] === '.') {
      const wordStart = text.lastIndexOf(' ', m.index ?? 0) + 1;
      if (isAbbreviation(text.slice(wordStart, end))) continue;
    }
    out.push(text.slice(start, end).trim());
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest.length > 0) out.push(rest);
}

/** Splits text into sentences with the rules above; whitespace inside a sentence is collapsed. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\n[ \t\r]*\n/)) splitParagraph(paragraph, out);
  return out.filter((s) => s.length > 0);
}

/** The first `n` sentences of a document (fewer when it is shorter). */
export function leadSentences(text: string, n = 3): string[] {
  return splitSentences(text).slice(0, n);
}

/** The Lead-3 summary, one sentence per line: the form ROUGE-Lsum expects. */
export function lead3(text: string): string {
  return leadSentences(text, 3).join('\n');
}
