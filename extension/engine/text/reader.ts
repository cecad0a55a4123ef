// The one reader of text: what a paragraph, a sentence and prose are, and whether text is readable
// at all. The systems, the host's edits and the metrics all ask here, so a sentence is the same
// thing in Lead-3, in Round-Trip's input and in the editor's paragraph.
//
// Offsets are UTF-16 code units: text.slice(start, end), and what VS Code's offsetAt/positionAt
// count. A span found in a selection is moved into the document by adding the selection's offset.
//
// Lines end at \r\n, \r or \n (VS Code's line breaks). A line is blank when it holds only
// whitespace (JavaScript's \s, which is VS Code's isEmptyOrWhitespace); blank lines separate
// paragraphs, and a single line break inside a paragraph is a soft wrap.
//
// Sentences follow a small rule set, not a trained model. It is the TypeScript twin of the
// Round-Trip recipe's split_sentences (models/train/draftsmith_train/roundtrip_data.py): on the
// held-out paragraphs, 95 % come out exactly as the recipe split them (wink-nlp's splitter: 88 %,
// which is why this one, not wink's, is authoritative; text/nlp.ts tags the sentences found here).
// Most of the rest are the recipe's own mistakes, such as a cut after "Gov." or '"Mr.'.
//   - a paragraph break always ends a sentence (headings and list items carry no final period);
//   - a sentence ends at . ! or ? (repeats like "?!" or "..." included), plus any closing quotes or
//     brackets, when whitespace and then a capital (or a letter of a script without case: Chinese,
//     Hebrew, Arabic...) follow, possibly after an opening quote or bracket; in a paragraph written
//     without capitals (chat, notes), when whitespace and any letter follow. Never without the
//     space: "Data.Monoid" or "http.Handler" in technical text stay whole;
//   - and at the ideographic full stop and the full-width ! and ? (。！？), which need no space
//     (after closing quotes, only when a space, the end or another quote follows);
//   - except after a known abbreviation ("Mr.", "Dr.", "Jan.", "e.g.", ...), a dotted initialism
//     ("U.S.", "a.m.") or a single-capital initial ("J. K. Rowling"), which are nearly always
//     followed by more of the same sentence. The cost: "He moved to the U.S. Then ..." stays one.
//
// Markdown: text/markdown.ts reads a Markdown document with markdown-it into blocks and sections by
// heading, and gives its prose as a "prose view" of the same length (markup blanked), which this
// reader then splits like any text: its offsets are the document's. blocks() below stays the plain
// reading; looksLikeMarkup() keeps a heading or a table row from passing for prose in plain text.

/** A stretch of the text that was read: text.slice(start, end). */
export interface Span {
  start: number;
  end: number;
}

/** A paragraph: its text exactly as written (text.slice(start, end)), without the whitespace around it. */
export interface Paragraph extends Span {
  text: string;
}

/** One sentence: its text with whitespace collapsed, and where it lies in the original text. */
export interface SentenceSpan extends Span {
  /** text.slice(start, end) with every run of whitespace made one space (a soft wrap is a space). */
  text: string;
}

// ---------------------------------------------------------------------------------------------
// Lines and paragraphs

const NON_SPACE = /\S/;

const isBreak = (c: number) => c === 10 || c === 13;

/** The end of the line that contains `offset` (before its line break). */
function lineEnd(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && !isBreak(text.charCodeAt(at))) at++;
  return at;
}

/** The start of the line that contains `offset`. */
function lineStart(text: string, offset: number): number {
  let at = offset;
  while (at > 0 && !isBreak(text.charCodeAt(at - 1))) at--;
  return at;
}

/** Where the line after the one ending at `end` starts (past \r\n, \r or \n); text.length at the last. */
function nextLine(text: string, end: number): number {
  if (end >= text.length) return text.length;
  return text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
}

/** Where the line before the one starting at `start` ends (before its break); -1 at the first line. */
function previousLineEnd(text: string, start: number): number {
  if (start === 0) return -1;
  return text.charCodeAt(start - 1) === 10 && text.charCodeAt(start - 2) === 13 ? start - 2 : start - 1;
}

