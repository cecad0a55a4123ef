/**
 * The metric benches' pairs: DialogSum train from ../shared/data (each summary, ~25 words, and its
 * dialogue, ~190), PAIRS of them (default 10,000), or another JSONL file of {dialogue, summary} (DATA).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Reporter } from './report';

const root = path.resolve(__dirname, '..', '..');
const file = process.env.DATA ?? path.join(root, '..', 'shared', 'data', 'dialogsum', 'dialogsum.train.jsonl');
export const PAIRS = Number(process.env.PAIRS ?? 10_000);

export interface DialogsumRow {
  dialogue: string;
  summary: string;
}

/** The pairs, or null after a row saying the file is missing. */
export function dialogsumPairs(
  r: Reporter,
  what: string,
): { rows: DialogsumRow[]; summaries: string[]; dialogues: string[]; fileName: string } | null {
  if (!existsSync(file)) {
    r.row(what, null, undefined, `skipped: no ${file} (set DATA to a JSONL file of {dialogue, summary})`);
    return null;
  }
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, PAIRS)
    .map((l) => JSON.parse(l) as DialogsumRow);
  return {
    rows,
    summaries: rows.map((x) => x.summary),
    dialogues: rows.map((x) => x.dialogue),
    fileName: path.basename(file),
  };
}
