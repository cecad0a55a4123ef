/**
 * What a rewrite never changes: code spans (inline code, and fenced code a selection holds), URLs
 * (bare links, <autolinks>, e-mail addresses, the targets of Markdown links) and front matter. A model
 * that "improves" `npm test`, a URL or a YAML key breaks the document in a way a reader of the diff
 * easily misses, so any change the model made there is not offered: the text is kept byte for byte.
 *
 * The model still reads these spans (they are what the sentence is about, and a small instruct
 * model renames or drops placeholders put in their place); its changes to them are what is dropped.
 */
import { frontMatterEnd } from './markdown';
import type { WordChange } from './wordDiff';

export interface ProtectedSpan {
  start: number;
  end: number;
  /** What it is, as the writer would name it: "inline code", "a URL", "front matter". */
  what: 'inline code' | 'a URL' | 'front matter';
}

/** Runs of backticks closed by as many (CommonMark's code spans; a fence's ``` too). */
const CODE = /(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g;
/** A Markdown link's or image's target and title: "](https://x "t")". */
const LINK_TARGET = /\]\([^)\s]*(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const AUTOLINK = /<(?:[a-z][a-z0-9+.-]*:[^\s<>]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>/gi;
/** Bare links, www. addresses and e-mail addresses (the checker's pattern), without the sentence's full stop. */
const BARE_URL = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>()[\]"'`]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;

/** The spans of `text` a rewrite keeps as they are, in order, none overlapping. */
export function protectedSpans(text: string): ProtectedSpan[] {
  const spans: ProtectedSpan[] = [];
  const fm = frontMatterEnd(text);
  if (fm > 0) spans.push({ start: 0, end: fm, what: 'front matter' });
  for (const m of text.matchAll(CODE)) spans.push({ start: m.index, end: m.index + m[0].length, what: 'inline code' });
  for (const re of [LINK_TARGET, AUTOLINK, BARE_URL])
    for (const m of text.matchAll(re)) {
      const length = re === BARE_URL ? m[0].replace(/[.,;:!?]+$/, '').length : m[0].length;
      spans.push({ start: m.index, end: m.index + length, what: 'a URL' });
    }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: ProtectedSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/**
 * Whether `c` changes any of `span`: it replaces or removes a character of it, or inserts inside it
 * (text put just before or just after a span leaves the span as it was).
 */
export function touches(c: WordChange, span: { start: number; end: number }): boolean {
  return c.end > c.start ? c.start < span.end && c.end > span.start : c.start > span.start && c.start < span.end;
}

/** The changes that leave every protected span of `source` as it is, and those that do not (with what they touch). */
export function withoutProtectedChanges<C extends WordChange>(
  source: string,
  changes: readonly C[],
): { changes: C[]; dropped: (C & { touches: ProtectedSpan['what'] })[] } {
  const spans = protectedSpans(source);
  const kept: C[] = [];
  const dropped: (C & { touches: ProtectedSpan['what'] })[] = [];
  for (const c of changes) {
    const hit = spans.find((s) => touches(c, s));
    if (hit) dropped.push({ ...c, touches: hit.what });
    else kept.push(c);
  }
  return { changes: kept, dropped };
}
