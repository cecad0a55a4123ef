// A document read as Markdown: its blocks, its sections by heading, and its prose.
//
// The parser is markdown-it (the one VS Code's own Markdown preview uses), with HTML blocks and
// tables on. What a model may read is the "prose view": a string exactly as long as the document,
// in which every character that is not prose is a space (line breaks are kept). So every offset in
// the prose view is the same offset in the document (UTF-16, as reader.ts counts), and reader.ts's
// paragraphs and sentences of the prose view are spans of the document.
//
// Prose is the text of paragraphs (in list items and block quotes too), found word by word in the
// source from markdown-it's inline tokens: emphasis marks, link targets ("(https://…)", "[ref]"),
// images, inline HTML, autolinks and backslash escapes stay spaces. Inline code is kept (it is part
// of its sentence: "Run `npm test` first."). Code blocks (fenced or indented), tables, HTML blocks,
// front matter, reference definitions and rules are never prose. Headings are not prose either:
// they name the sections.
//
// Paragraphs that touch (list items, a paragraph under a heading with no blank line) are kept
// apart in the prose view by turning one masked character before each into a line break, which
// makes a blank line: reader.ts never reads two list items as one sentence.
import MarkdownIt from 'markdown-it';
import { lineIndexOf, lineSpans, paragraphSpans, type Paragraph, type Span } from './reader';

/** What a block of a document is. */
export type MarkdownBlockKind = 'heading' | 'paragraph' | 'code' | 'table' | 'html' | 'front-matter' | 'rule';

export interface MarkdownBlock extends Span {
  kind: MarkdownBlockKind;
  /** Headings: 1-6 (setext headings too). */
  level?: number;
}

/** The part of a document under one heading (up to the next heading of any level). */
export interface Section extends Span {
  /** The heading's text without its markup; '' for the text before the first heading (or a plain document). */
  title: string;
  /** 1-6; 0 for the text before the first heading or a document without headings. */
  level: number;
  /** The heading line(s), absent for level 0. */
  heading?: Span;
  /** The prose paragraphs of the section: spans of the document; text is the prose view's (markup blanked). */
  paragraphs: Paragraph[];
}

export type DocumentFormat = 'markdown' | 'plain';

export interface ReadDocument {
  format: DocumentFormat;
  /** The document with every character that is not prose made a space (line breaks kept): same length, same offsets. */
  prose: string;
  blocks: MarkdownBlock[];
  /** Every prose paragraph, in order (the union of the sections'). */
  paragraphs: Paragraph[];
  sections: Section[];
  /** Inline code spans (their text, without the backticks): prose for the models, not for the prose checks. */
  inlineCode: Span[];
  /** How many blocks of each kind were left out of the prose. */
  skipped: { code: number; table: number; html: number; frontMatter: number };
  /**
   * Things a writer should know about how the document was read ("an unclosed ``` fence at line 12
   * makes the rest code").
   */
  notes: string[];
}

type Token = ReturnType<MarkdownIt['parse']>[number];

/** The block tokens that hold a document's lines (containers, lists and quotes, only hold blocks). */
const LEAVES: ReadonlySet<string> = new Set([
  'paragraph_open',
  'heading_open',
  'fence',
  'code_block',
  'table_open',
  'html_block',
  'hr',
]);

let parser: MarkdownIt | undefined;
function markdownParser(): MarkdownIt {
  // html: HTML blocks are recognised as such (not read as paragraphs); no linkify, no typographer: the
  // text stays as written.
  // maxNesting: markdown-it stops reading at its nesting limit (100 by default, ~50 list levels);
  // past it the rest is read as plain paragraphs (readMarkdown) instead of lost.
  // (markdown-it reads maxNesting from its options; its types leave it out.)
  parser ??= new MarkdownIt({ html: true, linkify: false, typographer: false, ...{ maxNesting: 400 } });
  return parser;
}

/** A YAML (---) or TOML (+++) front matter block at the very start: its end offset (past its closing line), or 0. */
export function frontMatterEnd(text: string): number {
  const open = /^\uFEFF?(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)/.exec(text);
  if (!open) return 0;
  const close = open[1] === '---' ? /^(?:---|\.\.\.)[ \t]*$/ : /^\+\+\+[ \t]*$/;
  for (const line of lineSpans(text).slice(1)) {
    if (line.start < open[0].length) continue;
    if (close.test(text.slice(line.start, line.end))) return line.end;
  }
  return 0;
}

