/**
 * `draftsmith eval summarize --long`: ROUGE-1/2/L F1 (stemmed, as eval summarize) on the news items of
 * the held-out test split (CNN) whose article is longer than the summarizer's window: the summary of
 * the whole document read section by section (plain text, parts of the window cut between
 * sentences, the whole from the parts nearest the document's topics) against the same mode on the
 * first window only (what Summarize Document read before) and against Lead-3.
 */
import { z } from 'zod';
import type { SummarizeMode } from '../../protocol';
import { lead3 } from '../metrics/lead';
import { corpusRouge } from '../metrics/rouge';
import { silentRun, type RuntimeOptions } from '../systems/context';
import { SummarizeSystem } from '../systems/summarize';
import { readSplit } from './testSplit';

const Pair = z.object({ domain: z.string(), id: z.string(), source: z.string(), target: z.string() });

export interface LongDocumentEvalOptions {
  dataDir: string;
  modelDir: string;
  /** At most this many long articles. */
  limit: number;
  mode: SummarizeMode;
  runtime: RuntimeOptions;
}

export async function runLongDocumentEval(opts: LongDocumentEvalOptions, log: (m: string) => void): Promise<string> {
  const pairs = (await readSplit('summarize', opts.dataDir, Pair)).filter((p) => p.domain === 'news');
  const s = await SummarizeSystem.load(opts.modelDir, opts.runtime);
  const long = pairs.filter((p) => s.firstWindowChars(p.source) < p.source.length);
  const used = long.slice(0, opts.limit);
  log(
    `${long.length} of ${pairs.length} news test articles are longer than the window; scoring ${used.length} ` +
      `(${opts.mode})`,
  );
  const whole: string[] = [];
  const first: string[] = [];
  const lead: string[] = [];
  let parts = 0;
  const t0 = performance.now();
  for (const [i, p] of used.entries()) {
    const r = await s.run({ op: 'summarize', text: p.source, mode: opts.mode, format: 'plain' }, silentRun);
    whole.push(r.summary);
    parts += r.sections?.reduce((n, x) => n + x.parts, 0) ?? 1;
    const cut = p.source.slice(0, s.firstWindowChars(p.source));
    first.push((await s.run({ op: 'summarize', text: cut, mode: opts.mode }, silentRun)).summary);
    lead.push(lead3(p.source));
    if ((i + 1) % 20 === 0) log(`${i + 1}/${used.length} articles, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const refs = used.map((p) => p.target);
  const words = (xs: string[]) =>
    (xs.reduce((n, x) => n + x.split(/\s+/).filter(Boolean).length, 0) / Math.max(1, xs.length)).toFixed(0);
  const row = (name: string, preds: string[]) => {
    const r = corpusRouge(preds, refs, { stem: true });
    const pct = (x: number) => (100 * x).toFixed(2);
    return `| ${name} | ${pct(r.rouge1.f1)} | ${pct(r.rouge2.f1)} | ${pct(r.rougeL.f1)} | ${words(preds)} |`;
  };
  return [
    `${used.length} CNN test articles longer than the model's window (${words(used.map((p) => p.source))} ` +
      `words on average, read in ${(parts / Math.max(1, used.length)).toFixed(1)} parts), ${opts.mode} mode:`,
    '',
    '| summary | R-1 | R-2 | R-L | words |',
    '|---|---|---|---|---|',
    row('Lead-3', lead),
    row('first window only', first),
    row('whole document, section by section', whole),
    '',
  ].join('\n');
}
