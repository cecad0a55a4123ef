// The prose of a text for the commands that compare or rewrite it: Score Draft,
// Check Coherence and Round-Trip Paragraph read a Markdown document through the one reader
// (./markdown.ts), so no metric and no model ever sees a code block, a table, HTML, front matter, a
// link target or a markup character. Plain text is passed through untouched.
//
// - proseOf: the prose of a whole text, for the metrics: each heading's text and each paragraph
//   (list items and quoted paragraphs too) as a paragraph of its own, whitespace collapsed, a blank
//   line between them, so a heading or a list item without a period stays a sentence of its own.
// - proseBlockAt: for Round-Trip in an editor, the ONE prose block (a paragraph or a list item) at
//   the cursor or first in the selection, as compact text with the map back into the document, so
//   Apply replaces only the span of prose the model read: list markers, quote markers, headings and
//   the blocks around stay as written.
import {
  describeSkippedList,
  readDocument,
  readMarkdown,
  type DocumentFormat,
  type MarkdownBlockKind,
  type ReadDocument,
} from './markdown';
import type { Span } from './reader';

export type Skipped = ReadDocument['skipped'];

export interface ProseText {
  format: DocumentFormat;
  /** What a model or metric reads: the text itself (plain), or its prose (Markdown). */
  text: string;
  /** Blocks left out (all zero for plain text). */
  skipped: Skipped;
  /** The reader's notes (an unclosed fence...). */
  notes: string[];
}

const NONE: Skipped = { code: 0, table: 0, html: 0, frontMatter: 0 };

/** The prose of `text` read as `format` (plain text: unchanged). */
export function proseOf(text: string, format: DocumentFormat): ProseText {
  if (format === 'plain') return { format, text, skipped: { ...NONE }, notes: [] };
  const doc = readDocument(text, 'markdown');
  const pieces: { at: number; text: string }[] = [];
  for (const s of doc.sections)
    if (s.heading && s.title.trim()) pieces.push({ at: s.heading.start, text: s.title.replace(/\s+/g, ' ').trim() });
  for (const p of doc.paragraphs) pieces.push({ at: p.start, text: compactSpan(doc.prose, p.start, p.end, text).text });
  pieces.sort((a, b) => a.at - b.at);
  return {
    format,
    text: pieces
      .map((p) => p.text)
      .filter(Boolean)
      .join('\n\n'),
    skipped: doc.skipped,
    notes: doc.notes,
  };
}

/**
 * How a text was read, for the result a user sees ("README.md (the draft) was read as Markdown:
 * skipped 2 code blocks and 1 table."), or undefined for plain text.
 */
export function proseNote(label: string, p: ProseText): string | undefined {
  if (p.format !== 'markdown') return undefined;
  const list = describeSkippedList(p.skipped);
  return (
    `${label} was read as Markdown, prose only: ${list ? `skipped ${list}` : 'no code, tables or HTML to skip'}; ` +
    `markup characters and link targets left out.`
  );
}

/** proseNote and the reader's notes of each text, in order: a result's readNotes (undefined when there are none). */
export function proseNotes(texts: readonly { label: string; prose: ProseText }[]): string[] | undefined {
  const out: string[] = [];
  for (const t of texts) {
    const note = proseNote(t.label, t.prose);
    if (note) out.push(note);
    for (const n of t.prose.notes) out.push(`${t.label}: ${n}`);
  }
  return out.length > 0 ? out : undefined;
}

/** Text with whitespace collapsed, and where each of its characters lies in the document. */
export interface CompactText {
  text: string;
  /** offsets[i]: the document offset of text[i]. */
  offsets: number[];
}

const OPENING = /[([{«“‘]/;
const CLOSING = /[.,;:!?)\]}»”’]/;

/**
 * prose[from, to) with each gap between words one space, trimmed, and its map into the document.
 * `original` is the document: a gap of markup only ("[news](https://…).") is no space before
 * closing punctuation or after an opening one, so a link's sentence ends "news." as written.
 */
