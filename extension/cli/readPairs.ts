/**
 * The inputs of `draftsmith score`: a reference file and a hypothesis file, each either
 *   - plain text, one segment per line (sacreBLEU's convention), or the whole file as one document
 *     with --document; or
 *   - JSONL (*.jsonl), one JSON value per line: a string, or an object whose field (--ref-field /
 *     --hyp-field, default "text") holds the text. Both flags may name the same file, e.g. a
 *     summarization data set's "summary" and "dialogue" fields. With -m, a reference field may
 *     hold a list of strings: several references for that segment.
 */
import { EngineError, errorMessage } from '../engine/errors';
import type { ScorePair } from '../engine/eval/scoreDraft';
import { readTextInput } from './inputText';
import { formatOf } from '../engine/text/markdown';
import { proseNotes, proseOf } from '../engine/text/proseText';

export async function readSegments(file: string, field: string, document: boolean): Promise<string[]> {
  return (await readItems(file, field, document, false)) as string[];
}

async function readItems(
  file: string,
  field: string,
  document: boolean,
  lists: boolean,
): Promise<(string | string[])[]> {
  // The same reader as every command's FILE: "no such file", UTF-16 and Latin-1 files read with a note.
  // Segment files reach the metrics as sacreBLEU reads them: a byte-order mark kept (with a note).
  const text = await readTextInput(file, formatOf(file) !== 'markdown' && !file.endsWith('.jsonl'));
  if (formatOf(file) === 'markdown') {
    // A Markdown file is one document, read by the one reader: its prose only, so a README
    // is compared prose with prose; what was skipped is said on standard error.
    const prose = proseOf(text, 'markdown');
    if (prose.text.trim().length === 0)
      throw new EngineError(
        'bad-input',
        `${file} has no prose to score: read as Markdown, it is all code, tables, HTML or markup`,
      );
    for (const n of proseNotes([{ label: file, prose }]) ?? []) process.stderr.write(`note: ${n}\n`);
    return [prose.text];
  }
  if (!file.endsWith('.jsonl')) {
    if (document) return [text];
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop(); // the final newline ends the last line, it does not start one
    return lines;
  }
  const out: (string | string[])[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new EngineError('bad-input', `${file}:${i + 1} is not valid JSON: ${errorMessage(e)}`);
    }
    if (typeof value === 'string') out.push(value);
    else if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as Record<string, unknown>)[field] === 'string'
    ) {
      out.push((value as Record<string, string>)[field]);
    } else if (lists && isStringList((value as Record<string, unknown> | null)?.[field])) {
      out.push((value as Record<string, string[]>)[field]);
    } else if (isStringList((value as Record<string, unknown> | null)?.[field])) {
      throw new EngineError(
        'bad-input',
        `${file}:${i + 1}: "${field}" holds a list of references; score several references per segment with -m ` +
          `(e.g. -m bleu rouge)`,
      );
    } else
      throw new EngineError(
        'bad-input',
        `${file}:${i + 1} has no string field "${field}" (choose one with --ref-field / --hyp-field)`,
      );
  });
  return out;
}

const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');

/** A --ref file's references, a list per segment: one each from a text file or a string field, as
 * many as a JSONL field's list holds (e.g. {"refs": ["first", "second"]}). */
export async function readReferenceLists(file: string, field: string): Promise<string[][]> {
  const items = await readItems(file, field, false, true);
  return items.map((x) => (typeof x === 'string' ? [x] : x));
}

/** Per-segment reference lists (one array per --ref file) as sacreBLEU's streams, stream k holding
 * every segment's k-th reference, for the first `take` segments. Where segments have different
 * numbers of references (`varying`), a segment's missing ones are holes in the later streams. */
export function referenceStreams(
  files: readonly (readonly string[][])[],
  take: number,
): { streams: string[][]; varying: boolean } {
  const perSegment = Array.from({ length: take }, (_, i) => files.flatMap((f) => f[i]));
  const most = Math.max(...perSegment.map((r) => r.length));
  const varying = perSegment.some((r) => r.length !== most);
  const streams = Array.from({ length: most }, (_, k) => {
    const stream = new Array<string>(take);
    perSegment.forEach((r, i) => {
      if (k < r.length) stream[i] = r[k];
    });
    return stream;
  });
  return { streams, varying };
}

export async function readPairs(opts: {
  ref: string;
  hyp: string;
  refField: string;
  hypField: string;
  document: boolean;
  limit: number;
}): Promise<ScorePair[]> {
  const [refs, hyps] = await Promise.all([
    readSegments(opts.ref, opts.refField, opts.document),
    readSegments(opts.hyp, opts.hypField, opts.document),
  ]);
  if (refs.length !== hyps.length) {
    throw new EngineError(
      'bad-input',
      `${opts.ref} has ${refs.length} segments but ${opts.hyp} has ${hyps.length}; they must pair up line by ` +
        `line (or use --document)`,
    );
  }
  const n = Math.min(refs.length, opts.limit);
  return Array.from({ length: n }, (_, i) => ({ hypothesis: hyps[i], reference: refs[i] }));
}
