/**
 * `draftsmith summarize FILE... | FOLDER [--sections] [--jsonl] [--section-time-limit SECONDS]`: whole
 * documents, read section by section (engine/systems/sectioned.ts) as Markdown (.md, .markdown, ...)
 * by heading or plain text (anything else) by paragraphs, as Summarize Document reads them in the
 * editor: however long, nothing is cut.
 *
 *   one FILE:             the summary of the whole on standard output (with --sections, the outline:
 *                         each heading with its summary line, then the whole's); notes on standard error,
 *                         and the sections done of all on standard error while a long one runs.
 *   several, or a FOLDER: each file in turn (a folder's .md, .markdown and .txt files, sub-folders
 *                         included, hidden ones and node_modules left out); with --jsonl one JSON line
 *                         per file on standard output, and a progress bar on standard error.
 * A file that cannot be summarized (no prose, binary, empty) is said so on its own line and the
 * others go on; the exit code is then 1.
 */
import { promises as fs, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SectionSummary, SummarizeRequest, SummarizeResult, TextOrigin } from '../protocol';
import { CancelledError, errorMessage, EngineError } from '../engine/errors';
import { maxLengthNote } from '../engine/systems/lengthLimit';
import { describeInvented } from '../engine/systems/rewriteText';
import { formatOf, type DocumentFormat } from '../engine/text/markdown';
import { flag, type Args } from './args';
import { readTextInput } from './inputText';
import { progressBar, workProgress } from './progressBar';
import { SUMMARY_CHOOSE, summaryCutNote } from '../windowNotes';

export interface DocumentRunner {
  /** The request for one document, from the command's options. */
  request(text: string, origin: TextOrigin, format: DocumentFormat): SummarizeRequest;
  /** Runs one request (one engine for every file); `progress` gets the engine's progress messages. */
  run(request: SummarizeRequest, progress?: (message: string, fraction?: number) => void): Promise<SummarizeResult>;
}

/** True when the words name files or a folder (not standard input, not --text): then summarizeDocuments runs. */
export function isDocumentRun(a: Args, words: readonly string[]): boolean {
  if (flag(a, 'text') !== undefined || (words.length === 1 && words[0] === '-')) return false;
  return words.length > 0;
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const DOCUMENT_FILE = /\.(?:md|markdown|mdown|mkd|txt|text)$/i;

/** The files under `folder`, in name order: Markdown and text files, hidden folders and node_modules left out. */
async function filesUnder(folder: string): Promise<string[]> {
  const out: string[] = [];
  const entries = (await fs.readdir(folder, { withFileTypes: true })).sort((x, y) => x.name.localeCompare(y.name));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(folder, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile() && DOCUMENT_FILE.test(e.name)) out.push(p);
  }
  return out;
}

/** The outline: each heading as written in Markdown, its summary line under it; then the whole's. */
export function outline(result: SummarizeResult): string {
  const lines: string[] = [];
  for (const s of result.sections ?? []) {
    if (s.level > 0) lines.push(`${'#'.repeat(s.level)} ${s.title}`);
    else if (s.title) lines.push(`${s.title}:`); // plain text's sections: the lines they span
    lines.push(sectionLine(s), '');
  }
  lines.push(`Summary of the whole: ${result.summary}`);
  return lines.join('\n') + '\n';
}

/** What a result read of its text when it is not all of it, for standard error; undefined when it read everything. */
export function cutNote(result: SummarizeResult): string | undefined {
  const cut = summaryCutNote(result);
  return cut && `${cut}. ${SUMMARY_CHOOSE.cli}`;
}

/**
 * What standard error says of a summary beyond the text: which model wrote it, when it is not the
 * built-in one, and the names and numbers an instruct model's summary has that the text does not.
 */
export function summaryNotes(result: SummarizeResult): string[] {
  const out: string[] = [];
  if (result.external) out.push(`note: written by ${result.external.id} (${result.external.architecture})`);
  const invented = describeInvented('summary', result.invented ?? []);
  if (invented) out.push(`warning: ${invented} Check them against the text.`);
  return out;
}

function sectionLine(s: SectionSummary): string {
  if (s.status === 'no-prose') return '(no prose under this heading)';
  if (s.status === 'timed-out') return '(ran past the time limit: no summary)';
  if (s.status === 'unreadable') return '(not in a script the model reads: no summary)';
  return `${s.fedOverall ? '* ' : ''}${s.summary}`;
}

