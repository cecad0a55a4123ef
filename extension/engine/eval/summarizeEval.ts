/**
 * `draftsmith eval summarize`: ROUGE-1/2/L F1 on the held-out test split, in the shape of the TAAS
 * paper's Table 2 — Lead-3, then each model variant — separately for news (CNN), technical text
 * (Debian package descriptions) and dialogue (DialogSum). The split is written by the training recipe
 * (python3 -m draftsmith_train.summarize prepare), never committed.
 *
 * --mode extractive|abstractive|both picks the summary modes scored (systems/extractive.ts: the
 * sentences the model's topic-aware attention weighs most). With the extractive mode a second
 * baseline, "Lead (same budget)", takes the first sentences to the same word budget, so the table
 * shows what the attention adds over position alone. A second table gives faithfulness
 * (metrics/faithfulness.ts): the share of names and numbers in the summaries that the source lacks.
 * --split val scores the validation split; --sweep compares the extractive aggregations and budgets
 * on it (what the defaults were chosen by).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { AttendedToken, SummarizeMode } from '../../protocol';
import { EngineError } from '../errors';
import { silentRun } from '../systems/context';
import { lead3, leadWords } from '../metrics/lead';
import { DEFAULT_BS_SAMPLES, DEFAULT_SEED, pairedBootstrap } from '../metrics/significance';
import { rougeMetrics } from '../metrics/rougeMetric';
import { corpusFaithfulness, type FaithfulnessSummary } from '../metrics/faithfulness';
import { perplexity } from '../metrics/perplexity';
import { corpusRouge, rougeScores } from '../metrics/rouge';
import { firstSentence, synopsisCandidates } from '../systems/synopsis';
import { extractiveFeatures } from '../systems/extractiveFeatures';
import type { SummarizeSystem } from '../systems/summarize';
import {
  AGGREGATIONS,
  countWords,
  DEFAULT_EXTRACTIVE,
  extractiveSummary,
  featureInputs,
  scoreSentences,
  selectSentences,
  wordBudget,
  type ExtractiveOptions,
} from '../systems/extractive';
import { loadSystem } from '../systems/registry';
import { singleFolder } from '../runtime/modelSource';
import { readSplit, type EvalOptions } from './testSplit';

/** references: every reference where there are several (SciTLDR's test and dev); target is the first. */
const Pair = z.object({
  domain: z.string(),
  id: z.string(),
  source: z.string(),
  target: z.string(),
  references: z.array(z.string()).min(1).optional(),
});
type Pair = z.infer<typeof Pair>;

interface Score {
  r1: number;
  r2: number;
  rl: number;
  n: number;
  seconds: number;
  ppl?: number;
  faith: FaithfulnessSummary;
}
interface Row {
  name: string;
  scores: Record<string, Score>;
  /** Each domain's summaries, in the order of its pairs (for the paired tests). */
  outputs: Record<string, string[]>;
}

/** news: CNN; tech: Debian package descriptions; dialogue: DialogSum; dailymail: the held-out outlet
 * (Daily Mail articles with LLM-written summaries, an outlet the model never trained on); bbc: a second
 * held-out outlet (BBC News articles, title line first, with extractive summaries; draftsmith_train.data
 * prepare-bbc); synopsis: SciTLDR-A (abstract → one-sentence TLDR), from synopsis.<split>.jsonl
 * (draftsmith_train.synopsis prepare). */
export const SUMMARIZE_DOMAINS = ['news', 'tech', 'dialogue', 'dailymail', 'bbc', 'synopsis'] as const;
export type SummarizeDomain = (typeof SUMMARIZE_DOMAINS)[number];

/** both: abstractive and extractive (as before the synopsis mode); all: the three modes. */
export type EvalMode = 'extractive' | 'abstractive' | 'synopsis' | 'both' | 'all';
export const EVAL_MODES: readonly EvalMode[] = ['extractive', 'abstractive', 'synopsis', 'both', 'all'];

