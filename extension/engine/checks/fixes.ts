/**
 * Fix All Safe Issues: the fixes that cannot change what a sentence means (a misspelling with
 * exactly one suggestion, a doubled word, extra spaces), as one set of edits that do not overlap.
 */
import type { CheckFinding, CheckFix } from './checker';

/** The safe findings' fixes, in document order; of two that overlap, the first is kept. */
export function safeFixes(findings: readonly CheckFinding[]): CheckFix[] {
  const fixes = findings
    .filter((f) => f.safe && f.fixes.length === 1)
    .map((f) => f.fixes[0])
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: CheckFix[] = [];
  for (const fix of fixes) {
    const last = out.at(-1);
    if (last && fix.start < last.end) continue;
    if (last && fix.start === last.end && fix.start === fix.end && last.start === last.end) continue;
    out.push(fix);
  }
  return out;
}

/** `text` with non-overlapping fixes applied (applied from the end, so offsets stay valid). */
export function applyFixes(text: string, fixes: readonly CheckFix[]): string {
  let out = text;
  for (const fix of [...fixes].sort((a, b) => b.start - a.start))
    out = out.slice(0, fix.start) + fix.text + out.slice(fix.end);
  return out;
}
