// Sentence splitting by a small rule set, not a trained model. Lead-3 (metrics/lead.ts) and
// Round-Trip Paragraph (systems/roundtrip.ts) share it. It is the TypeScript twin of the Round-Trip
// recipe's split_sentences (models/train/draftsmith_train/roundtrip_data.py): on the held-out
// paragraphs, 95 % come out exactly as the recipe split them (wink-nlp's splitter: 88 %); most of the
// rest are the recipe's own mistakes, such as a cut after "Gov." or '"Mr.'.
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

/** A blank line: what separates paragraphs. */
const BLANK_LINE = /\n[ \t\r]*\n/g;

/** True when the period at the end of `word` (which includes it) belongs to an abbreviation. */
function isAbbreviation(word: string): boolean {
  const bare = word.replace(/^[^\p{L}]+/u, '').slice(0, -1); // drop "(" or '"' before, "." after
  if (ABBREVIATIONS.has(bare.toLowerCase())) return true;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(bare)) return true; // U.S  e.g  a.m
  return /^\p{Lu}$/u.test(bare); // an initial: J. K. Rowling
}

/** One sentence: its text with whitespace collapsed, and where it lies in the original text. */
export interface SentenceSpan {
  text: string;
  /** Offsets into the text that was split: text.slice(start, end) is the sentence as written. */
  start: number;
  end: number;
}

function pushTrimmed(source: string, start: number, end: number, out: SentenceSpan[]): void {
  const raw = source.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return;
  out.push({ text: trimmed.replace(/\s+/g, ' '), start: start + lead, end: start + lead + trimmed.length });
}

function splitParagraph(source: string, from: number, to: number, out: SentenceSpan[]): void {
  const paragraph = source.slice(from, to);
  let start = 0;
  for (const m of paragraph.matchAll(BOUNDARY)) {
    const at = m.index ?? 0;
    const end = at + m[0].length;
    if (m[0] === '.') {
      // The word the period ends, found by walking back (a search over the whole prefix would make a
      // megabyte of text quadratic).
      let wordStart = at;
      while (wordStart > 0 && !/\s/.test(paragraph[wordStart - 1])) wordStart--;
      if (isAbbreviation(paragraph.slice(wordStart, end))) continue;
    }
    pushTrimmed(source, from + start, from + end, out);
    start = end;
  }
  pushTrimmed(source, from + start, to, out);
}

/** The sentences of `text` by the rules above, each with its span in `text`. */
export function sentenceSpans(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  let from = 0;
  for (const m of text.matchAll(BLANK_LINE)) {
    splitParagraph(text, from, m.index ?? 0, out);
    from = (m.index ?? 0) + m[0].length;
  }
  splitParagraph(text, from, text.length, out);
  return out;
}

/** Splits text into sentences with the rules above; whitespace inside a sentence is collapsed. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}