/** Characters of a mask buffer: the document's, with everything not unmasked a space (line breaks kept). */
function blankBuffer(text: string): Uint16Array {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i] = c === 10 || c === 13 ? c : 32;
  }
  return out;
}

function bufferText(buf: Uint16Array): string {
  let s = '';
  for (let i = 0; i < buf.length; i += 8192) s += String.fromCharCode(...buf.subarray(i, i + 8192));
  return s;
}

/** How far a search for the next word of a paragraph may look past the cursor (a long link target in between). */
const SEARCH_WINDOW = 4096;

/**
 * The offset just past a link's tail: "(target)" with balanced parentheses, "[ref]", or nothing (a
 * shortcut link). `at` is just past "]".
 */
function pastLinkTail(text: string, at: number, end: number): number {
  if (text[at] === '(') {
    let depth = 0;
    for (let i = at; i < end; i++) {
      if (text[i] === '\\') {
        i++;
        continue;
      }
      if (text[i] === '(') depth++;
      else if (text[i] === ')' && --depth === 0) return i + 1;
    }
    return end;
  }
  if (text[at] === '[') {
    const close = text.indexOf(']', at);
    return close < 0 || close >= end ? end : close + 1;
  }
  return at;
}

/**
 * Unmasks the prose of one paragraph's inline tokens in text[from, to): each text word, found in
 * order from a cursor, and inline code; link targets, images, autolinks and inline HTML are
 * stepped over so that a word of the text after them is never found inside them.
 */
function unmaskInline(
  text: string,
  buf: Uint16Array,
  children: readonly Token[],
  from: number,
  to: number,
  inlineCode: Span[],
): void {
  let cursor = from;
  const find = (s: string, limit = SEARCH_WINDOW): number => {
    const at = text.indexOf(s, cursor);
    return at < 0 || at + s.length > to || at - cursor > limit + s.length ? -1 : at;
  };
  const unmask = (a: number, b: number) => {
    for (let i = a; i < b; i++) buf[i] = text.charCodeAt(i);
  };
  let inAutolink = false;
  for (const t of children) {
    if (t.type === 'link_open' && t.markup === 'autolink') {
      inAutolink = true;
      continue;
    }
    if (t.type === 'link_close' && inAutolink) {
      inAutolink = false;
      const close = find('>');
      if (close >= 0) cursor = close + 1;
      continue;
    }
    if (inAutolink) continue;
    if (t.type === 'text') {
      for (const word of t.content.match(/\S+/g) ?? []) {
        const at = find(word);
        if (at < 0) continue; // an entity or escape changed it: left out rather than guessed
        unmask(at, at + word.length);
        cursor = at + word.length;
      }
    } else if (t.type === 'code_inline') {
      const at = find(t.content);
      if (at >= 0) {
        unmask(at, at + t.content.length);
        inlineCode.push({ start: at, end: at + t.content.length });
        cursor = at + t.content.length;
      }
    } else if (t.type === 'html_inline') {
      const at = find(t.content);
      if (at >= 0) cursor = at + t.content.length;
    } else if (t.type === 'link_close') {
      const close = find(']');
      if (close >= 0) cursor = pastLinkTail(text, close + 1, to);
    } else if (t.type === 'image') {
      const open = find('![');
      if (open >= 0) {
        // The alt text may hold brackets: the "]" that closes it is the last before the tail.
        let close = text.indexOf('](', open);
        if (close < 0 || close >= to) close = text.indexOf(']', open + 2);
        if (close >= 0 && close < to) cursor = pastLinkTail(text, close + 1, to);
      }
    }
  }
}

