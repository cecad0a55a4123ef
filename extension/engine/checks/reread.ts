/**
 * A document's prose after a small edit, without reading the whole document again: when a writer
 * types letters, digits, spaces or plain punctuation inside a word or between words of a paragraph,
 * the Markdown structure cannot change, so the previous read (text/markdown.ts) holds with the
 * paragraph's text updated and the offsets after it shifted. Anything else (a line break, a
 * character Markdown gives meaning to, an edit touching markup, code or a paragraph's ends, a line's
 * first word) returns undefined, and the caller reads the document again. Reading 10,000 words with
 * markdown-it costs tens of milliseconds, most of an edit's check; this costs a few.
 */
import { readDocument, type DocumentFormat } from '../text/markdown';
import type { Paragraph, Span } from '../text/reader';

/** What the checks need of a read: the prose view, its paragraphs and the inline code spans. */
export interface ProseRead {
  prose: string;
  paragraphs: Paragraph[];
  inlineCode: Span[];
}

export function readProse(text: string, format: DocumentFormat): ProseRead {
  const d = readDocument(text, format);
  return { prose: d.prose, paragraphs: d.paragraphs, inlineCode: d.inlineCode };
}

/** Characters that never make or break Markdown structure (no line breaks, no * _ ` [ ] < > & \ # | ~ = + -). */
const SAFE = /^[\p{L}\p{N} .,;:!?'’"“”()]*$/u;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** `next`'s read, derived from `prev` (the read of `prevText`), or undefined when it must be read again. */
export function rereadAfterEdit(prevText: string, prev: ProseRead, next: string): ProseRead | undefined {
  if (prevText === next) return prev;
  const max = Math.min(prevText.length, next.length);
  let p = 0;
  while (p < max && prevText.charCodeAt(p) === next.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && prevText.charCodeAt(prevText.length - 1 - s) === next.charCodeAt(next.length - 1 - s)) s++;
  const oldEnd = prevText.length - s;
  const newEnd = next.length - s;
  const inserted = next.slice(p, newEnd);
  if (!SAFE.test(prevText.slice(p, oldEnd)) || !SAFE.test(inserted)) return undefined;

  // The paragraph that holds the edit and both its neighbours.
  const paras = prev.paragraphs;
  let lo = 0;
  let hi = paras.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (paras[mid].start <= p - 1) lo = mid;
    else hi = mid - 1;
  }
  const para = paras[lo];
  if (!para || para.start > p - 1 || oldEnd >= para.end) return undefined;

  // The words around the edit (up to white space on either side) must be plain prose: every character
  // safe and read as prose, so no entity, escape, emphasis mark or link can appear or vanish.
  let a = p;
  while (a > para.start && !isSpace(prevText.charCodeAt(a - 1))) a--;
  let b = oldEnd;
  while (b < para.end && !isSpace(prevText.charCodeAt(b))) b++;
  const around = prevText.slice(Math.min(a, p - 1), Math.max(b, oldEnd + 1));
  if (!SAFE.test(around.replace(/[ \t\r\n]/g, ' '))) return undefined;
  for (let i = Math.min(a, p - 1); i < Math.max(b, oldEnd + 1); i++)
    if (prev.prose.charCodeAt(i) !== prevText.charCodeAt(i)) return undefined;
  // Not the first word of a line (a list marker or an indent could follow from it).
  let line = p;
  while (line > 0 && prevText.charCodeAt(line - 1) !== 10 && prevText.charCodeAt(line - 1) !== 13) line--;
  if (!/\S/.test(prevText.slice(line, a))) return undefined;
  // Inline code is kept out of the checks: an edit inside a code span needs the reader.
  if (prev.inlineCode.some((c) => c.start <= oldEnd && c.end >= p)) return undefined;

  const delta = newEnd - oldEnd;
  const shift = (x: Span) => (x.start >= oldEnd ? { start: x.start + delta, end: x.end + delta } : x);
  const prose = prev.prose.slice(0, p) + inserted + prev.prose.slice(oldEnd);
  const paragraphs = paras.map((q, i) => {
    if (i < lo) return q;
    const start = i === lo ? q.start : q.start + delta;
    const end = q.end + delta;
    return i === lo ? { start, end, text: prose.slice(start, end) } : { start, end, text: q.text };
  });
  return { prose, paragraphs, inlineCode: prev.inlineCode.map(shift) };
}
