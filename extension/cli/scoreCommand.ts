/**
 * `draftsmith score --ref REF [--ref REF2 ...] --hyp HYP [--hyp HYP2 ...] [options]`
 *
 * With one --ref, one --hyp and no -m: every metric of the metric list over the pairs, the same
 * function Score Draft uses (scoreCorpus), with their signatures. A folder: Score Drafts in Folder's
 * table. With -m, several references or systems, --sentence-level, --confidence or a paired test:
 * sacreBLEU's workflow with sacreBLEU's flag names, over each named metric's sentence-level
 * statistics (--sentence-level, --confidence [--confidence-n N], --paired-bs [--paired-bs-n N] |
 * --paired-ar [--paired-ar-n N], --seed N (sacreBLEU: SACREBLEU_SEED), --width N).
 * The -m names, each metric's flags, how a flag sets its options, its statistics, its details beside
 * the score and its options for one segment all come from the list's entries (eval/metricList.ts,
 * eval/metricFlags.ts); nothing here names a metric but the two a model computes (perplexity,
 * BERTScore), which the CLI runs.
 */
import type { CorpusScores, EngineConfig } from '../protocol';
import { stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { version as DRAFTSMITH_VERSION } from '../../package.json';
import { markdownCharts, report } from '../engine/eval/report';
import { REPORT_VERSIONS } from '../engine/metrics/signature';
import { folderResult, pairFolders, pairJsonl } from '../engine/eval/folderScores';
import { columnsOf, folderCsv, folderJson } from '../engine/eval/folderTable';
import {
  formatValue,
  METRIC_CLIS,
  METRIC_NAMES,
  METRICS,
  namedMetric,
  shownMetrics,
  signaturesOf,
  type MetricKey,
} from '../engine/eval/metricList';
import type { MetricCli, MetricCliRun, NamedRun, ScoreDetails } from '../engine/eval/metricFlags';
import type { MetricOptions } from '../engine/eval/scoreOptions';
import { EngineError, errorMessage } from '../engine/errors';
import { scoreCorpus } from '../engine/eval/scoreDraft';
import {
  bootstrapConfidence,
  DEFAULT_AR_SAMPLES,
  DEFAULT_BS_SAMPLES,
  DEFAULT_SEED,
  pairedApproximateRandomization,
  pairedBootstrap,
  type MetricComparison,
  type StatMetric,
} from '../engine/metrics/significance';
import { flag, intFlag, type Args } from './args';
import { listed } from './options';
import {
  sacrebleuJson,
  systemsTable,
  systemsText,
  worstSegments,
  type SystemsTable,
  type WorstSegments,
} from '../engine/eval/systemsTable';
import { progressBar } from './progressBar';
import { readPairs, readReferenceLists, readSegments, referenceStreams } from './readPairs';
import { draftPerplexity, type DraftPerplexity } from './draftPerplexity';
import { bertScoreFlags, draftBertScore, type BertScoreFlags } from './draftBertScore';

/** Rows of (metric, value): every value of every metric the scores carry, in the metric list's order. */
export function scoreRows(s: CorpusScores): [string, string][] {
  return [
    ['pairs', String(s.pairs)],
    ...shownMetrics(s).flatMap((m) => m.values.map((v): [string, string] => [v.label, formatValue(v)])),
  ];
}

const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** How the CLI's engine is configured (cli.ts engineConfig: --device, --threads, --hub-endpoint, --offline). */
export type ConfigOf = (a: Args) => EngineConfig;

/** --bertscore-model's encoder and the configuration it loads with; undefined without the option. */
function bertScoreRequest(
  a: Args,
  configOf: ConfigOf | undefined,
): { flags: BertScoreFlags; config: EngineConfig } | undefined {
  const flags = bertScoreFlags(a);
  if (flags === undefined) return undefined;
  if (!configOf) throw new EngineError('internal', 'BERTScore needs the engine configuration');
  return { flags, config: configOf(a) };
}

/** The whole-table mode: every metric, one reference, one system, with the signatures. */
async function scoreEverything(a: Args, options: MetricOptions, configOf?: ConfigOf): Promise<void> {
  const bert = bertScoreRequest(a, configOf);
  const ref = flag(a, 'ref');
  const hyp = flag(a, 'hyp');
  if (!ref || !hyp) throw new EngineError('bad-request', 'score needs --ref FILE and --hyp FILE');
  const pairs = await readPairs({
    ref,
    hyp,
    refField: flag(a, 'ref-field') ?? 'text',
    hypField: flag(a, 'hyp-field') ?? 'text',
    document: flag(a, 'document') !== undefined,
    limit: intFlag(a, 'limit') ?? Infinity,
  });
  if (pairs.length === 0) throw new EngineError('bad-input', `no pairs to score in ${ref} and ${hyp}`);
  const bar = progressBar('scoring');
  const started = performance.now();
  const scores: CorpusScores = runMetric(() =>
    scoreCorpus(pairs, options, { progress: (done, total) => bar.update(done, total) }),
  );
  bar.done();
  // The drafts' perplexity pooled, with each draft's own in --json (draftPerplexity.ts).
  if (flag(a, 'perplexity') !== undefined)
    scores.perplexity = await perplexityOf(
      a,
      pairs.map((p) => p.hypothesis),
    );
  // BERTScore: the mean over the pairs, idf (when asked for) over all the references.
  if (bert) scores.bertscore = (await draftBertScore(pairs, bert.flags, bert.config)).summary;
  const signatures = signaturesOf(scores, options);
  const seconds = (performance.now() - started) / 1000;
  const rows = scoreRows(scores);
  for (const [name, signature] of Object.entries(signatures)) rows.push([`${name} signature`, signature]);
  if (flag(a, 'json')) process.stdout.write(JSON.stringify({ ...scores, signatures }, null, 2) + '\n');
  else if (flag(a, 'csv'))
    process.stdout.write(['metric,value', ...rows.map(([m, v]) => `${csvCell(m)},${csvCell(v)}`)].join('\n') + '\n');
  else {
    const width = Math.max(...rows.map(([m]) => m.length));
    process.stdout.write(`| ${'metric'.padEnd(width)} | value |\n|${'-'.repeat(width + 2)}|------:|\n`);
    for (const [m, v] of rows) process.stdout.write(`| ${m.padEnd(width)} | ${v} |\n`);
  }
  if (flag(a, 'quiet') === undefined) {
    process.stderr.write(
      `scored ${pairs.length} pairs in ${seconds.toFixed(1)} s (${(pairs.length / seconds).toFixed(0)} pairs/s)\n`,
    );
  }
}

/** --perplexity: the drafts under the built-in story LM (draftPerplexity.ts says what it measures). */
async function perplexityOf(a: Args, drafts: string[]): Promise<DraftPerplexity> {
  const bar = progressBar('story LM perplexity');
  try {
    return await draftPerplexity(drafts, flag(a, 'models'), (d, t) => bar.update(d, t));
  } finally {
    bar.done();
  }
}

/** A metric's RangeError (a bad option value) as the CLI's clear message. */
function runMetric<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RangeError) throw new EngineError('bad-request', e.message);
    throw e;
  }
}