const isBlank = (text: string, start: number, end: number) => !NON_SPACE.test(text.slice(start, end));

/** The lines of `text` as spans (without their line breaks). */
export function lineSpans(text: string): Span[] {
  const out: Span[] = [];
  for (let start = 0; ;) {
    const end = lineEnd(text, start);
    out.push({ start, end });
    if (end >= text.length) return out;
    start = nextLine(text, end);
  }
}

/** The index of the line that holds `offset` (binary search over line starts). */
export function lineIndexOf(lines: readonly Span[], offset: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid].start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The span from `start` to `end` without the whitespace at either end; undefined when nothing is left. */
function trimmed(text: string, start: number, end: number): Paragraph | undefined {
  const raw = text.slice(start, end);
  const body = raw.trim();
  if (body.length === 0) return undefined;
  const from = start + (raw.length - raw.trimStart().length);
  return { start: from, end: from + body.length, text: body };
}

/** The paragraphs of `text`: runs of non-blank lines, in order. */
export function paragraphSpans(text: string): Paragraph[] {
  const out: Paragraph[] = [];
  let first = -1; // start of the current paragraph's first line
  let last = 0; // end of its last line
  for (const line of lineSpans(text)) {
    if (isBlank(text, line.start, line.end)) {
      if (first >= 0) {
        const p = trimmed(text, first, last);
        if (p) out.push(p);
      }
      first = -1;
    } else {
      if (first < 0) first = line.start;
      last = line.end;
    }
  }
  if (first >= 0) {
    const p = trimmed(text, first, last);
    if (p) out.push(p);
  }
  return out;
}

/**
 * The paragraph whose lines hold `offset` (the editor's cursor): undefined on a blank line. Only the
 * lines around the offset are read, so a long document costs no more than its paragraph.
 */
export function paragraphAt(text: string, offset: number): Paragraph | undefined {
  let at = Math.max(0, Math.min(offset, text.length));
  if (at > 0 && text.charCodeAt(at - 1) === 13 && text.charCodeAt(at) === 10) at--; // inside a \r\n: its line's end
  const start0 = lineStart(text, at);
  const end0 = lineEnd(text, at);
  if (isBlank(text, start0, end0)) return undefined;
  let first = start0;
  for (;;) {
    const prevEnd = previousLineEnd(text, first);
    if (prevEnd < 0) break;
    const prevStart = lineStart(text, prevEnd);
    if (isBlank(text, prevStart, prevEnd)) break;
    first = prevStart;
  }
  let last = end0;
  while (last < text.length) {
    const nextStart = nextLine(text, last);
    const nextEnd = lineEnd(text, nextStart);
    if (isBlank(text, nextStart, nextEnd)) break;
    last = nextEnd;
  }
  return trimmed(text, first, last);
}

// ---------------------------------------------------------------------------------------------
// Sentences

/** Abbreviations (lowercase, without the final period) that do not end a sentence. Titles,
 * months and Latin short forms only: "Inc." or "etc." end sentences too often to list. */
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'rev',
  'hon',
  'gen',
  'sen',
  'rep',
  'gov',
  'pres',
  'lt',
  'col',
  'capt',
  'sgt',
  'mt',
  'fr',
  'no',
  'nos',
  'vs',
  'v',
  'cf',
  'al',
  'fig',
  'approx',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/** Terminal punctuation plus closing quotes/brackets, when followed by space and a capital (or a
 * caseless script's letter); or an ideographic full stop / full-width ! ?, at once, or after closing
 * quotes when a space, the end or a new quote follows (「行こう！」と言った goes on after the quote). */
