/**
 * Word-level differences between a text and its rewrite, as changes a writer accepts or rejects one
 * by one, and a line-level unified diff for the CLI. No diff library is a dependency, and a
 * paragraph is small, so the alignment is a longest common subsequence over tokens (words, single
 * punctuation marks, runs of whitespace) after the common prefix and suffix are set aside.
 *
 * Whitespace matches whitespace whatever it is, and the original's is kept: a rewrite that joins
 * the document's wrapped lines into one does not turn every line break into a change.
 */

/** One change: original[start, end) (the `before` text, empty for an insertion) becomes `after`. */
export interface WordChange {
  start: number;
  end: number;
  before: string;
  after: string;
}

interface Token {
  text: string;
  start: number;
  space: boolean;
}

const TOKEN = /\s+|[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*|[^\s\p{L}\p{M}\p{N}]/gu;

function tokens(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((m) => ({ text: m[0], start: m.index ?? 0, space: /^\s/u.test(m[0]) }));
}

/**
 * Past this many table cells the middle is one change: a rewrite that far apart is no edit to review piece by piece.
 */
const MAX_CELLS = 16_000_000;

/**
 * The pairs (i, j) of a longest common subsequence of a and b under `same`, in order. The common
 * prefix and suffix are matched first, so a small edit of a long text costs little.
 */
export function commonPairs<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): [number, number][] {
  let lo = 0;
  while (lo < a.length && lo < b.length && same(a[lo], b[lo])) lo++;
  let hiA = a.length;
  let hiB = b.length;
  while (hiA > lo && hiB > lo && same(a[hiA - 1], b[hiB - 1])) {
    hiA--;
    hiB--;
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < lo; i++) pairs.push([i, i]);
  const n = hiA - lo;
  const m = hiB - lo;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_CELLS) {
    // lengths[i][j]: the LCS of a[lo+i..hiA) and b[lo+j..hiB), so the walk below goes forwards.
    const w = m + 1;
    const lengths = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lengths[i * w + j] = same(a[lo + i], b[lo + j])
          ? lengths[(i + 1) * w + j + 1] + 1
          : Math.max(lengths[(i + 1) * w + j], lengths[i * w + j + 1]);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (same(a[lo + i], b[lo + j]) && lengths[i * w + j] === lengths[(i + 1) * w + j + 1] + 1) {
        pairs.push([lo + i, lo + j]);
        i++;
        j++;
      } else if (lengths[(i + 1) * w + j] >= lengths[i * w + j + 1]) i++;
      else j++;
    }
  }
  for (let k = 0; k < a.length - hiA; k++) pairs.push([hiA + k, hiB + k]);
  return pairs;
}

const sameToken = (x: Token, y: Token) => (x.space && y.space) || x.text === y.text;

/**
 * The changes that turn `original` into `rewrite`, in document order, none overlapping. Changes
 * separated by whitespace only are one change ("the big" → "a small"), so that each reads as a
 * phrase replaced rather than as scattered words.
 */
export function wordChanges(original: string, rewrite: string): WordChange[] {
  const a = tokens(original);
  const b = tokens(rewrite);
  const pairs = commonPairs(a, b, sameToken);
  const raw: { i0: number; i1: number; j0: number; j1: number }[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [a.length, b.length] as [number, number]]) {
    if (pi > i || pj > j) raw.push({ i0: i, i1: pi, j0: j, j1: pj });
    i = pi + 1;
    j = pj + 1;
  }
  // A word deleted or inserted with the space before it ("on ⎵new⎵ bridge") reads better, and
  // joins its neighbours alike, as the word with the space after it: slide it one token on. Both
  // sides slide: the space that was matched after the change is now matched before it, so the
  // change's place in the other text moves past that space too (else an inserted word lands
  // before the space and is glued to the word in front of it).
  for (const r of raw) {
    const deletion = r.j0 === r.j1 && r.i1 < a.length && a[r.i0].space && a[r.i1].space && !a[r.i1 - 1].space;
    const insertion = r.i0 === r.i1 && r.j1 < b.length && b[r.j0].space && b[r.j1].space && !b[r.j1 - 1].space;
    if (deletion || insertion) {
      r.i0++;
      r.i1++;
      r.j0++;
      r.j1++;
    }
  }
  // Join neighbours whose gap is one whitespace token on both sides.
  const merged: typeof raw = [];
  for (const r of raw) {
    const last = merged[merged.length - 1];
    if (last && r.i0 - last.i1 === 1 && r.j0 - last.j1 === 1 && a[last.i1].space) {
      last.i1 = r.i1;
      last.j1 = r.j1;
    } else merged.push({ ...r });
  }
  const offset = (k: number) => (k < a.length ? a[k].start : original.length);
  return merged.map((r) => {
    const start = offset(r.i0);
    const end = r.i1 > r.i0 ? a[r.i1 - 1].start + a[r.i1 - 1].text.length : start;
    return {
      start,
      end,
      before: original.slice(start, end),
      after: b
        .slice(r.j0, r.j1)
        .map((t) => t.text)
        .join(''),
    };
  });
}

/**
 * The original with the accepted changes applied and the others left as written; `accepted[i]`
 * says whether changes[i] is taken. The same changes and choices always give the same text.
 */
export function applyWordChanges(
  original: string,
  changes: readonly WordChange[],
  accepted: readonly boolean[],
): string {
  let out = '';
  let at = 0;
  changes.forEach((c, k) => {
    if (c.start < at || c.end < c.start || c.end > original.length || original.slice(c.start, c.end) !== c.before)
      throw new Error(`change ${k + 1} does not fit the text (${c.start}–${c.end})`);
    out += original.slice(at, c.start) + (accepted[k] ? c.after : c.before);
    at = c.end;
  });
  return out + original.slice(at);
}

/** A unified diff of two texts by lines (three lines of context), as `diff -u` prints it; '' when they are equal. */
export function unifiedDiff(before: string, after: string, names: { from: string; to: string }, context = 3): string {
  const split = (t: string) => (t.length === 0 ? [] : t.replace(/\n$/, '').split('\n'));
  const a = split(before);
  const b = split(after);
  const pairs = commonPairs(a, b, (x, y) => x === y);
  // Every line with its kind, in order.
  const lines: { kind: ' ' | '-' | '+'; text: string; ai: number; bi: number }[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [a.length, b.length] as [number, number]]) {
    while (i < pi) lines.push({ kind: '-', text: a[i], ai: i++, bi: j });
    while (j < pj) lines.push({ kind: '+', text: b[j], ai: i, bi: j++ });
    if (pi < a.length) lines.push({ kind: ' ', text: a[pi], ai: i++, bi: j++ });
  }
  const changed = lines.map((l, k) => (l.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  // Hunks: changed lines with their context, joined where the contexts meet.
  const groups: [number, number][] = [];
  for (const k of changed) {
    const from = Math.max(0, k - context);
    const to = Math.min(lines.length, k + context + 1);
    const last = groups[groups.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else groups.push([from, to]);
  }
  let out = `--- ${names.from}\n+++ ${names.to}\n`;
  for (const [from, to] of groups) {
    const part = lines.slice(from, to);
    const aCount = part.filter((l) => l.kind !== '+').length;
    const bCount = part.filter((l) => l.kind !== '-').length;
    const aStart = aCount === 0 ? part[0].ai : part[0].ai + 1;
    const bStart = bCount === 0 ? part[0].bi : part[0].bi + 1;
    out += `@@ -${aStart},${aCount} +${bStart},${bCount} @@\n`;
    for (const l of part) out += `${l.kind}${l.text}\n`;
  }
  return out;
}