function positiveInt(a: Args, name: string, min = 1): number | undefined {
  const n = intFlag(a, name);
  if (n !== undefined && n < min)
    throw new EngineError('bad-request', `--${name} must be a whole number ≥ ${min}, not ${n}`);
  return n;
}

/** Every metric's flags read (the metric list's CLI entries), their notes on standard error. */
type MetricRuns = ReadonlyMap<MetricKey, MetricCliRun>;

function readMetricFlags(a: Args): MetricRuns {
  const runs = new Map<MetricKey, MetricCliRun>();
  for (const { key, cli } of METRIC_CLIS) {
    const run = cli.read((name) => flag(a, name));
    for (const note of run.notes) process.stderr.write(note + '\n');
    runs.set(key, run);
  }
  return runs;
}

/**
 * Score Draft's options from every metric's flags: the full table's and a folder's. `named`: the
 * metrics -m names (a folder's chrF and TER columns).
 */
function scoreOptionsOf(runs: MetricRuns, named: readonly Pick[] = []): MetricOptions {
  const options: MetricOptions = {};
  for (const [key, run] of runs) Object.assign(options, run.options(named.some((p) => p.key === key)));
  return options;
}

/** One statistic -m asks for: its metric and its part (rouge1 of ROUGE). */
interface Pick {
  key: MetricKey;
  part: string;
}

/** The metrics -m names, in the order given, each part once; undefined without -m. */
function metricsOf(a: Args): Pick[] | undefined {
  const values = a.flags.get('metrics');
  if (values === undefined) return undefined;
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  const out: Pick[] = [];
  for (const n of names) {
    const m = namedMetric(n);
    if (m === undefined) {
      const hints = METRIC_CLIS.flatMap((c) => c.cli.hint ?? []);
      throw new EngineError(
        'bad-request',
        `-m/--metrics takes ${METRIC_NAMES.join(', ')}${hints.length > 0 ? ` (${hints.join('; ')})` : ''}, not "${n}"`,
      );
    }
    for (const part of m.parts)
      if (!out.some((p) => p.key === m.key && p.part === part)) out.push({ key: m.key, part });
  }
  return out;
}

/** A metric's flags that apply only where `where` says, given by the user. */
const givenFlags = (a: Args, where: 'tables' | 'named') =>
  METRIC_CLIS.flatMap(({ key, cli }) =>
    cli.flags.filter((f) => f.appliesTo === where && flag(a, f.name) !== undefined).map((f) => ({ key, cli, f })),
  );

