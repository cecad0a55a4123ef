/**
 * `draftsmith eval summarize`: ROUGE-1/2/L F1 on the held-out test split, in the shape of the TAAS
 * paper's Table 2 — Lead-3, then each model variant — separately for news (CNN) and technical text
 * (Debian package descriptions). The split is written by the training recipe
 * (python3 -m draftsmith_train.summarize prepare), never committed.
 */
import * as path from 'node:path';
import { z } from 'zod';
import type { RuntimeOptions } from '../systems/context';
import { lead3 } from '../metrics/lead';
import { perplexity } from '../metrics/perplexity';
import { corpusRouge } from '../metrics/rouge';
import { SummarizeSystem } from '../systems/summarize';
import { readSplit, silentRun } from './testSplit';

const Pair = z.object({ domain: z.string(), id: z.string(), source: z.string(), target: z.string() });
type Pair = z.infer<typeof Pair>;

interface Score { r1: number; r2: number; rl: number; n: number; seconds: number; ppl?: number }
interface Row { name: string; scores: Record<string, Score> }

const DOMAINS = ['news', 'tech'] as const;

export interface SummarizeEvalOptions {
  dataDir: string;
  /** At most this many test documents per domain. */
  limit: number;
  /** Skip this many documents of each domain first (to score a split in parts). */
  offset?: number;
  variants: { name: string; dir: string }[];
  /** Print the first three summaries of each domain with their references. */
  show: boolean;
  /** Also the perplexity of the reference summaries under each model (teacher forcing). */
  perplexity?: boolean;
  runtime: RuntimeOptions;
}

export async function runSummarizeEval(opts: SummarizeEvalOptions, log: (m: string) => void): Promise<string> {
  const pairs = await readSplit(path.join(opts.dataDir, 'summarize.test.jsonl'), Pair,
    `cd models/train && python3 -m draftsmith_train.summarize prepare --data ${opts.dataDir}`);
  const byDomain = new Map<string, Pair[]>(DOMAINS.map((d) => [d, pairs.filter((p) => p.domain === d).slice(opts.offset ?? 0, (opts.offset ?? 0) + opts.limit)]));
  const rows: Row[] = [];
  const lead: Row = { name: 'Lead-3', scores: {} };
  for (const [domain, ps] of byDomain) {
    const t0 = performance.now();
    lead.scores[domain] = score(ps.map((p) => lead3(p.source)), ps.map((p) => p.target), ps.length, t0);
  }
  rows.push(lead);
  for (const v of opts.variants) {
    const system = await SummarizeSystem.load(v.dir, opts.runtime);
    const row: Row = { name: `${v.name} (${system.name})`, scores: {} };
    for (const [domain, ps] of byDomain) {
      const t0 = performance.now();
      const preds: string[] = [];
      for (const [i, p] of ps.entries()) {
        preds.push((await system.run({ op: 'summarize', text: p.source }, silentRun)).summary);
        if ((i + 1) % 25 === 0) log(`${v.name} ${domain}: ${i + 1}/${ps.length}`);
      }
      row.scores[domain] = score(preds, ps.map((p) => p.target), ps.length, t0);
      if (opts.perplexity) {
        row.scores[domain].ppl = (await perplexity(system, ps.map((p) => ({ context: p.source, target: p.target })))).perplexity;
      }
      if (opts.show) preds.slice(0, 3).forEach((s, i) => log(`${domain} #${i}: ${s}\n   ref: ${ps[i].target}`));
    }
    rows.push(row);
  }
  return table(rows, byDomain);
}

function score(preds: string[], refs: string[], n: number, t0: number): Score {
  const r = corpusRouge(preds, refs, { stem: true });
  return { r1: r.rouge1.f1, r2: r.rouge2.f1, rl: r.rougeL.f1, n, seconds: (performance.now() - t0) / 1000 };
}

function table(rows: Row[], byDomain: Map<string, Pair[]>): string {
  const pct = (x: number) => (100 * x).toFixed(2);
  const domains = [...byDomain.keys()];
  const withPpl = rows.some((r) => domains.some((d) => r.scores[d].ppl !== undefined));
  const cols = (d: string) => `${d} R-1 | ${d} R-2 | ${d} R-L${withPpl ? ` | ${d} ref. PPL` : ''}`;
  const head = `| model | ${domains.map(cols).join(' | ')} |`;
  const sep = `|---|${domains.map(() => `---:|---:|---:${withPpl ? '|---:' : ''}`).join('|')}|`;
  const cell = (s: Score) => `${pct(s.r1)} | ${pct(s.r2)} | ${pct(s.rl)}${withPpl ? ` | ${s.ppl === undefined ? '–' : s.ppl.toFixed(1)}` : ''}`;
  const body = rows.map((r) => `| ${r.name} | ${domains.map((d) => cell(r.scores[d])).join(' | ')} |`);
  const sizes = domains.map((d) => `${d}: ${byDomain.get(d)?.length ?? 0} documents`).join(', ');
  const pplNote = withPpl ? ' ref. PPL: perplexity of the reference summaries under the model, per subword token incl. the end token.' : '';
  return [head, sep, ...body, '', `ROUGE F1 (%), rouge-score tokenization with Porter stemming; test split, ${sizes}.${pplNote}`, ''].join('\n');
}
