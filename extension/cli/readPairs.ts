/**
 * The inputs of `draftsmith score`: a reference file and a hypothesis file, each either
 *   - plain text, one segment per line (sacreBLEU's convention), or the whole file as one document
 *     with --document; or
 *   - JSONL (*.jsonl), one JSON value per line: a string, or an object whose field (--ref-field /
 *     --hyp-field, default "text") holds the text. Both flags may name the same file, e.g. a
 *     summarization data set's "summary" and "dialogue" fields.
 */
import { EngineError, errorMessage } from '../engine/errors';
import type { ScorePair } from '../engine/eval/scoreDraft';
import { readTextFile } from './inputText';

export async function readSegments(file: string, field: string, document: boolean): Promise<string[]> {
  // The same reader as every command's FILE: "no such file", UTF-16 and Latin-1 files read with a note.
  const text = await readTextFile(file);
  if (!file.endsWith('.jsonl')) {
    if (document) return [text];
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop(); // the final newline ends the last line, it does not start one
    return lines;
  }
  const out: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new EngineError('bad-input', `${file}:${i + 1} is not valid JSON: ${errorMessage(e)}`);
    }
    if (typeof value === 'string') out.push(value);
    else if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[field] === 'string') {
      out.push((value as Record<string, string>)[field]);
    } else throw new EngineError('bad-input', `${file}:${i + 1} has no string field "${field}" (choose one with --ref-field / --hyp-field)`);
  });
  return out;
}

export async function readPairs(opts: { ref: string; hyp: string; refField: string; hypField: string; document: boolean; limit: number }): Promise<ScorePair[]> {
  const [refs, hyps] = await Promise.all([
    readSegments(opts.ref, opts.refField, opts.document),
    readSegments(opts.hyp, opts.hypField, opts.document),
  ]);
  if (refs.length !== hyps.length) {
    throw new EngineError('bad-input', `${opts.ref} has ${refs.length} segments but ${opts.hyp} has ${hyps.length}; they must pair up line by line (or use --document)`);
  }
  const n = Math.min(refs.length, opts.limit);
  return Array.from({ length: n }, (_, i) => ({ hypothesis: hyps[i], reference: refs[i] }));
}