export async function scoreCommand(a: Args, configOf?: ConfigOf): Promise<void> {
  const refs = a.flags.get('ref') ?? [];
  const hyps = a.flags.get('hyp') ?? [];
  if (refs.length === 0 || hyps.length === 0)
    throw new EngineError(
      'bad-request',
      'score needs --ref FILE and --hyp FILE (each may be given several times: references of the same ' +
        'segments, systems to compare)',
    );
  const runs = readMetricFlags(a);
  const metrics = metricsOf(a);
  const pairedBs = flag(a, 'paired-bs') !== undefined;
  const pairedAr = flag(a, 'paired-ar') !== undefined;
  const sentenceLevel = flag(a, 'sentence-level') !== undefined;
  const confidence = flag(a, 'confidence') !== undefined;
  for (const f of ['worst', 'report'])
    if (flag(a, f) !== undefined && !pairedBs && !pairedAr)
      throw new EngineError(
        'bad-request',
        `--${f} ` +
          (f === 'worst'
            ? 'lists the segments a system loses most against the baseline'
            : 'reports several systems against a baseline') +
          `: add --paired-bs or --paired-ar and several --hyp`,
      );
  const reportTo = flag(a, 'report');
  if (reportTo !== undefined) await checkReportFile(reportTo);
  const sacre =
    metrics !== undefined || refs.length > 1 || hyps.length > 1 || pairedBs || pairedAr || sentenceLevel || confidence;
  if (flag(a, 'name-field') !== undefined || (await isFolder(refs[0])) || (await isFolder(hyps[0]))) {
    // A folder (or a JSONL's named rows) is Score Drafts in Folder's table; -m chooses its chrF and TER columns.
    if (refs.length > 1 || hyps.length > 1 || pairedBs || pairedAr || sentenceLevel || confidence) {
      throw new EngineError(
        'bad-request',
        'a folder of drafts is scored as one table (one --hyp folder, one --ref folder); several systems, ' +
          'several references and the paired tests take segment files, one line per segment',
      );
    }
    return scoreFolderCli(a, scoreOptionsOf(runs, metrics), configOf);
  }
  // A metric a model computes, named with -m, is scored alone by its model (BERTScore).
  if (metrics?.some((m) => 'external' in METRICS[m.key].scoring)) return scoreBertOnly(a, metrics, configOf);
  if (sacre) {
    for (const { f } of givenFlags(a, 'tables'))
      throw new EngineError(
        'bad-request',
        `--${f.name} applies to the full table (one --ref, one --hyp, no -m) or a folder's, not to -m, several ` +
          `systems or references, or the paired tests`,
      );
    // Without -m: the list's first metric with -m names (sacreBLEU's default, BLEU).
    const first = METRIC_CLIS.find((m) => m.cli.scoresNamed);
    const picks = metrics ?? (first ? [{ key: first.key, part: Object.values(first.cli.names ?? {})[0][0] }] : []);
    for (const { key, cli, f } of givenFlags(a, 'named')) {
      if (picks.some((p) => p.key === key)) continue;
      const [first, ...others] = Object.keys(cli.names ?? {});
      throw new EngineError(
        'bad-request',
        `--${f.name} applies to ${cli.name}: add -m ${first}${others.length > 0 ? ` (or ${others.join(', ')})` : ''}`,
      );
    }
    return scoreSacre(a, { refs, hyps, picks, runs, pairedBs, pairedAr, sentenceLevel, confidence });
  }
  for (const { cli, f } of givenFlags(a, 'named'))
    throw new EngineError(
      'bad-request',
      `--${f.name} applies to ${cli.name} with -m (e.g. -m ${Object.keys(cli.names ?? {})[0]}), not to the full table`,
    );
  return scoreEverything(a, scoreOptionsOf(runs), configOf);
}

/**
 * -m bertscore: BERTScore alone, over one --ref and one --hyp (one segment per line), in sacreBLEU's
 * score line: `BERTScore|signature = F1 (P = …, R = …)`, or --json. The encoder is --bertscore-model's.
 */
