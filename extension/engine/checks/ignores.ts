/**
 * "Ignore this rule on this line" and "in this file": the writer's choices, kept by the host per
 * file. A line is known by its text (trimmed), so an ignore follows the line when lines above it
 * are added or removed, and lapses once the line itself is rewritten.
 */
import type { CheckFinding } from './checker';

export interface Ignores {
  /** Rules (or whole families) ignored in the file. */
  file: readonly string[];
  /** A rule ignored on the lines whose trimmed text is `line`. */
  lines: readonly { rule: string; line: string }[];
}

export const NO_IGNORES: Ignores = { file: [], lines: [] };

/** The trimmed text of the line that holds `offset`. */
export function lineTextAt(text: string, offset: number): string {
  let start = Math.min(offset, text.length);
  while (start > 0 && text.charCodeAt(start - 1) !== 10 && text.charCodeAt(start - 1) !== 13) start--;
  let end = text.slice(start).search(/[\r\n]/);
  end = end < 0 ? text.length : start + end;
  return text.slice(start, end).trim();
}

const matches = (ignored: string, f: CheckFinding) => ignored === f.rule || ignored === f.family;

/** The findings the writer has not chosen to ignore. */
export function withoutIgnored(text: string, findings: readonly CheckFinding[], ignores: Ignores): CheckFinding[] {
  if (ignores.file.length === 0 && ignores.lines.length === 0) return [...findings];
  return findings.filter((f) => {
    if (ignores.file.some((r) => matches(r, f))) return false;
    if (ignores.lines.length === 0) return true;
    const line = lineTextAt(text, f.start);
    return !ignores.lines.some((l) => l.line === line && matches(l.rule, f));
  });
}
