/**
 * The prose checks on a rewrite's proposed changes: for each change, the findings the document would
 * have with that change alone accepted and does not have now. A change that brings in a misspelling,
 * a repeated word or a grammar slip is marked with it in the review, so that the writer can drop it;
 * a change that fixes a finding, or leaves the checked text as it was, adds nothing.
 *
 * The whole document is checked each time, with the same checker and settings as the editor (its
 * word lists and dialect, the rules turned off, the writer's ignores), so a mark is exactly the
 * diagnostic the writer would see after accepting the change. The checker's paragraph cache, and its
 * reuse of the last read after a small edit, make each check after the first cost about one paragraph.
 */
import type { WordChange } from '../text/wordDiff';
import type { CheckFinding } from './checker';

/** A finding a change adds: what it says, and the words it is about. */
export interface AddedFinding {
  rule: string;
  family: CheckFinding['family'];
  severity: CheckFinding['severity'];
  message: string;
  /** The flagged text, as the document would have it. */
  flagged: string;
}

/** The document's findings, or undefined when the check could not run (the checks are off, or it was stopped). */
export type CheckText = (text: string) => Promise<readonly CheckFinding[] | undefined>;

/** Past this many changes the rest are not checked: a review that long is no word-by-word edit. */
export const MAX_CHECKED_CHANGES = 200;

/**
 * For each change (offsets into `document.slice(at)`, the rewritten text's place in the document),
 * the findings it adds; undefined when the checks did not run.
 */
export async function findingsAdded(
  document: string,
  at: number,
  changes: readonly WordChange[],
  check: CheckText,
): Promise<AddedFinding[][] | undefined> {
  const before = await check(document);
  if (!before) return undefined;
  const out: AddedFinding[][] = [];
  for (const [k, c] of changes.entries()) {
    if (k >= MAX_CHECKED_CHANGES) {
      out.push([]);
      continue;
    }
    const start = at + c.start;
    const end = at + c.end;
    const changed = document.slice(0, start) + c.after + document.slice(end);
    const after = await check(changed);
    // Back to the document as it is: a checker that keeps the document's last read (reread.ts) then
    // reads each changed text as one small edit of it, a few milliseconds instead of the whole document.
    if (!after || !(await check(document))) return undefined;
    out.push(newFindings(before, after, { start, end, newEnd: start + c.after.length }).map((f) => added(f, changed)));
  }
  return out;
}

const added = (f: CheckFinding, text: string): AddedFinding => ({
  rule: f.rule,
  family: f.family,
  severity: f.severity,
  message: f.message,
  flagged: text.slice(f.start, f.end),
});

/**
 * The findings of `after` that `before` has no counterpart of. The edit replaced before's [start, end)
 * by after's [start, newEnd): a finding clear of it is matched at the same place (shifted past the
 * edit); one that overlaps or touches it, by its rule among before's findings around the edit (the
 * same misspelling still there is not a new one). Each finding of `before` answers for one only.
 */
export function newFindings(
  before: readonly CheckFinding[],
  after: readonly CheckFinding[],
  edit: { start: number; end: number; newEnd: number },
): CheckFinding[] {
  const delta = edit.newEnd - edit.end;
  const used = new Set<number>();
  const take = (ok: (f: CheckFinding) => boolean) => {
    const i = before.findIndex((f, j) => !used.has(j) && ok(f));
    if (i >= 0) used.add(i);
    return i >= 0;
  };
  const near = (s: number, e: number, lo: number, hi: number) => s <= hi && e >= lo;
  const fresh: CheckFinding[] = [];
  // Findings clear of the edit first, so that one next to it is not taken by a finding inside it.
  const clear = (f: CheckFinding) => f.end < edit.start || f.start > edit.newEnd;
  for (const f of after.filter(clear)) {
    const s = f.start > edit.newEnd ? f.start - delta : f.start;
    const e = f.start > edit.newEnd ? f.end - delta : f.end;
    if (!take((b) => b.rule === f.rule && b.start === s && b.end === e)) fresh.push(f);
  }
  for (const f of after.filter((x) => !clear(x)))
    if (!take((b) => b.rule === f.rule && near(b.start, b.end, edit.start, edit.end))) fresh.push(f);
  return fresh.sort((a, b) => a.start - b.start);
}

/** The findings in words for the review: "Possible spelling mistake (“teh”)", each once. */
export function describeAdded(found: readonly AddedFinding[]): string[] {
  const one = (f: AddedFinding) => `${f.message.replace(/[.\s]+$/, '')} (“${f.flagged.replace(/\s+/g, ' ')}”)`;
  return [...new Set(found.map(one))];
}