async function scoreBertOnly(a: Args, metrics: readonly Pick[], configOf?: ConfigOf): Promise<void> {
  if (metrics.length > 1)
    throw new EngineError(
      'bad-request',
      '-m bertscore is scored on its own (the full table adds it to every metric: --bertscore-model ' +
        `without -m), not with ${metrics
          .filter((m) => m.key !== 'bertscore')
          .map((m) => m.part)
          .join(', ')}`,
    );
  const refs = a.flags.get('ref') ?? [];
  const hyps = a.flags.get('hyp') ?? [];
  for (const f of ['paired-bs', 'paired-ar', 'sentence-level', 'confidence'])
    if (flag(a, f) !== undefined) throw new EngineError('bad-request', `--${f} is not available for -m bertscore`);
  if (refs.length !== 1 || hyps.length !== 1)
    throw new EngineError('bad-request', '-m bertscore takes one --ref and one --hyp');
  const bert = bertScoreRequest(a, configOf);
  if (!bert)
    throw new EngineError(
      'bad-request',
      '-m bertscore needs an encoder: --bertscore-model MODEL (a Hub id such as Xenova/all-MiniLM-L6-v2, or a folder)',
    );
  const pairs = await readPairs({
    ref: refs[0],
    hyp: hyps[0],
    refField: flag(a, 'ref-field') ?? 'text',
    hypField: flag(a, 'hyp-field') ?? 'text',
    document: flag(a, 'document') !== undefined,
    limit: intFlag(a, 'limit') ?? Infinity,
  });
  if (pairs.length === 0) throw new EngineError('bad-input', `no pairs to score in ${refs[0]} and ${hyps[0]}`);
  const { summary: b } = await draftBertScore(pairs, bert.flags, bert.config);
  const width = positiveInt(a, 'width', 0) ?? 4;
  if (flag(a, 'json') !== undefined) {
    const out = { name: 'BERTScore', score: b.f1, precision: b.precision, recall: b.recall, signature: b.signature };
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
  } else {
    const extra = ` (P = ${b.precision.toFixed(width)}, R = ${b.recall.toFixed(width)})`;
    process.stdout.write(scoreLine('BERTScore', b.signature, b.f1, width, extra) + '\n');
  }
}

interface SacreRun {
  refs: string[];
  hyps: string[];
  /** The statistics -m asks for, in order. */
  picks: Pick[];
  runs: MetricRuns;
  pairedBs: boolean;
  pairedAr: boolean;
  sentenceLevel: boolean;
  confidence: boolean;
}

/** sacreBLEU's score line: `NAME|signature = score[ (μ = mean ± ci)][ verbose]` (Score.format). */
function scoreLine(name: string, signature: string, score: number, width: number, extra = ''): string {
  return `${name}|${signature} = ${score.toFixed(width)}${extra}`;
}

/**
 * The statistics of the picks, in their order: each metric's parts asked for at once (ROUGE's types
 * share their segments' scores). `segment`: as sacreBLEU scores one segment (BLEU's effective order).
 */
function statsOf(run: SacreRun, named: NamedRun, segment = false): StatMetric[] {
  const byKey = new Map<MetricKey, StatMetric[]>();
  for (const key of new Set(run.picks.map((p) => p.key))) {
    const parts = run.picks.filter((p) => p.key === key).map((p) => p.part);
    byKey.set(key, runOf(run, key).stat(parts, named, segment));
  }
  const taken = new Map<MetricKey, number>();
  return run.picks.map((p) => {
    const k = taken.get(p.key) ?? 0;
    taken.set(p.key, k + 1);
    return (byKey.get(p.key) ?? [])[k];
  });
}

const runOf = (run: SacreRun, key: MetricKey): MetricCliRun => {
  const r = run.runs.get(key);
  if (r === undefined) throw new EngineError('internal', `no command line for the metric ${key}`);
  return r;
};

