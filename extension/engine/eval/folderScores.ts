/**
 * Score Drafts in Folder, shared by the command and `draftsmith score` on a folder:
 *  - pairing: each draft file with the file of the same name in the references folder (else one
 *    whose name differs only in its extension: draft.md with draft.txt), or the rows of a JSONL
 *    file with the draft and reference fields the user names;
 *  - one row per draft (Score Draft's scores of that draft against its reference) and the corpus
 *    totals, equal to `draftsmith score` over all the pairs: corpus BLEU and chrF (each draft one
 *    segment, sacreBLEU's corpus score), corpus diversity, entity words over all sentences, and the
 *    mean over drafts of ROUGE (rouge-score's aggregate) and of coherence L (where defined);
 *  - the columns, sorting and exports are in ./folderTable.ts (the panel's page uses them too).
 *    The non-word rate and the perplexity (when asked for) pool the drafts' tokens.
 * Free of wink-nlp and of the models: the host computes the totals from rows the worker scored.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { CorpusScores } from '../../protocol';
import { EngineError } from '../errors';
import { formatOf } from '../text/markdown';
import { proseOf } from '../text/proseText';
import { corpusBleu, type BleuOptions } from '../metrics/bleu';
import { corpusChrf, type ChrfOptions } from '../metrics/chrf';
import { diversity } from '../metrics/diversity';
import { poolNonwords } from '../metrics/nonwords';
import { pooledPerplexity } from '../metrics/perplexity';

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

/** Each file of `draftsDir` with the file of the same name (else the same name but its extension) in `referencesDir`. */
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

/** The rows of a JSONL file: `draftField` and `referenceField` hold the texts, `nameField` (optional) the row's name. */
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

/** The string-valued fields of a JSONL file's first row: what the command offers as draft, reference and name fields. */
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
  bleu: BleuOptions,
  chrf: ChrfOptions | undefined,
): CorpusScores {
  const hyps = pairs.map((p) => p.hypothesis);
  const refs = [pairs.map((p) => p.reference)];
  const b = corpusBleu(hyps, refs, bleu);
  const n = Math.max(rows.length, 1);
  const mean = (f: (s: CorpusScores) => number) => rows.reduce((a, s) => a + f(s), 0) / n;
  const prf = (k: keyof CorpusScores['rouge']) => ({
    precision: mean((s) => s.rouge[k].precision),
    recall: mean((s) => s.rouge[k].recall),
    f1: mean((s) => s.rouge[k].f1),
  });
  const entityWords = rows.reduce((a, s) => a + s.substantiality.entityWords, 0);
  const sentences = rows.reduce((a, s) => a + s.substantiality.sentences, 0);
  const ls = rows.map((s) => s.coherenceL).filter((l): l is number => l !== null);
  const c = chrf === undefined ? undefined : corpusChrf(hyps, refs, chrf);
  const nonwords = rows.flatMap((s) => (s.nonwords ? [s.nonwords] : []));
  const ppl = rows.flatMap((s) => (s.perplexity ? [s.perplexity] : []));
  return {
    pairs: rows.length,
    bleu: {
      score: b.score,
      precisions: b.precisions,
      brevityPenalty: b.brevityPenalty,
      ratio: b.ratio,
      hypLength: b.hypLength,
      refLength: b.refLength,
    },
    rouge: {
      rouge1: prf('rouge1'),
      rouge2: prf('rouge2'),
      rougeL: prf('rougeL'),
      rougeLsum: prf('rougeLsum'),
      rougeW: prf('rougeW'),
    },
    diversity: diversity(hyps),
    substantiality: {
      perSentence: sentences > 0 ? entityWords / sentences : 0,
      entityWords,
      sentences,
      examples: [...new Set(rows.flatMap((s) => s.substantiality.examples))].slice(0, 10),
    },
    coherenceL: ls.length > 0 ? ls.reduce((a, x) => a + x, 0) / ls.length : null,
    ...(c === undefined ? {} : { chrf: { score: c.score, name: c.name } }),
    // Non-words and perplexity pool the drafts' tokens, as `draftsmith score` over all the pairs.
    ...(nonwords.length > 0 && nonwords.length === rows.length ? { nonwords: poolNonwords(nonwords) } : {}),
    ...(ppl.length > 0 && ppl.length === rows.length ? { perplexity: pooledPerplexity(ppl, ppl[0].model) } : {}),
  };
}