/** The plain text of a heading's inline tokens. */
function inlineText(children: readonly Token[]): string {
  return children
    .filter((t) => t.type === 'text' || t.type === 'code_inline')
    .map((t) => t.content)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A plain-text section holds paragraphs up to about this many characters (UTF-16 units, so that a
 * text in any script, with or without spaces, is cut alike): plain text has no headings, so its
 * sections are runs of whole paragraphs, small enough that progress and the panel's list of
 * sections mean something, large enough that a section holds a few of the model's windows.
 */
export const PLAIN_SECTION_CHARS = 6_000;

/**
 * Plain text in sections by paragraphs, as Markdown is by headings: consecutive paragraphs while
 * they fit PLAIN_SECTION_CHARS (a longer paragraph is a section alone; it is never cut here). The
 * sections tile the text: the first starts at 0, each next one where its first paragraph starts,
 * the last ends at text.length. A title names the lines a section spans ("Lines 12–40"), as the
 * editor shows them, when there is more than one section.
 */
export function plainSections(text: string, paragraphs: readonly Paragraph[]): Section[] {
  const groups: Paragraph[][] = [];
  let size = 0;
  for (const p of paragraphs) {
    const last = groups[groups.length - 1];
    if (last && size + (p.end - p.start) <= PLAIN_SECTION_CHARS) {
      last.push(p);
      size += p.end - p.start;
    } else {
      groups.push([p]);
      size = p.end - p.start;
    }
  }
  if (groups.length <= 1) return [{ title: '', level: 0, start: 0, end: text.length, paragraphs: [...paragraphs] }];
  // Line numbers by one walk forward through the text (the checks read a document on every edit: no array of lines).
  let at = 0;
  let line = 1;
  const lineOf = (offset: number) => {
    for (; at < offset; at++) {
      const c = text.charCodeAt(at);
      if (c === 10 || (c === 13 && text.charCodeAt(at + 1) !== 10)) line++;
    }
    return line;
  };
  return groups.map((g, k) => {
    const first = g[0];
    const last = g[g.length - 1];
    const from = lineOf(first.start);
    const to = lineOf(last.end);
    return {
      title: from === to ? `Line ${from}` : `Lines ${from}–${to}`,
      level: 0,
      start: k === 0 ? 0 : first.start,
      end: k + 1 < groups.length ? groups[k + 1][0].start : text.length,
      paragraphs: g,
    };
  });
}

/** Reads `text` as Markdown (or, with 'plain', as paragraphs of prose only, in sections by paragraphs). */
export function readDocument(text: string, format: DocumentFormat): ReadDocument {
  if (format === 'plain') {
    const paragraphs = paragraphSpans(text);
    return {
      format,
      prose: text,
      blocks: paragraphs.map((p) => ({ start: p.start, end: p.end, kind: 'paragraph' })),
      paragraphs,
      sections: plainSections(text, paragraphs),
      inlineCode: [],
      skipped: { code: 0, table: 0, html: 0, frontMatter: 0 },
      notes: [],
    };
  }
  return readMarkdown(text);
}

/** Reads `text` as Markdown: see the header. */
export function readMarkdown(text: string): ReadDocument {
  const lines = lineSpans(text);
  const lineStart = (i: number) => lines[Math.min(i, lines.length - 1)].start;
  const lineEnd = (i: number) => lines[Math.min(i, lines.length - 1)].end;
  const blocks: MarkdownBlock[] = [];
  const skipped = { code: 0, table: 0, html: 0, frontMatter: 0 };
  const notes: string[] = [];

  // Front matter is not Markdown: markdown-it would read it as a rule and a heading. It is blanked
  // (line breaks kept, so markdown-it's line numbers stay the document's) before parsing.
  const fm = frontMatterEnd(text);
  let source = text;
  if (fm > 0) {
    blocks.push({ kind: 'front-matter', start: 0, end: fm });
    skipped.frontMatter++;
    source = text.slice(0, fm).replace(/[^\r\n]/g, ' ') + text.slice(fm);
  }
  const tokens = markdownParser().parse(source, {});
  const buf = blankBuffer(text);
  const headings: { title: string; level: number; span: Span }[] = [];
  const paragraphStarts: number[] = [];
  const inlineCode: Span[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const map = t.map;
    if (!map) continue;
    const span = { start: lineStart(map[0]), end: lineEnd(map[1] - 1) };
    switch (t.type) {
      case 'heading_open': {
        const level = Number(t.tag.slice(1));
        blocks.push({ kind: 'heading', level, ...span });
        headings.push({ title: inlineText(tokens[i + 1]?.children ?? []), level, span });
        break;
      }
      case 'paragraph_open': {
        const inline = tokens[i + 1];
        blocks.push({ kind: 'paragraph', ...span });
        if (inline?.type === 'inline') {
          unmaskInline(text, buf, inline.children ?? [], span.start, span.end, inlineCode);
          paragraphStarts.push(span.start);
        }
        break;
      }
      case 'fence':
      case 'code_block': {
        blocks.push({ kind: 'code', ...span });
        skipped.code++;
        if (t.type === 'fence') {
          // A fence without its closing line: CommonMark makes the rest of the document code.
          const last = text.slice(lineStart(map[1] - 1), lineEnd(map[1] - 1)).trim();
          const closed = map[1] - map[0] >= 2 && /^(`{3,}|~{3,})$/.test(last) && last.startsWith(t.markup);
          if (!closed)
            notes.push(
              `The ${t.markup} code fence at line ${map[0] + 1} is never closed, so everything after it was ` +
                `read as code, not prose.`,
            );
        }
        break;
      }
      case 'table_open':
        blocks.push({ kind: 'table', ...span });
        skipped.table++;
        break;
      case 'html_block':
        blocks.push({ kind: 'html', ...span });
        skipped.html++;
        break;
      case 'hr':
        blocks.push({ kind: 'rule', ...span });
        break;
      default:
        break;
    }
  }

  // Past markdown-it's nesting limit the rest of the container is not parsed into blocks: lines
  // that no block covers (but reference definitions) are read as plain paragraphs instead of lost.
  const covered = new Uint8Array(lines.length);
  for (const t of tokens) {
    if (t.map && t.nesting !== -1 && t.block && LEAVES.has(t.type)) covered.fill(1, t.map[0], t.map[1]);
  }
  if (fm > 0) covered.fill(1, 0, lineIndexOf(lines, fm) + 1);
  let lost = -1;
  for (let l = 0; l < lines.length; l++) {
    const line = text.slice(lines[l].start, lines[l].end);
    if (covered[l] || !/\S/.test(line) || /^ {0,3}\[[^\]]+\]:/.test(line)) continue;
    if (lost < 0) lost = l;
    for (let i = lines[l].start; i < lines[l].end; i++) buf[i] = text.charCodeAt(i);
    paragraphStarts.push(lines[l].start);
  }
  if (lost >= 0)
    notes.push(
      `Lists or quotes nested too deeply to read as Markdown from line ${lost + 1}: those lines were read as ` +
        `plain text.`,
    );

  // Touching paragraphs (list items, a paragraph right under a heading) get a blank line between them.
  for (const start of paragraphStarts) {
    let first = start;
    while (first < buf.length && buf[first] === 32) first++;
    const lineBegin = lines[lineIndexOf(lines, first)].start;
    if (first > lineBegin && buf[lineBegin] === 32) buf[lineBegin] = 10;
  }
  const prose = bufferText(buf);
  const paragraphs = paragraphSpans(prose);

  const sections: Section[] = [];
  const firstHeading = headings.length ? headings[0].span.start : text.length;
  const before = paragraphs.filter((p) => p.end <= firstHeading);
  if (before.length > 0 || headings.length === 0)
    sections.push({ title: '', level: 0, start: 0, end: firstHeading, paragraphs: before });
  headings.forEach((h, k) => {
    const end = k + 1 < headings.length ? headings[k + 1].span.start : text.length;
    sections.push({
      title: h.title,
      level: h.level,
      heading: h.span,
      start: h.span.start,
      end,
      paragraphs: paragraphs.filter((p) => p.start >= h.span.end && p.end <= end),
    });
  });
  return { format: 'markdown', prose, blocks, paragraphs, sections, inlineCode, skipped, notes };
}

/** "2 code blocks, 1 table and front matter were left out" (or undefined when nothing was). */
export function describeSkipped(s: ReadDocument['skipped']): string | undefined {
  const list = describeSkippedList(s);
  if (list === undefined) return undefined;
  return `${list} ${s.code + s.table + s.html + s.frontMatter === 1 ? 'was' : 'were'} not read as prose`;
}

/** "2 code blocks, 1 table and the front matter" (or undefined when nothing was left out). */
export function describeSkippedList(s: ReadDocument['skipped']): string | undefined {
  const parts = [
    s.code ? `${s.code} code block${s.code === 1 ? '' : 's'}` : '',
    s.table ? `${s.table} table${s.table === 1 ? '' : 's'}` : '',
    s.html ? `${s.html} HTML block${s.html === 1 ? '' : 's'}` : '',
    s.frontMatter ? 'the front matter' : '',
  ].filter(Boolean);
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Markdown by the file's name (.md, .markdown, .mdx...) or VS Code's language id. */
export function formatOf(nameOrLanguage: string): DocumentFormat {
  return /(?:^markdown$|^mdx$|\.(?:md|markdown|mdown|mkd|mdx)$)/i.test(nameOrLanguage) ? 'markdown' : 'plain';
}