async function scoreSacre(a: Args, run: SacreRun): Promise<void> {
  const { pairedBs, pairedAr, sentenceLevel, confidence } = run;
  if (pairedBs && pairedAr)
    throw new EngineError('bad-request', '--paired-bs and --paired-ar exclude each other: choose one test');
  const paired = pairedBs || pairedAr;
  if (paired && run.hyps.length < 2)
    throw new EngineError(
      'bad-request',
      'a paired test compares systems: give the baseline and at least one other system, --hyp BASELINE --hyp SYSTEM',
    );
  if (sentenceLevel && (paired || confidence))
    throw new EngineError('bad-request', 'statistical tests are unavailable with --sentence-level (as in sacreBLEU)');
  if (sentenceLevel && run.picks.length > 1)
    throw new EngineError('bad-request', 'only one metric can be used with --sentence-level (as in sacreBLEU)');
  if (sentenceLevel && run.hyps.length > 1)
    throw new EngineError('bad-request', 'only one system can be scored with --sentence-level (as in sacreBLEU)');
  if (confidence && run.hyps.length > 1)
    throw new EngineError(
      'bad-request',
      '--confidence is for one system; compare several with --paired-bs or --paired-ar',
    );
  if (flag(a, 'document') !== undefined)
    throw new EngineError('bad-request', '--document is for the full table (one --ref, one --hyp, no -m)');
  const seed = intFlag(a, 'seed') ?? DEFAULT_SEED;
  if (seed < 0) throw new EngineError('bad-request', `--seed must be a whole number ≥ 0, not ${seed}`);
  const width = positiveInt(a, 'width', 0) ?? 2;
  const limit = intFlag(a, 'limit') ?? Infinity;
  const refField = flag(a, 'ref-field') ?? 'text';
  const hypField = flag(a, 'hyp-field') ?? 'text';

  // Each --ref gives every segment one reference, or several where a JSONL field holds a list.
  const refLists = await Promise.all(run.refs.map((f) => readReferenceLists(f, refField)));
  const systems = await Promise.all(
    run.hyps.map(async (f) => ({ file: f, hyps: await readSegments(f, hypField, false) })),
  );
  const n = systems[0].hyps.length;
  const counts = [
    ...systems.map((s) => `${s.file} (--hyp): ${s.hyps.length}`),
    ...run.refs.map((f, i) => `${f} (--ref): ${refLists[i].length}`),
  ];
  if (systems.some((s) => s.hyps.length !== n) || refLists.some((r) => r.length !== n)) {
    throw new EngineError(
      'bad-input',
      `the files must have the same number of segments, one per line, but have:\n  ${counts.join('\n  ')}`,
    );
  }
  if (n === 0) throw new EngineError('bad-input', `no segments to score in ${run.hyps[0]}`);
  const take = Math.min(n, limit);
  const { streams: refsCut, varying } = referenceStreams(refLists, take);
  const sameCount = (c: MetricCli) => c.sameReferenceCount === true;
  if (varying && run.picks.some((p) => METRICS[p.key].cli?.sameReferenceCount)) {
    const named = METRIC_CLIS.filter((m) => m.cli.scoresNamed).map((m) => m.cli);
    const any = named.filter((c) => !sameCount(c)).map((c) => c.name);
    throw new EngineError(
      'bad-input',
      `segments have different numbers of references in ${run.refs.join(', ')}; ` +
        `${listed(named.filter(sameCount).map((c) => c.name))} here need the same number for every ` +
        `segment${any.length > 0 ? ` (${listed(any)} ${any.length > 1 ? 'take' : 'takes'} any)` : ''}`,
    );
  }
  const names = uniqueNames(run.hyps);
  const named = systems.map((s, i) => ({ name: names[i], hyps: s.hyps.slice(0, take) }));
  const nrefs = refsCut.length;
  const started = performance.now();
  const namedRun: NamedRun = { varyingReferences: varying };
  const statMetrics = statsOf(run, namedRun);
  const quiet = flag(a, 'quiet') !== undefined;

  if (sentenceLevel) {
    // One segment is scored as sacreBLEU's --sentence-level scores it (BLEU: effective order on).
    const [pick] = run.picks;
    const [segment] = statsOf({ ...run, picks: [pick] }, namedRun, true);
    const signature = segment.signature(nrefs);
    const name = statMetrics[0].name;
    const details = runOf(run, pick.key).details;
    const rows = named[0].hyps.map((h, i) => {
      const rs = refsCut.map((r) => r[i]);
      const stats = runMetric(() => segment.segmentStats(h, rs));
      const score = runMetric(() => segment.score(stats));
      const extra = details?.(pick.part, stats, true).text ?? '';
      return { score, line: scoreLine(name, signature, score, width, extra) };
    });
    if (flag(a, 'json'))
      process.stdout.write(
        JSON.stringify({ mode: 'sentence', metric: name, signature, scores: rows.map((r) => r.score) }, null, 2) + '\n',
      );
    else if (flag(a, 'csv'))
      process.stdout.write(
        ['segment,metric,score,signature', ...rows.map((r, i) => `${i + 1},${name},${r.score},${signature}`)].join(
          '\n',
        ) + '\n',
      );
    else for (const r of rows) process.stdout.write(r.line + '\n');
    return;
  }

  let comparisons: MetricComparison[];
  let mode: string;
  if (paired) {
    const samples = pairedBs
      ? (positiveInt(a, 'paired-bs-n') ?? DEFAULT_BS_SAMPLES)
      : (positiveInt(a, 'paired-ar-n') ?? DEFAULT_AR_SAMPLES);
    const bar = progressBar(pairedBs ? 'paired bootstrap' : 'approximate randomization');
    const fn = pairedBs ? pairedBootstrap : pairedApproximateRandomization;
    named[0] = { ...named[0], name: `Baseline: ${named[0].name}` }; // sacreBLEU's label
    comparisons = runMetric(() =>
      fn(named, refsCut, statMetrics, { samples, seed, progress: (d, t) => bar.update(d, t) }),
    );
    bar.done();
    mode = pairedBs ? 'paired-bs' : 'paired-ar';
  } else {
    mode = confidence ? 'confidence' : 'corpus';
    const confidenceN = positiveInt(a, 'confidence-n') ?? DEFAULT_BS_SAMPLES;
    comparisons = statMetrics.map((metric) => {
      if (confidence) {
        const r = runMetric(() => bootstrapConfidence(named[0].hyps, refsCut, metric, { samples: confidenceN, seed }));
        return { metric: metric.name, signature: r.signature, systems: [{ ...r, name: named[0].name }] };
      }
      return {
        metric: metric.name,
        signature: metric.signature(nrefs),
        systems: named.map((s) => ({
          name: s.name,
          score: runMetric(() => metric.score(corpusStats(metric, s.hyps, refsCut))),
        })),
      };
    });
  }
  // What each metric prints beside its score (BLEU's precisions and lengths), per system.
  const details: Details | undefined = paired
    ? undefined
    : run.picks.map((p, k) => {
        const of = runOf(run, p.key).details;
        return of === undefined
          ? undefined
          : named.map((s) => runMetric(() => of(p.part, corpusStats(statMetrics[k], s.hyps, refsCut))));
      });
  const seconds = (performance.now() - started) / 1000;
  if (paired) {
    // Several systems against the baseline: sacreBLEU's multi-system table, and the segments each
    // system loses most on (--worst N).
    const table = systemsTable(comparisons, statMetrics, {
      test: pairedBs ? 'paired-bs' : 'paired-ar',
      samples: pairedBs
        ? (positiveInt(a, 'paired-bs-n') ?? DEFAULT_BS_SAMPLES)
        : (positiveInt(a, 'paired-ar-n') ?? DEFAULT_AR_SAMPLES),
      seed,
      segments: take,
      nrefs,
    });
    const worstN = positiveInt(a, 'worst', 1);
    const reportFile = flag(a, 'report');
    const worst =
      worstN === undefined && reportFile === undefined
        ? undefined
        : worstSegments(named, refsCut, statMetrics, statsOf(run, namedRun, true), worstN ?? 5);
    printSystems(a, comparisons, table, width, worstN === undefined ? undefined : worst);
    if (reportFile !== undefined) await writeReport(reportFile, table, worst ?? [], run.refs.join(', '));
  } else printComparisons(a, mode, comparisons, width, details);
  if (!quiet)
    process.stderr.write(
      `scored ${named.length} system${named.length > 1 ? 's' : ''} × ${take} segments × ${nrefs} ` +
        `reference${nrefs > 1 ? 's' : ''} in ${seconds.toFixed(1)} s\n`,
    );
}