const BOUNDARY =
  /[.!?]+["'”’»)\]]*(?=\s+["'“‘«([]*[\p{Lu}\p{Lo}])|[。！？]+(?:(?![」』”’）)])|[」』”’）)]+(?=\s|$|[「『“‘（(]))/gu;

/** BOUNDARY for a paragraph without a capital letter: any letter may start the next sentence. */
const BOUNDARY_CASELESS = new RegExp(BOUNDARY.source.replace('[\\p{Lu}\\p{Lo}]', '\\p{L}'), 'gu');

/** True when the period at the end of `word` (which includes it) belongs to an abbreviation. The
 * decoding guards ask it too (decode/guards.ts), so a name after "U.S." is inside a sentence there as here. */
export function isAbbreviation(word: string): boolean {
  const bare = word.replace(/^[^\p{L}]+/u, '').slice(0, -1); // drop "(" or '"' before, "." after
  if (ABBREVIATIONS.has(bare.toLowerCase())) return true;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(bare)) return true; // U.S  e.g  a.m
  return /^\p{Lu}$/u.test(bare); // an initial: J. K. Rowling
}

function pushSentence(source: string, start: number, end: number, out: SentenceSpan[]): void {
  const s = trimmed(source, start, end);
  if (s) out.push({ start: s.start, end: s.end, text: s.text.replace(/\s+/g, ' ') });
}

/** The sentences of one paragraph, source.slice(from, to), by the rules above. */
function splitParagraph(source: string, from: number, to: number, out: SentenceSpan[]): void {
  const paragraph = source.slice(from, to);
  let start = 0;
  // Text written without capitals (chat, notes) starts its sentences in lowercase.
  const boundary = /\p{Lu}/u.test(paragraph) ? BOUNDARY : BOUNDARY_CASELESS;
  for (const m of paragraph.matchAll(boundary)) {
    const at = m.index ?? 0;
    const end = at + m[0].length;
    if (m[0] === '.') {
      // The word the period ends, found by walking back (a search over the whole prefix would make a
      // megabyte of text quadratic).
      let wordStart = at;
      while (wordStart > 0 && !/\s/.test(paragraph[wordStart - 1])) wordStart--;
      if (isAbbreviation(paragraph.slice(wordStart, end))) continue;
    }
    pushSentence(source, from + start, from + end, out);
    start = end;
  }
  pushSentence(source, from + start, to, out);
}

/** The sentences of `text` by the rules above, each with its span in `text`. */
export function sentenceSpans(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  for (const p of paragraphSpans(text)) splitParagraph(text, p.start, p.end, out);
  return out;
}

/** The sentences of `text` as strings; whitespace inside a sentence is collapsed. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}

// ---------------------------------------------------------------------------------------------
// Blocks: the seam for Markdown

/** What a block of a document is. Plain text has paragraphs only; Markdown adds its kinds
 * (heading, code, list, table...) from a real parser. */
export type BlockKind = 'paragraph';

export interface Block extends Paragraph {
  kind: BlockKind;
}

/**
 * The blocks of a document, in order. Today every document is read as plain text: one block per
 * paragraph. This is where a Markdown document will be parsed into sections, so that a
 * system takes its prose paragraphs and skips code fences, tables and front matter; callers that
 * walk a document block by block need not change when it does.
 */
export function blocks(text: string): Block[] {
  return paragraphSpans(text).map((p) => ({ ...p, kind: 'paragraph' }));
}

/** A "sentence" that is Markdown structure rather than prose: an ATX heading, a code fence, a table
 * row. A stand-in for the block kinds until blocks() parses Markdown. */