export function compactSpan(prose: string, from: number, to: number, original: string = prose): CompactText {
  let text = '';
  const offsets: number[] = [];
  let gap = -1; // where the current gap began, -1 outside one
  let written = false; // whitespace as written in the gap
  for (let i = from; i < to; i++) {
    if (/\s/.test(prose[i])) {
      if (text.length === 0) continue;
      if (gap < 0) {
        gap = i;
        written = false;
      }
      if (/\s/.test(original[i])) written = true;
      continue;
    }
    if (gap >= 0) {
      if (written || !(CLOSING.test(prose[i]) || OPENING.test(text[text.length - 1]))) {
        text += ' ';
        offsets.push(gap);
      }
      gap = -1;
    }
    text += prose[i];
    offsets.push(i);
  }
  return { text, offsets };
}

/** The document span of compact[start, end): from its first character to just past its last. */
export function documentSpan(c: CompactText, start: number, end: number): Span {
  return { start: c.offsets[start], end: c.offsets[end - 1] + 1 };
}

export type ProseBlock =
  | {
      kind: 'prose';
      /** What the model reads: the block's prose (within the selection), whitespace collapsed. */
      compact: CompactText;
      /** The block's prose in the document, clipped to the selection. */
      span: Span;
      /** Blocks in the selection that are not prose. */
      skipped: Skipped;
      /** Other prose blocks (paragraphs, list items) the selection touches, left for another run. */
      otherBlocks: number;
      notes: string[];
    }
  | { kind: 'none'; what: string };

const WHAT: Record<MarkdownBlockKind, string> = {
  heading: 'a heading',
  paragraph: 'a paragraph',
  code: 'a code block',
  table: 'a table',
  html: 'an HTML block',
  'front-matter': 'the front matter',
  rule: 'a rule',
};

/**
 * The prose block Round-Trip reads in a Markdown document: the paragraph or list item whose lines
 * hold the cursor (start === end), or the first one the selection [start, end) overlaps, clipped to
 * the selection. kind 'none' names what is there instead ("a code block"), or '' for nothing.
 */
export function proseBlockAt(text: string, start: number, end: number): ProseBlock {
  const doc = readMarkdown(text);
  const lineStart = (o: number) => {
    let a = o;
    while (a > 0 && text[a - 1] !== '\n' && text[a - 1] !== '\r') a--;
    return a;
  };
  const lineEnd = (o: number) => {
    let a = o;
    while (a < text.length && text[a] !== '\n' && text[a] !== '\r') a++;
    return a;
  };
  const cursor = start === end;
  // A block's reach: its whole lines (the cursor on a list marker is in its item).
  const touches = (s: Span) =>
    cursor ? lineStart(s.start) <= start && start <= lineEnd(s.end) : s.start < end && s.end > start;
  const hits = doc.paragraphs.filter(touches);
  if (hits.length === 0) {
    const block = doc.blocks.find((b) =>
      cursor ? b.start <= start && start <= b.end : b.start < end && b.end > start,
    );
    return { kind: 'none', what: block ? WHAT[block.kind] : '' };
  }
  const p = hits[0];
  const span = cursor ? { start: p.start, end: p.end } : { start: Math.max(p.start, start), end: Math.min(p.end, end) };
  const compact = compactSpan(doc.prose, span.start, span.end, text);
  if (compact.text.length === 0) return { kind: 'none', what: 'markup' };
  const skipped = { ...NONE };
  if (!cursor) {
    for (const b of doc.blocks) {
      if (!(b.start < end && b.end > start)) continue;
      if (b.kind === 'code') skipped.code++;
      else if (b.kind === 'table') skipped.table++;
      else if (b.kind === 'html') skipped.html++;
      else if (b.kind === 'front-matter') skipped.frontMatter++;
    }
  }
  return {
    kind: 'prose',
    compact,
    span: documentSpan(compact, 0, compact.text.length),
    skipped,
    otherBlocks: hits.length - 1,
    notes: doc.notes,
  };
}

/** Whether `original` (the document's text of a span) holds more than `read` (the prose read from it):
 * markup characters or link targets inside, which a rewrite of the span would not keep. */
export function holdsMarkup(original: string, read: string): boolean {
  const visible = (s: string) => s.replace(/\s+/g, '').length;
  return visible(original) > visible(read);
}