const isFolder = (p: string) =>
  stat(p).then(
    (st) => st.isDirectory(),
    () => false,
  );

/**
 * `draftsmith score --hyp DRAFTS_DIR --ref REFS_DIR`: Score Drafts in Folder's table (one row per draft,
 * the corpus last), the same rows and totals as the panel; or `--hyp F.jsonl --ref F.jsonl --hyp-field X
 * --ref-field Y --name-field Z` for the rows of a JSONL file. --csv and --json write the panel's exports.
 */
async function scoreFolderCli(a: Args, scoreOptions: MetricOptions, configOf?: ConfigOf): Promise<void> {
  const bert = bertScoreRequest(a, configOf);
  if (bert?.flags.idf)
    throw new EngineError(
      'bad-request',
      "--bertscore-idf applies to the full table (one --ref, one --hyp): a folder's rows are each scored " +
        'alone, where idf is undefined',
    );
  const hyp = flag(a, 'hyp') ?? '';
  const ref = flag(a, 'ref') ?? '';
  const nameField = flag(a, 'name-field');
  const folders = await isFolder(hyp);
  if (folders !== (await isFolder(ref)))
    throw new EngineError(
      'bad-request',
      '--hyp and --ref must both be folders (drafts, and references of the same file names)',
    );
  if (!folders && hyp !== ref)
    throw new EngineError(
      'bad-request',
      '--name-field reads one JSONL file: give it as both --hyp and --ref, with --hyp-field and --ref-field',
    );
  const started = performance.now();
  const paired = folders
    ? await pairFolders(hyp, ref)
    : await pairJsonl(hyp, flag(a, 'hyp-field') ?? 'text', flag(a, 'ref-field') ?? 'text', nameField);
  if (paired.pairs.length === 0)
    throw new EngineError(
      'bad-input',
      `no draft in ${hyp} has a reference${folders ? ` of the same name in ${ref}` : ''}`,
    );
  const limit = intFlag(a, 'limit') ?? Infinity;
  const pairs = paired.pairs.slice(0, limit);
  const options = scoreOptions;
  const bar = progressBar('scoring drafts');
  const rows = pairs.map((p, i) => {
    bar.update(i, pairs.length);
    return {
      name: p.name,
      scores: runMetric(() => scoreCorpus([{ hypothesis: p.hypothesis, reference: p.reference }], options)),
    };
  });
  bar.done();
  // --perplexity: each draft's own in its row, pooled in the corpus row (a Perplexity column, as the panel's).
  const ppl =
    flag(a, 'perplexity') === undefined
      ? undefined
      : await perplexityOf(
          a,
          pairs.map((p) => p.hypothesis),
        );
  if (ppl)
    rows.forEach((r, i) => {
      r.scores.perplexity = ppl.drafts[i];
    });
  // BERTScore: each draft's own in its row (one pair each, as Score Drafts in Folder), their mean in the corpus row.
  if (bert) {
    const run = await draftBertScore(pairs, bert.flags, bert.config);
    rows.forEach((r, i) => {
      r.scores.bertscore = { ...run.summary, ...run.pairs[i] };
    });
  }
  const result = folderResult(
    { source: hyp, referenceSource: folders ? ref : `${ref} (${flag(a, 'ref-field') ?? 'text'})` },
    pairs,
    rows,
    options,
    { unpaired: paired.unpaired, cancelled: false, paired: paired.pairs.length, started },
  );
  if (flag(a, 'csv')) process.stdout.write(folderCsv(result));
  else if (flag(a, 'json')) process.stdout.write(folderJson(result));
  else {
    const cols = columnsOf(result);
    const cells = [...rows.map((r) => [r.name, r.scores] as const), ['(corpus)', result.totals] as const].map(
      ([name, sc]) => [
        name,
        ...cols.map((c) => {
          const v = c.value(sc);
          return v === null ? 'n/a' : v.toFixed(c.digits);
        }),
      ],
    );
    const header = ['draft', ...cols.map((c) => c.label)];
    const widths = header.map((h, k) => Math.max(h.length, ...cells.map((r) => r[k].length)));
    const line = (r: string[]) =>
      `| ${r.map((x, k) => (k === 0 ? x.padEnd(widths[k]) : x.padStart(widths[k]))).join(' | ')} |\n`;
    process.stdout.write(line(header));
    process.stdout.write(
      `|${widths.map((w, k) => (k === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|')}|\n`,
    );
    for (const r of cells) process.stdout.write(line(r));
    if (ppl)
      process.stdout.write(
        `Perplexity under the story LM (${ppl.model}), per word, all drafts: ${ppl.perWord.toFixed(1)} (per ` +
          `token ${ppl.perToken.toFixed(1)})\n`,
      );
    for (const [name, signature] of Object.entries(result.signatures))
      process.stdout.write(`${name} signature: ${signature}\n`);
  }
  if (paired.unpaired.length > 0)
    process.stderr.write(`no reference for ${paired.unpaired.length}: ${paired.unpaired.join(', ')}\n`);
  if (flag(a, 'quiet') === undefined)
    process.stderr.write(`scored ${rows.length} drafts in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

/**
 * --report FILE.html|FILE.md: the one-file report of the comparison (engine/eval/report.ts), with
 * the command line as typed (arguments quoted where a shell would need it) and the versions.
 * SOURCE_DATE_EPOCH (the reproducible-builds convention) fixes its one varying line, the date.
 */
async function writeReport(file: string, table: SystemsTable, worst: WorstSegments[], referenceName: string) {
  const format = await checkReportFile(file);
  const quote = (x: string) => (/^[\w@%+=:,./-]+$/.test(x) ? x : `'${x.replace(/'/g, `'\\''`)}'`);
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = (epoch !== undefined && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date()).toISOString();
  // Markdown's charts are SVG files beside it (GitHub shows no data: images): report.md's report.chart-1.svg, ...
  const chartStem = format === 'md' ? path.basename(file).replace(/\.(md|markdown)$/i, '') : undefined;
  const result = { referenceName, table, worst };
  const content = report(
    result,
    {
      command: ['draftsmith', ...process.argv.slice(2)].map(quote).join(' '),
      versions: { Draftsmith: DRAFTSMITH_VERSION, ...REPORT_VERSIONS },
      date,
      chartStem,
    },
    format,
  );
  const files = [
    { name: file, text: content },
    ...(chartStem === undefined ? [] : markdownCharts(result, chartStem)).map((c) => ({
      name: path.join(path.dirname(file), c.name),
      text: c.svg,
    })),
  ];
  for (const f of files)
    await writeFile(f.name, f.text).catch((e: unknown) => {
      throw new EngineError('bad-input', `--report: cannot write ${f.name}: ${errorMessage(e)}`);
    });
  process.stderr.write(`wrote ${file}\n`);
}