/** limit: documents per domain. guards: the abstractive mode's. */
export interface SummarizeEvalOptions extends EvalOptions {
  /** Skip this many documents of each domain first (to score a split in parts). */
  offset?: number;
  /** Print the first three summaries of each domain with their references. */
  show: boolean;
  /** Also the perplexity of the reference summaries under each model (teacher forcing). */
  perplexity?: boolean;
  /** Which summary modes to score (default all). */
  mode?: EvalMode;
  /** 'test' (default) or 'val': the validation split, for choosing settings; 'train' only with
   * `features` (the synopsis scorer's training data). */
  split?: 'test' | 'val' | 'train';
  /** Write each document's synopsis candidates (features and ROUGE against the references) to this
   * file, one JSON line a document, instead of the table: what synopsis.py trains on. */
  features?: string;
  /** Overrides of the extractive defaults (aggregation, budget). */
  extractive?: Partial<ExtractiveOptions>;
  /** Compare extractive aggregations and budgets (one encoder pass per document) instead of the table. */
  sweep?: boolean;
  /** With `sweep`: learned scorers (extractive.json files) compared with the hand-set default instead. */
  scorers?: readonly { name: string; weights: NonNullable<ExtractiveOptions['learned']> }[];
  /** Only these domains (default all). */
  domains?: readonly SummarizeDomain[];
}

export async function runSummarizeEval(opts: SummarizeEvalOptions, log: (m: string) => void): Promise<string> {
  const split = opts.split ?? 'test';
  if (split === 'train' && !opts.features)
    throw new EngineError('bad-request', '--split train is for --features only (metrics come from val or test)');
  const wanted = opts.domains ?? SUMMARIZE_DOMAINS;
  const pairs = [
    // The summarization pairs' training split is read only for the extractive scorer's features.
    ...((split === 'train' && opts.mode !== 'extractive') || !wanted.some((d) => d !== 'synopsis')
      ? []
      : await readSplit('summarize', opts.dataDir, Pair, split)),
    ...(wanted.includes('synopsis') ? await readSynopsisSplit(opts.dataDir, split, log) : []),
  ];
  const byDomain = new Map<string, Pair[]>(
    wanted.map((d) => [
      d,
      pairs.filter((p) => p.domain === d).slice(opts.offset ?? 0, (opts.offset ?? 0) + opts.limit),
    ]),
  );
  for (const [d, ps] of byDomain) if (ps.length === 0) byDomain.delete(d);
  // The sweep and the scorer's data read the first variant's attention.
  const first = () => loadSystem('summarize', singleFolder(opts.variants[0].dir), opts.runtime);
  if (opts.sweep) return sweep(await first(), opts.split, byDomain, log, opts.scorers);
  if (opts.features && opts.mode === 'extractive')
    return writeExtractiveFeatures(await first(), opts.features, byDomain, log);
  if (opts.features) return writeFeatures(await first(), opts.features, byDomain, log);
  const mode = opts.mode ?? 'all';
  const ex: ExtractiveOptions = { ...DEFAULT_EXTRACTIVE, ...opts.extractive };
  // A baseline's row: its summary of every pair, scored domain by domain.
  const baseline = (name: string, summarize: (source: string, i: number, domain: string) => string): Row => {
    const row: Row = { name, scores: {}, outputs: {} };
    for (const [domain, ps] of byDomain) {
      const t0 = performance.now();
      row.outputs[domain] = ps.map((p, i) => summarize(p.source, i, domain));
      row.scores[domain] = score(row.outputs[domain], ps, t0);
    }
    return row;
  };
  const rows: Row[] = [baseline('Lead-3', lead3)];
  const modes: SummarizeMode[] =
    mode === 'all'
      ? ['abstractive', 'extractive', 'synopsis']
      : mode === 'both'
        ? ['abstractive', 'extractive']
        : [mode];
  if (modes.includes('synopsis')) rows.push(baseline('First sentence', firstSentence));
  if (modes.includes('extractive') && ex.leadSentences === undefined)
    rows.push(baseline(`Lead (same budget: ${budgetName(ex)})`, (source) => leadToBudget(source, ex)));
  // Each extractive row against Lead-3 and against the lead of its own length, paired by document.
  const tests: { row: Row; lead: Row }[] = [];
  for (const v of opts.variants) {
    const system = await loadSystem('summarize', singleFolder(v.dir), opts.runtime);
    for (const m of modes) {
      const label =
        m === 'abstractive'
          ? `${v.name} (${system.name}${opts.guards === false ? ', no guards' : ''})`
          : m === 'synopsis'
            ? `${v.name} synopsis (one sentence, the SciTLDR-trained scorer)`
            : `${v.name} extractive (` +
              `${ex.learned ? 'learned scorer' : `${ex.aggregation}, λ ${ex.positionWeight}`}, ` +
              `${budgetName(ex)}${ex.length === 'closest' ? ' (closest)' : ''}` +
              `${(ex.redundancy ?? 1) < 1 ? `, redundancy ${ex.redundancy}` : ''})`;
      const row: Row = { name: label, scores: {}, outputs: {} };
      for (const [domain, ps] of byDomain) {
        const t0 = performance.now();
        const preds: string[] = [];
        for (const [i, p] of ps.entries()) {
          preds.push(
            (await system.run({ op: 'summarize', text: p.source, mode: m, guards: opts.guards }, silentRun, ex))
              .summary,
          );
          opts.dump?.({
            system: 'summarize',
            variant: m === 'abstractive' ? v.name : `${v.name} ${m}`,
            id: p.id,
            domain,
            source: p.source,
            output: preds[i],
            references: p.references ?? [p.target],
          });
          if ((i + 1) % 25 === 0) log(`${v.name} ${m} ${domain}: ${i + 1}/${ps.length}`);
        }
        row.scores[domain] = score(preds, ps, t0);
        row.outputs[domain] = preds;
        if (opts.perplexity && m === 'abstractive') {
          row.scores[domain].ppl = (
            await perplexity(
              system,
              ps.map((p) => ({ context: p.source, target: p.target })),
            )
          ).perplexity;
        }
        if (opts.show) preds.slice(0, 3).forEach((s, i) => log(`${m} ${domain} #${i}: ${s}\n   ref: ${ps[i].target}`));
      }
      rows.push(row);
      if (m === 'extractive') {
        const lead = baseline(`Lead, same length as ${v.name} extractive (its first words)`, (source, i, domain) =>
          leadWords(source, countWords(row.outputs[domain][i])),
        );
        rows.push(lead);
        tests.push({ row, lead });
      }
    }
  }
  return table(rows, byDomain, split) + significanceTable(rows[0], tests, byDomain) + faithfulnessTable(rows, byDomain);
}

