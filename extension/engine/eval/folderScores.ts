/**
 * Score Drafts in Folder, shared by the command and `draftsmith score` on a folder:
 *  - pairing: each draft file with the file of the same name in the references folder (else one
 *    whose name differs only in its extension: draft.md with draft.txt), or the rows of a JSONL
 *    file with the draft and reference fields the user names;
 *  - one row per draft (Score Draft's scores of that draft against its reference) and the corpus
 *    totals, equal to `draftsmith score` over all the pairs, by the metric list's one aggregation
 *    (./metricList.ts): corpus BLEU and chrF (each draft one segment, sacreBLEU's corpus score),
 *    corpus diversity, entity words over all sentences, the mean over drafts of ROUGE (rouge-score's
 *    aggregate) and of coherence L (where defined), the non-word rate and perplexity over all tokens;
 *  - the columns, sorting and exports are in ./folderTable.ts (the panel's page uses them too).
 * Free of wink-nlp and of the models: the host computes the totals from rows the worker scored.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { CorpusScores, FolderScores } from '../../protocol';
import { EngineError } from '../errors';
import { formatOf } from '../text/markdown';
import { proseOf } from '../text/proseText';
import { poolScores, signaturesOf } from './metricList';
import type { MetricOptions } from './scoreOptions';

export interface DraftPair {
  /** The draft's file name (or the JSONL row's name). */
  name: string;
  hypothesis: string;
  reference: string;
}

export interface Paired {
  pairs: DraftPair[];
  /** Drafts without a reference. */
  unpaired: string[];
}

const stem = (name: string) => name.replace(/\.[^.]*$/, '');

async function readText(file: string): Promise<string> {
  const buf = await readFile(file);
  if (buf.includes(0)) throw new EngineError('bad-input', `${file} is not a text file`);
  return buf.toString('utf8').replace(/^\uFEFF/, '');
}

async function filesOf(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new EngineError('bad-input', `no such folder: ${dir}`);
  }
  const out: string[] = [];
  for (const n of names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) {
    if (n.startsWith('.')) continue;
    if ((await stat(path.join(dir, n))).isFile()) out.push(n);
  }
  return out;
}

/**
 * Each file of `draftsDir` with the file of the same name (else the same name but its extension) in `referencesDir`.
 */
export async function pairFolders(draftsDir: string, referencesDir: string): Promise<Paired> {
  const drafts = await filesOf(draftsDir);
  const refs = await filesOf(referencesDir);
  if (drafts.length === 0) throw new EngineError('bad-input', `${draftsDir} has no files to score`);
  const byName = new Set(refs);
  const byStem = new Map<string, string>();
  for (const r of refs) if (!byStem.has(stem(r))) byStem.set(stem(r), r);
  const pairs: DraftPair[] = [];
  const unpaired: string[] = [];
  for (const d of drafts) {
    const ref = byName.has(d) ? d : byStem.get(stem(d));
    if (ref === undefined) {
      unpaired.push(d);
      continue;
    }
    // A Markdown file (.md) is scored on its prose, as Score Draft and draftsmith score read it.
    const prose = async (file: string) => proseOf(await readText(file), formatOf(file)).text;
    pairs.push({
      name: d,
      hypothesis: await prose(path.join(draftsDir, d)),
      reference: await prose(path.join(referencesDir, ref)),
    });
  }
  return { pairs, unpaired };
}

/**
 * The rows of a JSONL file: `draftField` and `referenceField` hold the texts, `nameField` (optional) the row's name.
 */
export async function pairJsonl(
  file: string,
  draftField: string,
  referenceField: string,
  nameField?: string,
): Promise<Paired> {
  const pairs: DraftPair[] = [];
  const unpaired: string[] = [];
  const lines = (await readText(file)).split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim().length === 0) return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new EngineError('bad-input', `${path.basename(file)}:${i + 1} is not valid JSON`);
    }
    const o = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
    const nameValue = nameField === undefined ? undefined : o[nameField];
    const name = typeof nameValue === 'string' || typeof nameValue === 'number' ? String(nameValue) : `row ${i + 1}`;
    const hyp = o[draftField];
    const ref = o[referenceField];
    if (typeof hyp !== 'string')
      throw new EngineError(
        'bad-input',
        `${path.basename(file)}:${i + 1} has no string field "${draftField}" (the drafts' field)`,
      );
    if (typeof ref !== 'string') unpaired.push(name);
    else pairs.push({ name, hypothesis: hyp, reference: ref });
  });
  if (pairs.length === 0 && unpaired.length === 0)
    throw new EngineError('bad-input', `${path.basename(file)} has no rows`);
  return { pairs, unpaired };
}

/**
 * The string-valued fields of a JSONL file's first row: what the command offers as draft, reference and name fields.
 */
export async function jsonlFields(file: string): Promise<string[]> {
  const first = (await readText(file)).split(/\r?\n/).find((l) => l.trim().length > 0);
  if (first === undefined) return [];
  try {
    const o = JSON.parse(first) as unknown;
    if (typeof o !== 'object' || o === null) return [];
    return Object.entries(o as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k]) => k);
  } catch {
    return [];
  }
}

/** The totals over all rows, as `draftsmith score` computes them over all the pairs (see the header). */
export function folderTotals(
  pairs: readonly DraftPair[],
  rows: readonly CorpusScores[],
  options: MetricOptions,
): CorpusScores {
  return poolScores(pairs, rows, options);
}

/**
 * Score Drafts in Folder's result from its scored rows (the editor's and the CLI's alike): the totals
 * over them, and the signatures those totals carry (BERTScore's encoder layer is known only from them).
 */
export function folderResult(
  where: Pick<FolderScores, 'source' | 'referenceSource'>,
  pairs: readonly DraftPair[],
  rows: FolderScores['rows'],
  options: MetricOptions,
  run: Pick<FolderScores, 'unpaired' | 'cancelled' | 'paired'> & { started: number },
): FolderScores {
  const totals = folderTotals(
    pairs,
    rows.map((r) => r.scores),
    options,
  );
  return {
    ...where,
    rows,
    totals,
    unpaired: run.unpaired,
    cancelled: run.cancelled,
    paired: run.paired,
    signatures: signaturesOf(totals, options),
    elapsedMs: performance.now() - run.started,
  };
}