export async function summarizeDocuments(a: Args, words: readonly string[], runner: DocumentRunner): Promise<number> {
  const files: string[] = [];
  for (const w of words) {
    if (isFolder(w)) {
      const found = await filesUnder(w);
      if (found.length === 0)
        throw new EngineError('bad-input', `${w} holds no Markdown or text file (.md, .markdown, .txt)`);
      files.push(...found);
    } else {
      files.push(w);
    }
  }
  const jsonl = flag(a, 'jsonl') !== undefined;
  const sections = flag(a, 'sections') !== undefined;
  const single = files.length === 1 && !jsonl;
  // One file has its own progress line (below): a bar over one file would only say 0/1.
  const bar = single ? { update: () => undefined, done: () => undefined } : progressBar('summarize');
  let failed = 0;
  for (const [i, file] of files.entries()) {
    bar.update(i, files.length);
    let result: SummarizeResult;
    let text: string;
    // One file: its sections done of all while it runs (several: the bar over the files above).
    const work = single ? workProgress('summarize') : undefined;
    try {
      text = await readTextInput(file);
      result = await runner
        .run(runner.request(text, 'file', formatOf(file)), work?.progress)
        .finally(() => work?.done());
    } catch (e) {
      // Ctrl+C ends the whole run, not one file of it.
      if (single || e instanceof CancelledError) throw e;
      failed++;
      if (jsonl) process.stdout.write(JSON.stringify({ file, error: errorMessage(e) }) + '\n');
      else process.stderr.write(`draftsmith: ${file}: ${errorMessage(e)}\n`);
      continue;
    }
    if (jsonl) {
      process.stdout.write(
        JSON.stringify({
          file,
          summary: result.summary,
          mode: result.mode,
          notes: result.readNotes ?? [],
          ...(sections
            ? {
                sections: (result.sections ?? []).map((s) => ({
                  title: s.title,
                  level: s.level,
                  summary: s.summary,
                  status: s.status,
                  fedOverall: s.fedOverall,
                })),
              }
            : {}),
        }) + '\n',
      );
      continue;
    }
    if (flag(a, 'json') !== undefined) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else {
      if (!single) process.stdout.write(`== ${file}\n`);
      process.stdout.write(sections ? outline(result) : result.summary + '\n');
      if (!single) process.stdout.write('\n');
    }
    for (const n of [...(result.experimental ? [result.experimental] : []), ...(result.readNotes ?? [])])
      process.stderr.write(`note: ${single ? '' : `${file}: `}${n}\n`);
    for (const line of summaryNotes(result))
      process.stderr.write(single ? `${line}\n` : line.replace(/^(\w+): /, `$1: ${file}: `) + '\n');
    const cut = cutNote(result);
    if (cut) process.stderr.write(`note: ${single ? '' : `${file}: `}${cut}\n`);
    if (result.hitMaxLength)
      process.stderr.write(
        `note: ${single ? '' : `${file}: `}${maxLengthNote('summary', result.hitMaxLength, '--max-tokens')}\n`,
      );
    const s = result.sections ?? [];
    if (single && s.length > 0) {
      const parts = s.reduce((n, x) => n + x.parts, 0);
      process.stderr.write(
        `${s.length} section${s.length === 1 ? '' : 's'} read whole in ${parts} part${parts === 1 ? '' : 's'} ` +
          `of at most ${result.inputLimit} tokens (the model's window); ` +
          `the summary of the whole is made from the ${s.filter((x) => x.fedOverall).length}` +
          (result.topics.length > 0 ? " nearest the document's topics" : '') +
          (`${sections ? ' (marked *)' : ''}; ${result.stats.usedInputTokens} tokens read in ` +
            `${result.stats.encodeMs.toFixed(0)} ms on ${result.stats.device}\n`),
      );
    } else if (single) {
      process.stderr.write(
        `${result.stats.usedInputTokens} tokens read in ${result.stats.encodeMs.toFixed(0)} ms on ` +
          `${result.stats.device}\n`,
      );
    }
  }
  bar.update(files.length, files.length);
  bar.done();
  return failed > 0 ? 1 : 0;
}
