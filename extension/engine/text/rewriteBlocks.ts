// What Rewrite Selection sends of a Markdown document: one prose block (a paragraph or a list
// item) as written, inline markup included (links, inline code, emphasis: the model is asked to
// keep them, and the result is flagged when it does not), but never its list or quote marker, and
// never code, front matter, a table or HTML. Round-Trip's reader (proseText.ts) finds the block; the
// span is then widened to the markup at its edges ("**Note:** …", "… [the report](url).") so that
// no mark is cut in half, and only that span is replaced.
import { readMarkdown } from './markdown';
import { compactSpan, documentSpan, proseBlockAt, type Skipped } from './proseText';
import type { Span } from './reader';

export type RewriteBlock =
  | {
      kind: 'prose';
      /** The block's text in the document, markers excluded: what is sent, and what is replaced. */
      span: Span;
      text: string;
      skipped: Skipped;
      /** Other prose blocks the selection touches, left as they are. */
      otherBlocks: number;
    }
  | { kind: 'none'; what: string };

/** A list, quote or task marker at a line's start. */
const MARKER = /^[ \t]*(?:>[ \t]?)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?/u;

/** Widens a prose span to the whole of its first and last lines, less the marker and the trailing space. */
function widened(text: string, span: Span): Span {
  let lineStart = span.start;
  while (lineStart > 0 && text[lineStart - 1] !== '\n' && text[lineStart - 1] !== '\r') lineStart--;
  let lineEnd = span.end;
  while (lineEnd < text.length && text[lineEnd] !== '\n' && text[lineEnd] !== '\r') lineEnd++;
  const marker = MARKER.exec(text.slice(lineStart, span.start))?.[0].length ?? 0;
  let end = lineEnd;
  while (end > span.end && /\s/u.test(text[end - 1])) end--;
  return { start: Math.min(span.start, lineStart + marker), end: Math.max(span.end, end) };
}

/** The block at the cursor (start === end) or the first the selection touches, clipped to a selection. */
export function rewriteBlockAt(text: string, start: number, end: number): RewriteBlock {
  const block = proseBlockAt(text, start, end);
  if (block.kind === 'none') return block;
  // A selection is taken as selected; the paragraph at the cursor is taken whole, markup and all.
  const span = start === end ? widened(text, block.span) : block.span;
  return {
    kind: 'prose',
    span,
    text: text.slice(span.start, span.end),
    skipped: block.skipped,
    otherBlocks: block.otherBlocks,
  };
}

/** Every prose block of a Markdown document, in order, as rewriteBlockAt takes a block at the cursor. */
export function rewriteBlocks(text: string): { span: Span; text: string }[] {
  const doc = readMarkdown(text);
  const out: { span: Span; text: string }[] = [];
  for (const p of doc.paragraphs) {
    const compact = compactSpan(doc.prose, p.start, p.end, text);
    if (compact.text.length === 0) continue;
    const span = widened(text, documentSpan(compact, 0, compact.text.length));
    if (out.length > 0 && span.start < out[out.length - 1].span.end) continue;
    out.push({ span, text: text.slice(span.start, span.end) });
  }
  return out;
}
