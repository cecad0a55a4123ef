/**
 * What Rewrite Selection does with a model's reply before it is offered: the rewritten text alone
 * (instruct models open with "Sure! Here is the revised text:" and close with "I made the sentences
 * shorter." however firmly told not to, and some wrap the text in quotes or a code fence), and what
 * the rewrite changed that the instruction did not ask for: names and numbers (the faithfulness
 * check the summaries use) and Markdown structure (links, inline code, emphasis, list markers).
 *
 * Nothing is stripped that the text itself has: a paragraph that opens "Here is the plan:" keeps it.
 */
import { unsupportedItems } from '../metrics/faithfulness';
import type { ProtectedChange, RewriteResult, RewriteFlags } from '../../protocol';
import { withoutProtectedChanges } from '../text/protectedSpans';
import { applyWordChanges, wordChanges } from '../text/wordDiff';

const INTERJECTION = String.raw`(?:sure|certainly|of course|absolutely|okay|ok|great|alright)`;
/** "Here is the revised text:", "Sure! Here's a shorter version:", "Revised text:", "Text:" — up to its colon. */
const PREAMBLE = new RegExp(
  String.raw`^\s*(?:${INTERJECTION}[!.,]?\s*)?(?:(?:here(?:'s|’s| is| are)|below is|this is|i(?:'ve| have) (?:rewritten|revised|edited|corrected))\b[^:\n]{0,100}:|(?:the )?(?:revised|rewritten|corrected|edited|improved|updated|shorter|simpler|new)(?: \w+)?(?: text| version| paragraph)?:|(?:a |the )?(?:short |brief )?summary:|text:)[ \t]*\n*`,
  'iu',
);
/** A line of its own that only says yes: "Sure!", "Certainly." */
const YES_LINE = new RegExp(String.raw`^\s*${INTERJECTION}[!.,]?\s*\n+`, 'iu');
/** A closing paragraph about the rewrite rather than of it. */
const CLOSING =
  /^\s*\(?(?:note:|notes:|i (?:have |'ve )?(?:made|changed|kept|replaced|removed|corrected|fixed|shortened|simplified|split|rewrote|used|converted|hope)|let me know|feel free|hope this|this (?:version|revision|rewrite|rewritten)|the (?:changes|revised|rewritten)|changes? made|explanation|in this (?:version|revision))/iu;
const QUOTES: [string, string][] = [
  ['"', '"'],
  ['“', '”'],
  ["'", "'"],
  ['«', '»'],
  ['„', '“'],
];

export interface Cleaned {
  text: string;
  /** What was removed, as written, in the order removed. */
  stripped: string[];
}

const startsLike = (source: string, piece: string) =>
  source.trimStart().toLowerCase().startsWith(piece.trim().toLowerCase().slice(0, 12));

/** The rewritten text alone, from a model's reply to a rewrite of `source`. */
export function cleanRewrite(raw: string, source: string): Cleaned {
  const stripped: string[] = [];
  let text = raw.trim();
  const strip = (piece: string, rest: string) => {
    if (piece.trim()) stripped.push(piece.trim());
    text = rest.trim();
  };
  // Preambles, possibly two ("Sure!" then "Here is the revised text:").
  for (let k = 0; k < 3; k++) {
    const m = PREAMBLE.exec(text) ?? YES_LINE.exec(text);
    if (!m || m[0].length >= text.length || startsLike(source, m[0])) break;
    strip(m[0], text.slice(m[0].length));
  }
  // A code fence around the whole of it.
  const fence = /^```[^\n`]*\n([\s\S]*?)\n?```\s*$/u.exec(text);
  if (fence && !source.trimStart().startsWith('```')) {
    stripped.push('```');
    text = fence[1].trim();
  }
  // Closing remarks: trailing paragraphs about the rewrite that the text does not have.
  for (;;) {
    const cut = text.lastIndexOf('\n\n');
    if (cut < 0) break;
    const last = text.slice(cut);
    if (!CLOSING.test(last) || source.includes(last.trim())) break;
    strip(last, text.slice(0, cut));
  }
  // Wrapping quotes the text does not have.
  const s = source.trim();
  for (const [open, close] of QUOTES) {
    if (
      text.length > 1 &&
      text.startsWith(open) &&
      text.endsWith(close) &&
      !(s.startsWith(open) && s.endsWith(close)) &&
      !text.slice(open.length, -close.length).includes(close)
    ) {
      stripped.push(`${open}…${close}`);
      text = text.slice(open.length, -close.length).trim();
      break;
    }
  }
  return { text, stripped };
}

/** The Markdown structures of a text, each as the user would recognise it, for comparing two texts. */
function markup(text: string): { what: string; key: string }[] {
  const found: { what: string; key: string }[] = [];
  let rest = text;
  for (const m of text.matchAll(/!?\[([^\]\n]*)\]\(([^)\s]+)[^)]*\)/gu)) {
    found.push({ what: `the link to ${m[2]}`, key: `link ${m[2]}` });
    rest = rest.replace(m[0], ' ');
  }
  for (const m of rest.matchAll(/(`+)([^`\n]+?)\1/gu)) {
    found.push({ what: `the inline code ${m[0]}`, key: `code ${m[2].trim()}` });
    rest = rest.replace(m[0], ' ');
  }
  for (const m of rest.matchAll(/(\*\*|__)(?=\S)([^\n]*?\S)\1/gu)) {
    found.push({ what: `the strong emphasis on "${m[2]}"`, key: 'strong' });
    rest = rest.replace(m[0], ' ');
  }
  for (const m of rest.matchAll(/(?<![\p{L}\p{N}*_])([*_])(?=\S)([^\n*_]*?\S)\1(?![\p{L}\p{N}*_])/gu))
    found.push({ what: `the emphasis on "${m[2]}"`, key: 'em' });
  const items = text.match(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/gmu) ?? [];
  for (let k = 0; k < items.length; k++) found.push({ what: 'a list marker', key: 'list' });
  return found;
}