const budgetName = (ex: ExtractiveOptions) =>
  ex.leadSentences !== undefined
    ? `the length of the first ${ex.leadSentences} ` +
      `sentences${ex.centralityWeight && !ex.learned ? `, centrality ${ex.centralityWeight}` : ''}` +
      `${ex.titleWeight && !ex.learned ? `, title ${ex.titleWeight}` : ''}`
    : `${Number.isFinite(ex.ratio) ? `${Math.round(ex.ratio * 100)} % of the words, ` : ''}` +
      `${ex.minWords ? `≥ ${ex.minWords} words, ` : ''}≤ ` +
      `${ex.maxSentences} sentences`;

/**
 * Paired bootstrap (sacreBLEU's, 1,000 resamples, seed 12345) of each extractive row against Lead-3
 * and against the lead of its own length, per domain: the mean over documents of ROUGE-1/2/L F1,
 * each row's difference and its p-value. Domains with several references per document are left out.
 */
function significanceTable(
  lead3Row: Row,
  tests: readonly { row: Row; lead: Row }[],
  byDomain: Map<string, Pair[]>,
): string {
  if (tests.length === 0) return '';
  const metrics = rougeMetrics(['rouge1', 'rouge2', 'rougeL'], { stem: true });
  const lines = [
    '',
    '| summary | against | domain | words (mean) | baseline words | R-1 Δ (p) | R-2 Δ (p) | R-L Δ (p) |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  ];
  const meanWords = (xs: readonly string[]) => xs.reduce((n, x) => n + countWords(x), 0) / Math.max(1, xs.length);
  for (const { row, lead } of tests) {
    for (const [domain, ps] of byDomain) {
      if (ps.some((p) => p.references)) continue;
      for (const base of [lead3Row, lead]) {
        const results = pairedBootstrap(
          [
            { name: base.name, hyps: base.outputs[domain] },
            { name: row.name, hyps: row.outputs[domain] },
          ],
          [ps.map((p) => p.target)],
          metrics,
          { samples: DEFAULT_BS_SAMPLES, seed: DEFAULT_SEED },
        );
        const cells = results.map((r) => {
          const [b, x] = r.systems;
          const d = x.score - b.score;
          return `${d >= 0 ? '+' : ''}${d.toFixed(2)} (${(x.pValue ?? 1).toFixed(3)})`;
        });
        lines.push(
          `| ${row.name} | ${base === lead3Row ? 'Lead-3' : 'lead of the same length'} | ${domain} | ` +
            `${meanWords(row.outputs[domain]).toFixed(1)} | ${meanWords(base.outputs[domain]).toFixed(1)} | ` +
            `${cells.join(' | ')} |`,
        );
      }
    }
  }
  lines.push(
    '',
    `Differences in ROUGE F1 points (mean over documents, stemmed); p: paired bootstrap, ${DEFAULT_BS_SAMPLES} ` +
      `resamples, seed ${DEFAULT_SEED} (sacreBLEU's test).`,
    '',
  );
  return lines.join('\n');
}

/** The first sentences while they fit the word budget of the extractive mode (at least one). */
export function leadToBudget(source: string, ex: ExtractiveOptions): string {
  const sentences = scoreSentences(source, [], ex.aggregation).map((s, i, all) => ({ ...s, score: all.length - i }));
  const budget = wordBudget(
    sentences.reduce((n, s) => n + s.words, 0),
    ex,
  );
  return selectSentences(sentences, budget, ex.maxSentences)
    .map((i) => source.slice(sentences[i].start, sentences[i].end))
    .join(' ');
}

/**
 * ROUGE-1/2/L F1 of one summary against several references as SciTLDR's evaluation takes it
 * (scripts/cal-rouge.py, "multi-max"): the reference with the highest ROUGE-1 F1 gives all three.
 */
export function maxOverReferences(pred: string, refs: readonly string[]): { r1: number; r2: number; rl: number } {
  let best = { r1: -1, r2: 0, rl: 0 };
  for (const ref of refs) {
    const s = rougeScores(pred, ref, { stem: true });
    if (s.rouge1.f1 > best.r1) best = { r1: s.rouge1.f1, r2: s.rouge2.f1, rl: s.rougeL.f1 };
  }
  return best;
}

function score(preds: string[], ps: Pair[], t0: number): Score {
  let r1: number, r2: number, rl: number;
  if (ps.some((p) => p.references)) {
    // Several references: the mean over documents of each one's multi-max score (SciTLDR's convention).
    const each = preds.map((pred, i) => maxOverReferences(pred, ps[i].references ?? [ps[i].target]));
    const mean = (f: (x: (typeof each)[number]) => number) => each.reduce((a, x) => a + f(x), 0) / each.length;
    [r1, r2, rl] = [mean((x) => x.r1), mean((x) => x.r2), mean((x) => x.rl)];
  } else {
    const r = corpusRouge(
      preds,
      ps.map((p) => p.target),
      { stem: true },
    );
    [r1, r2, rl] = [r.rouge1.f1, r.rouge2.f1, r.rougeL.f1];
  }
  return {
    r1,
    r2,
    rl,
    n: ps.length,
    seconds: (performance.now() - t0) / 1000,
    faith: corpusFaithfulness(
      preds,
      ps.map((p) => p.source),
    ),
  };
}

/** SciTLDR as `python3 -m draftsmith_train.synopsis prepare` writes it; none when it has not been prepared. */
async function readSynopsisSplit(dataDir: string, split: string, log: (m: string) => void): Promise<Pair[]> {
  const file = path.join(dataDir, `synopsis.${split}.jsonl`);
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch {
    log(`${file} is missing (cd models/train && python3 -m draftsmith_train.synopsis prepare): no synopsis domain`);
    return [];
  }
  return raw
    .split('\n')
    .filter(Boolean)
    .map((l, i) => {
      const parsed = Pair.safeParse(JSON.parse(l));
      if (!parsed.success) throw new EngineError('bad-input', `${file}:${i + 1}: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });
}

/**
 * A scorer's training data, a JSON line per document from the first variant's attention: `record`
 * gives the line's fields beside the document's id and domain.
 */
async function writeDocumentLines(
  system: SummarizeSystem,
  file: string,
  byDomain: Map<string, Pair[]>,
  log: (m: string) => void,
  what: string,
  record: (p: Pair, tokens: Awaited<ReturnType<SummarizeSystem['documentAttention']>>['tokens']) => object,
): Promise<string> {
  const out: string[] = [];
  for (const [domain, ps] of byDomain) {
    for (const [i, p] of ps.entries()) {
      const { tokens } = await system.documentAttention(p.source, undefined);
      out.push(JSON.stringify({ id: p.id, domain, ...record(p, tokens) }));
      if ((i + 1) % 100 === 0) log(`${what} ${domain}: ${i + 1}/${ps.length}`);
    }
  }
  await fs.writeFile(file, out.join('\n') + '\n');
  return `${out.length} documents' ${what} written to ${file}\n`;
}

/**
 * The synopsis scorer's data: for each document, each candidate sentence's features (synopsis.ts)
 * and its ROUGE-1/2/L against the references (multi-max).
 */
function writeFeatures(system: SummarizeSystem, file: string, byDomain: Map<string, Pair[]>, log: (m: string) => void) {
  return writeDocumentLines(system, file, byDomain, log, 'synopsis candidates', (p, tokens) => {
    const { sentences, candidates } = synopsisCandidates(p.source, tokens);
    return {
      candidates: candidates.map((c) => {
        const r = maxOverReferences(
          p.source.slice(sentences[c.index].start, sentences[c.index].end),
          p.references ?? [p.target],
        );
        return { dense: c.dense, words: c.words, rouge: [r.r1, r.r2, r.rl] };
      }),
    };
  });
}

/**
 * The extractive scorer's data (extractive_scorer.py): for each document its candidate sentences,
 * verbatim, with their features (extractiveFeatures.ts), and the references. The oracle labels are
 * made from them in Python.
 */
function writeExtractiveFeatures(
  system: SummarizeSystem,
  file: string,
  byDomain: Map<string, Pair[]>,
  log: (m: string) => void,
) {
  return writeDocumentLines(system, file, byDomain, log, 'extractive features', (p, tokens) => {
    const { inputs } = featureInputs(p.source, scoreSentences(p.source, tokens, 'rank', 0));
    const x = extractiveFeatures(inputs);
    return {
      references: p.references ?? [p.target],
      sentences: inputs.map((s, k) => ({ text: s.text, words: s.words, x: x[k] })),
    };
  });
}

function table(rows: Row[], byDomain: Map<string, Pair[]>, split: string): string {
  const pct = (x: number) => (100 * x).toFixed(2);
  const domains = [...byDomain.keys()];
  const withPpl = rows.some((r) => domains.some((d) => r.scores[d].ppl !== undefined));
  const cols = (d: string) => `${d} R-1 | ${d} R-2 | ${d} R-L${withPpl ? ` | ${d} ref. PPL` : ''}`;
  const head = `| model | ${domains.map(cols).join(' | ')} |`;
  const sep = `|---|${domains.map(() => `---:|---:|---:${withPpl ? '|---:' : ''}`).join('|')}|`;
  const cell = (s: Score) =>
    `${pct(s.r1)} | ${pct(s.r2)} | ${pct(s.rl)}` +
    `${withPpl ? ` | ${s.ppl === undefined ? '–' : s.ppl.toFixed(1)}` : ''}`;
  const body = rows.map((r) => `| ${r.name} | ${domains.map((d) => cell(r.scores[d])).join(' | ')} |`);
  const sizes = domains.map((d) => `${d}: ${byDomain.get(d)?.length ?? 0} documents`).join(', ');
  const synopsisNote = byDomain.has('synopsis')
    ? ' synopsis (SciTLDR): against each reference, the scores of the one with the best ROUGE-1 F1, averaged over ' +
      "documents (SciTLDR's multi-max)."
    : '';
  const pplNote = withPpl
    ? ' ref. PPL: perplexity of the reference summaries under the model, per subword token incl. the end token.'
    : '';
  return [
    head,
    sep,
    ...body,
    '',
    `ROUGE F1 (%), rouge-score tokenization with Porter stemming; ${split === 'test' ? 'test' : 'validation'} ` +
      `split, ` +
      `${sizes}.${pplNote}${synopsisNote}`,
    '',
  ].join('\n');
}

function faithfulnessTable(rows: Row[], byDomain: Map<string, Pair[]>): string {
  const domains = [...byDomain.keys()];
  const head =
    `| model | ` +
    `${domains.map((d) => `${d} unsupported / names+numbers | ${d} rate | ${d} summaries with one`).join(' | ')} ` +
    `|`;
  const sep = `|---|${domains.map(() => '---:|---:|---:').join('|')}|`;
  const cell = (f: FaithfulnessSummary) =>
    `${f.unsupported} / ${f.items} | ${(100 * f.rate).toFixed(1)} % | ${(100 * f.summariesWithInvention).toFixed(1)} %`;
  const body = rows.map((r) => `| ${r.name} | ${domains.map((d) => cell(r.scores[d].faith)).join(' | ')} |`);
  return [
    '',
    head,
    sep,
    ...body,
    '',
    'Faithfulness: names (capitalised words not at a sentence start) and numbers in the summaries that do not ' +
      'occur in their source (metrics/faithfulness.ts); lower is better.',
    '',
  ].join('\n');
}

/**
 * The extractive settings compared on one split: every aggregation × budget, from one pass of the
 * encoder per document. Ranked by the mean of R-1, R-2 and R-L F1 over the domains.
 */
async function sweep(
  system: SummarizeSystem,
  split: string | undefined,
  byDomain: Map<string, Pair[]>,
  log: (m: string) => void,
  scorers: SummarizeEvalOptions['scorers'] = [],
): Promise<string> {
  const budgets: Pick<ExtractiveOptions, 'ratio' | 'maxSentences' | 'minWords'>[] = [
    { ratio: Infinity, maxSentences: 3, minWords: 0 },
    { ratio: 0.1, maxSentences: 5, minWords: 0 },
    { ratio: 0.2, maxSentences: 5, minWords: 0 },
    { ratio: 0.1, maxSentences: 3, minWords: 0 },
    { ratio: 0.2, maxSentences: 3, minWords: 0 },
  ];
  const positionWeights = [0, 1, 2, 4, 8, 16];
  const redundancies = [1, 0.8, 0.6, 0.4];
  const attention = new Map<Pair, AttendedToken[]>();
  for (const [domain, ps] of byDomain) {
    for (const [i, p] of ps.entries()) {
      attention.set(p, (await system.documentAttention(p.source, undefined)).tokens);
      if ((i + 1) % 100 === 0) log(`sweep ${domain}: ${i + 1}/${ps.length}`);
    }
  }
  const name = (b: (typeof budgets)[number]) =>
    Number.isFinite(b.ratio)
      ? `${Math.round(b.ratio * 100)} % of words, ≤ ${b.maxSentences}`
      : `${b.maxSentences} sentence${b.maxSentences > 1 ? 's' : ''}`;
  const lines: { label: string; mean: number; cells: string }[] = [];
  const f = (x: number) => (100 * x).toFixed(2);
  const add = (label: string, summarizeOne: (p: Pair) => string) => {
    let total = 0;
    const cells: string[] = [];
    for (const [, ps] of byDomain) {
      const r = corpusRouge(
        ps.map(summarizeOne),
        ps.map((p) => p.target),
        { stem: true },
      );
      total += (r.rouge1.f1 + r.rouge2.f1 + r.rougeL.f1) / 3;
      cells.push(`${f(r.rouge1.f1)} / ${f(r.rouge2.f1)} / ${f(r.rougeL.f1)}`);
    }
    lines.push({ label, mean: total / byDomain.size, cells: cells.join(' | ') });
  };
  add('Lead-3', (p) => lead3(p.source));
  /** An extractive setting's row, then the lead as long as each of its summaries. */
  const addBesideLead = (label: string, settings: typeof DEFAULT_EXTRACTIVE) => {
    const memo = new Map<Pair, string>();
    const one = (p: Pair) => {
      let out = memo.get(p);
      if (out === undefined) memo.set(p, (out = extractiveSummary(p.source, attention.get(p) ?? [], settings).summary));
      return out;
    };
    add(label, one);
    add(`lead of the same length as: ${label}`, (p) => leadWords(p.source, countWords(one(p))));
  };
  // With a learned scorer (--scorer): it and the hand-set default, each at least or closest to Lead-3's
  // length, each beside the lead of its own length, at a few redundancy thresholds.
  if (scorers.length > 0) {
    for (const scorer of [{ name: 'hand-set', weights: undefined }, ...scorers]) {
      for (const length of ['at-least', 'closest'] as const) {
        for (const redundancy of [1, 0.6, 0.5, 0.4, 0.3]) {
          const settings = {
            ...DEFAULT_EXTRACTIVE,
            length,
            redundancy,
            learned: scorer.weights,
          };
          addBesideLead(`${scorer.name}, Lead-3's length (${length}), redundancy ${redundancy}`, settings);
        }
      }
    }
    // The hand-set score plus β times each learned z (an ensemble), at the default's length and redundancy.
    for (const scorer of scorers) {
      for (const learnedWeight of [0.1, 0.25, 0.5, 1]) {
        const settings = { ...DEFAULT_EXTRACTIVE, learned: scorer.weights, learnedWeight };
        addBesideLead(`hand-set + ${learnedWeight} × ${scorer.name}, Lead-3's length, redundancy 0.4`, settings);
      }
    }
    return sweepTable(lines, byDomain, split, false);
  }
  for (const b of budgets) {
    add(`Lead (${name(b)})`, (p) => leadToBudget(p.source, { ...DEFAULT_EXTRACTIVE, ...b }));
    for (const aggregation of AGGREGATIONS) {
      for (const positionWeight of positionWeights) {
        for (const redundancy of aggregation === 'rank' ? redundancies : [1]) {
          add(
            `${aggregation}, λ ${positionWeight}, ${name(b)}${redundancy < 1 ? `, redundancy ${redundancy}` : ''}`,
            (p) =>
              extractiveSummary(p.source, attention.get(p) ?? [], { aggregation, positionWeight, redundancy, ...b })
                .summary,
          );
        }
      }
    }
  }
  // The default's family: Lead-3's length, the attention's rank, the position prior, centrality and
  // the title's words, the redundancy filter.
  for (const positionWeight of [3, 4, 5, 6]) {
    for (const centralityWeight of [0, 0.75, 1, 1.25]) {
      for (const redundancy of [1, 0.5, 0.4, 0.3]) {
        add(
          `rank, λ ${positionWeight}, centrality ${centralityWeight}, title 1, Lead-3's ` +
            `length${redundancy < 1 ? `, redundancy ${redundancy}` : ''}`,
          (p) =>
            extractiveSummary(p.source, attention.get(p) ?? [], {
              ...DEFAULT_EXTRACTIVE,
              positionWeight,
              centralityWeight,
              redundancy,
            }).summary,
        );
      }
    }
  }
  return sweepTable(lines, byDomain, split);
}

function sweepTable(
  lines: { label: string; mean: number; cells: string }[],
  byDomain: Map<string, Pair[]>,
  split: string | undefined,
  sorted = true,
): string {
  const f = (x: number) => (100 * x).toFixed(2);
  const head = `| setting | ${[...byDomain.keys()].map((d) => `${d} R-1 / R-2 / R-L`).join(' | ')} | mean |`;
  const sep = `|---|${[...byDomain.keys()].map(() => '---:').join('|')}|---:|`;
  const body = (sorted ? lines.sort((a, b) => b.mean - a.mean) : lines).map(
    (l) => `| ${l.label} | ${l.cells} | ${f(l.mean)} |`,
  );
  return [
    head,
    sep,
    ...body,
    '',
    `ROUGE F1 (%) on the ${split ?? 'test'} split; mean = mean of R-1, R-2, R-L over the domains.`,
    '',
  ].join('\n');
}