/** --report's format, from its name; refused (before anything is scored) when its folder is not there. */
async function checkReportFile(file: string): Promise<'html' | 'md'> {
  const format = /\.html?$/i.test(file) ? 'html' : /\.(md|markdown)$/i.test(file) ? 'md' : undefined;
  if (format === undefined) throw new EngineError('bad-request', `--report writes FILE.html or FILE.md, not "${file}"`);
  const folder = path.dirname(path.resolve(file));
  const isDir = await stat(folder).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new EngineError(
      'bad-request',
      `--report ${file}: there is no folder ${folder} to write it in (create it first)`,
    );
  return format;
}

/** The paired tests' output: sacreBLEU's table (text), its `-f json` list beside ours (JSON), CSV. */
function printSystems(
  a: Args,
  comparisons: MetricComparison[],
  table: SystemsTable,
  width: number,
  worst: WorstSegments[] | undefined,
): void {
  if (flag(a, 'json')) {
    const out = {
      mode: table.test,
      metrics: comparisons,
      // sacreBLEU's own -f json shape for several systems, and the table with its test and signatures.
      table: sacrebleuJson(table),
      systems: table,
      ...(worst ? { worst } : {}),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return;
  }
  if (flag(a, 'csv')) return printComparisons(a, table.test, comparisons, width, undefined);
  process.stdout.write(systemsText(table, width));
  for (const w of worst ?? []) {
    process.stdout.write(
      `\nWorst segments of ${w.system} against the baseline, ${w.metric} (line: baseline → system):\n`,
    );
    for (const d of w.segments)
      process.stdout.write(
        `  line ${d.index + 1}: ${d.baseline.toFixed(width)} → ${d.system.toFixed(width)}  ` +
          `${JSON.stringify(d.hypothesis)}\n`,
      );
  }
}

/** A StatMetric's summed segment statistics: its corpus score's (sacreBLEU's corpus_score). */
function corpusStats(metric: StatMetric, hyps: readonly string[], refs: readonly (readonly string[])[]): number[] {
  let sum: number[] = [];
  hyps.forEach((h, i) => {
    const st = metric.segmentStats(
      h,
      refs.map((stream) => stream[i]),
    );
    sum = st.map((x, k) => x + (sum[k] ?? 0));
  });
  return sum;
}

/** Each picked metric's details (undefined: it has none), per system. */
type Details = (ScoreDetails[] | undefined)[];

/** System names: the file names, made unique when one file is given twice (e.g. two JSONL fields). */
function uniqueNames(files: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return files.map((f) => {
    const k = (seen.get(f) ?? 0) + 1;
    seen.set(f, k);
    return k === 1 ? f : `${f} #${k}`;
  });
}

function printComparisons(
  a: Args,
  mode: string,
  comparisons: MetricComparison[],
  width: number,
  details: Details | undefined,
): void {
  if (flag(a, 'json')) {
    const out = comparisons.map((c, k) => ({
      ...c,
      systems: c.systems.map((s, i) => {
        const d = details?.[k]?.[i];
        return d ? { ...s, ...d.fields } : s;
      }),
    }));
    process.stdout.write(JSON.stringify({ mode, metrics: out }, null, 2) + '\n');
    return;
  }
  if (flag(a, 'csv')) {
    const cell = (x: number | undefined) => (x === undefined ? '' : String(x));
    const lines = ['metric,system,score,mean,ci,p_value,signature'];
    for (const c of comparisons)
      for (const s of c.systems)
        lines.push(
          [c.metric, csvCell(s.name), cell(s.score), cell(s.mean), cell(s.ci), cell(s.pValue), c.signature].join(','),
        );
    process.stdout.write(lines.join('\n') + '\n');
    return;
  }
  const single = comparisons.every((c) => c.systems.length === 1);
  if (single) {
    // One system: sacreBLEU's own lines.
    comparisons.forEach((c, k) => {
      const s = c.systems[0];
      const ci =
        s.mean !== undefined && s.ci !== undefined ? ` (μ = ${s.mean.toFixed(width)} ± ${s.ci.toFixed(width)})` : '';
      process.stdout.write(
        scoreLine(c.metric, c.signature, s.score, width, ci + (details?.[k]?.[0]?.text ?? '')) + '\n',
      );
    });
    return;
  }
  // Several systems: one table per metric, as sacreBLEU's print_results_table; '*' marks p < 0.05.
  for (const c of comparisons) {
    const hasCi = c.systems.some((s) => s.ci !== undefined);
    const hasP = c.systems.some((s) => s.pValue !== undefined);
    const header = ['system', c.metric, ...(hasCi ? ['μ ± 95% CI'] : []), ...(hasP ? ['p-value'] : [])];
    const rows = c.systems.map((s) => [
      s.name,
      s.score.toFixed(width),
      ...(hasCi
        ? [s.mean !== undefined && s.ci !== undefined ? `${s.mean.toFixed(width)} ± ${s.ci.toFixed(width)}` : '']
        : []),
      ...(hasP ? [s.pValue === undefined ? '' : `${s.pValue.toFixed(4)}${s.pValue < 0.05 ? '*' : ''}`] : []),
    ]);
    const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k].length)));
    const line = (cells: string[]) =>
      `| ${cells.map((x, k) => (k === 0 ? x.padEnd(widths[k]) : x.padStart(widths[k]))).join(' | ')} |\n`;
    process.stdout.write(`${c.metric}|${c.signature}\n`);
    process.stdout.write(line(header));
    process.stdout.write(
      `|${widths.map((w, k) => (k === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|')}|\n`,
    );
    for (const r of rows) process.stdout.write(line(r));
    if (hasP) process.stdout.write(`(p-value: the difference from the baseline; * p < 0.05)\n`);
    process.stdout.write('\n');
  }
}