/**
 * The names and numbers (dates among them) that `output` has and neither `source` nor `instruction`
 * does, each once: what a rewrite or an instruct model's summary invented (the faithfulness check
 * the summaries are scored by, metrics/faithfulness.ts).
 */
export function inventedItems(output: string, source: string, instruction = ''): string[] {
  const asked = instruction.toLowerCase();
  return [...new Set(unsupportedItems(output, source).invented.filter((x) => !asked.includes(x.toLowerCase())))];
}

/** The invented items in words, for a result of `what` ("rewrite", "summary"); undefined when there are none. */
export function describeInvented(what: string, items: readonly string[]): string | undefined {
  if (items.length === 0) return undefined;
  return `The ${what} has names or numbers the text does not: ${items.map((x) => `"${x}"`).join(', ')}.`;
}

/** What `rewrite` changed of `source` that `instruction` did not ask for. */
export function rewriteFlags(source: string, rewrite: string, instruction: string): RewriteFlags {
  const asked = instruction.toLowerCase();
  const mentioned = (item: string) => asked.includes(item.toLowerCase());
  const added = inventedItems(rewrite, source, instruction);
  // A name or number of the source the rewrite no longer has: the same check the other way round,
  // counting each item once.
  const dropped = [...new Set(unsupportedItems(source, rewrite).invented.filter((x) => !mentioned(x)))];
  // Markup: each structure of the source, counted, must be there as often in the rewrite.
  const have = new Map<string, number>();
  for (const m of markup(rewrite)) have.set(m.key, (have.get(m.key) ?? 0) + 1);
  const lost: string[] = [];
  for (const m of markup(source)) {
    const left = have.get(m.key) ?? 0;
    if (left > 0) have.set(m.key, left - 1);
    else if (!lost.includes(m.what)) lost.push(m.what);
  }
  return { added, dropped, markup: lost };
}

/**
 * What a model's reply to a rewrite of `source` offers: the rewritten text alone, as word-level
 * changes, less any the model made to code spans, URLs or front matter (the rewrite keeps those as the
 * text has them), and what it changed unasked.
 */
export function offeredRewrite(
  source: string,
  raw: string,
  instruction: string,
): Pick<RewriteResult, 'rewrite' | 'stripped' | 'changes' | 'protectedChanges' | 'flags'> {
  const cleaned = cleanRewrite(raw, source);
  const offered = withoutProtectedChanges(source, wordChanges(source, cleaned.text));
  const rewrite = offered.dropped.length
    ? applyWordChanges(
        source,
        offered.changes,
        offered.changes.map(() => true),
      )
    : cleaned.text;
  return {
    rewrite,
    stripped: cleaned.stripped,
    changes: offered.changes,
    protectedChanges: offered.dropped,
    flags: rewriteFlags(source, rewrite, instruction),
  };
}

/** The flags in words, one line each; none when there is nothing to say. */
export function describeFlags(f: RewriteFlags): string[] {
  const list = (xs: string[]) => xs.map((x) => `"${x}"`).join(', ');
  const out: string[] = [];
  const added = describeInvented('rewrite', f.added);
  if (added) out.push(added);
  if (f.dropped.length) out.push(`The rewrite drops names or numbers of the text: ${list(f.dropped)}.`);
  if (f.markup.length) out.push(`The rewrite loses Markdown: ${f.markup.join(', ')}.`);
  return out;
}

/** The changes to code, URLs or front matter that were not offered, in words; undefined when there were none. */
export function describeProtected(dropped: readonly ProtectedChange[]): string | undefined {
  if (dropped.length === 0) return undefined;
  const what = [...new Set(dropped.map((c) => c.touches))];
  const list = what.length > 1 ? `${what.slice(0, -1).join(', ')} and ${what[what.length - 1]}` : what[0];
  const n = dropped.length;
  const changes = n === 1 ? '1 change' : `${n} changes`;
  return `${changes} the model made to ${list} ${n === 1 ? 'is' : 'are'} not offered: those stay as written.`;
}