export function looksLikeMarkup(sentence: string): boolean {
  return /^(?:#{1,6}(?:\s|$)|```|~~~|\|)/u.test(sentence);
}

// ---------------------------------------------------------------------------------------------
// Is this prose?

/** A line that opens like a statement of code: a keyword, then a colon, bracket, brace, semicolon or "=". */
const CODE_LINE_START = new RegExp(
  String.raw`^\s*(?:${[
    'def',
    'class',
    'function',
    'import',
    'from',
    'return',
    'if',
    'for',
    'while',
    'var',
    'let',
    'const',
    '#include',
    'public',
    'private',
    'fn',
  ].join('|')})\b.*[:({;=]`,
);

/** Why a text is not a paragraph of prose (a code block, a list, code), or undefined when it may be one. */
export function notProse(text: string): string | undefined {
  if (/^\s*(```|~~~)/m.test(text)) return 'This looks like a code block (it has a ``` fence), not a paragraph of prose';
  const lines = lineSpans(text)
    .map((l) => text.slice(l.start, l.end))
    .filter((l) => l.trim().length > 0);
  const items = lines.filter((l) => /^\s*(?:[-*+•‣◦]|\d{1,3}[.)]|[a-z][.)])\s+\S/.test(l)).length;
  if (lines.length >= 2 && items >= lines.length / 2) {
    return `This looks like a list (${items} of its ${lines.length} lines are list items), not a paragraph of prose`;
  }
  const codeLike = (l: string) =>
    /[;{}]\s*$/.test(l) || CODE_LINE_START.test(l) || (/^(?: {4}|\t)/.test(l) && lines.length >= 2);
  const code = lines.filter(codeLike).length;
  if (code > 0 && code >= lines.length / 2) {
    return (
      `This looks like code (${code} of its ${lines.length} line${lines.length === 1 ? '' : 's'} read as code), ` +
      `not a paragraph of prose`
    );
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Readable text and script

/** The share of junk characters above which text is taken for binary data, not writing. */
export const MAX_JUNK_SHARE = 0.1;

/** More than this share of the letters unknown to a model's vocabulary: the text is in a script it does not read. */
export const MAX_UNKNOWN_SHARE = 0.5;

/**
 * True when text has something a model could read: a letter or a number (Unicode L or N), in any
 * script. False when it is empty, or whitespace, punctuation, symbols, control or replacement
 * characters only.
 */
export function hasReadableText(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/** True when text has a letter of any script (a word, not only digits or symbols). */
export function hasLetter(text: string): boolean {
  return /\p{L}/u.test(text);
}

/** The letters (Unicode L, any script) in `text`. */
export function letterCount(text: string): number {
  return (text.match(/\p{L}/gu) ?? []).length;
}

/**
 * Text decoded from a binary file is full of NULs, replacement characters and C0 controls; models
 * trained on prose do nothing useful with it. Returns the share of such characters.
 */
export function junkRatio(text: string): number {
  if (text.length === 0) return 0;
  let junk = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c === 0xfffd || (c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) junk++;
  }
  return junk / text.length;
}

/**
 * Whether a system can read `text` at all: 'empty' (nothing but white space and invisible format
 * characters), 'binary' (mostly junk: NULs, controls, replacement characters), 'no-words'
 * (characters, but not one letter or number: emoji, symbols, punctuation) or 'readable'.
 */
export function readability(text: string): 'empty' | 'no-words' | 'binary' | 'readable' {
  if (/^[\s\p{Cf}]*$/u.test(text)) return 'empty';
  if (junkRatio(text) > MAX_JUNK_SHARE) return 'binary';
  if (!hasReadableText(text)) return 'no-words';
  return 'readable';
}

/** A subword the way a tokenizer found it: its id and the source text it covers. */
export interface ReadPiece {
  id: number;
  text: string;
}

/** How much of a text's writing a vocabulary knows, counted in letters. */
export interface ScriptShare {
  /** Letters in the text that was read. */
  letters: number;
  /** Letters hidden in unknown pieces. */
  unknownLetters: number;
}

/**
 * Letters the vocabulary lacks (another script) reach a model as the unknown piece. They are judged
 * by the letters they hide, since one unknown piece may stand for a whole word or line of them.
 * `read` is the text the pieces cover.
 */
export function scriptShare(read: string, pieces: readonly ReadPiece[], unk: number): ScriptShare {
  let unknownLetters = 0;
  for (const p of pieces) if (p.id === unk) unknownLetters += letterCount(p.text);
  return { letters: letterCount(read), unknownLetters };
}

/** True when the model knows none of the letters (there are none, or all are another script's). */
export function noKnownLetter(s: ScriptShare): boolean {
  return s.unknownLetters === s.letters;
}

/** True when most of the letters are unknown to the model: the text is in a script it does not read. */
export function mostlyUnknownScript(s: ScriptShare): boolean {
  return s.unknownLetters > MAX_UNKNOWN_SHARE * Math.max(1, s.letters);
}
