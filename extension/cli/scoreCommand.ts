/**
 * `draftsmith score --ref REF [--ref REF2 ...] --hyp HYP [--hyp HYP2 ...] [options]`
 *
 * With one --ref, one --hyp and no -m: every metric of the metrics module over the pairs, the same
 * function Score Draft uses (scoreCorpus), with the BLEU and ROUGE signatures.
 * With -m (bleu, chrf), several references or systems, --sentence-level, --confidence or a paired
 * test: sacreBLEU's workflow with sacreBLEU's flag names (sacrebleu/sacrebleu.py's argument parser):
 *   -m bleu chrf, --tokenize, --smooth-method, --smooth-value, --max-ngram-order, --lowercase,
 *   --effective-order (sacreBLEU's API option; its CLI turns it on for --sentence-level only),
 *   --chrf-char-order, --chrf-word-order (2: chrF++), --chrf-beta, --chrf-whitespace, --chrf-lowercase,
 *   --chrf-eps-smoothing, --sentence-level, --confidence [--confidence-n N],
 *   --paired-bs [--paired-bs-n N] | --paired-ar [--paired-ar-n N], --seed N (sacreBLEU: SACREBLEU_SEED), --width N.
 * ROUGE in the same workflow: -m rouge1 rouge2 rougeL rougeLsum (or rouge for all four; F1, mean over
 *   segments), --stem, --rouge-jackknife (ROUGE-1.5.5's jackknifing over several references instead
 *   of rouge-score's best reference), --rouge-split newline|nlp (ROUGE-Lsum's sentences).
 */
import type { CorpusScores, EngineConfig } from '../protocol';
import { stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { version as DRAFTSMITH_VERSION } from '../../package.json';
import { markdownCharts, report } from '../engine/eval/report';
import { REPORT_VERSIONS } from '../engine/metrics/signature';
import { folderResult, pairFolders, pairJsonl } from '../engine/eval/folderScores';
import { columnsOf, folderCsv, folderJson } from '../engine/eval/folderTable';
import { formatValue, shownMetrics, signaturesOf } from '../engine/eval/metricList';
import { bleuOptionsOf, smoothValueApplies, type MetricOptions } from '../engine/eval/scoreOptions';
import { EngineError, errorMessage } from '../engine/errors';
import { scoreCorpus } from '../engine/eval/scoreDraft';
import {
  BLEU_SMOOTHINGS,
  BLEU_TOKENIZERS,
  corpusBleu,
  sentenceBleu,
  type BleuOptions,
  type BleuScore,
  type BleuSmoothing,
  type BleuTokenizer,
} from '../engine/metrics/bleu';
import { corpusChrf, sentenceChrf, type ChrfOptions } from '../engine/metrics/chrf';
import { corpusTer, type TerOptions } from '../engine/metrics/ter';
import { bleuSignature, chrfSignature } from '../engine/metrics/signature';
import {
  bleuMetric,
  bootstrapConfidence,
  chrfMetric,
  DEFAULT_AR_SAMPLES,
  DEFAULT_BS_SAMPLES,
  DEFAULT_SEED,
  pairedApproximateRandomization,
  pairedBootstrap,
  terMetric,
  type MetricComparison,
  type StatMetric,
} from '../engine/metrics/significance';
import { flag, intFlag, numberFlag, type Args } from './args';
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
import { rougeMetrics, rougeTypesOf, type RougeMetricOptions } from '../engine/metrics/rougeMetric';
import type { RougeType } from '../engine/metrics/rouge';

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

function oneOf<T extends string>(a: Args, name: string, allowed: readonly T[]): T | undefined {
  const v = flag(a, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new EngineError(
      'bad-request',
      `--${name} must be one of ${allowed.join(', ')}, not "${v}"` +
        (name === 'tokenize' ? " (sacreBLEU's ja-mecab, ko-mecab and spm tokenizers are not available here)" : ''),
    );
  }
  return v as T;
}

function positiveInt(a: Args, name: string, min = 1): number | undefined {
  const n = intFlag(a, name);
  if (n !== undefined && n < min)
    throw new EngineError('bad-request', `--${name} must be a whole number ≥ ${min}, not ${n}`);
  return n;
}

/** The options of O that are switches (true when given). */
type Switches<O> = { [K in keyof O]-?: NonNullable<O[K]> extends boolean ? K : never }[keyof O];
/** The options of O that are whole numbers. */
type Counts<O> = { [K in keyof O]-?: NonNullable<O[K]> extends number ? K : never }[keyof O];

/** Reads flags into options: each switch given is set to true, each count given (≥ min) is set. */
function readFlags<O extends object>(
  a: Args,
  opts: O,
  switches: Partial<Record<Switches<O>, string>>,
  counts: Partial<Record<Counts<O>, string>> = {},
  min = 1,
): O {
  const set = (key: keyof O, value: unknown) => Object.assign(opts, { [key]: value });
  for (const [key, name] of Object.entries(counts) as [keyof O, string][]) {
    const n = positiveInt(a, name, min);
    if (n !== undefined) set(key, n);
  }
  for (const [key, name] of Object.entries(switches) as [keyof O, string][])
    if (flag(a, name) !== undefined) set(key, true);
  return opts;
}

/**
 * The flags every mode shares, as Score Draft's options: BLEU's (sacreBLEU's flag names), --stem and
 * --nonwords. bleuOptionsOf (eval/scoreOptions.ts) turns them into BLEU's own, as for the editor.
 */
export function scoreOptionsOf(a: Args): MetricOptions {
  const opts: MetricOptions = {};
  const tokenize = oneOf<BleuTokenizer>(a, 'tokenize', BLEU_TOKENIZERS);
  if (tokenize !== undefined) opts.tokenize = tokenize;
  const smooth = oneOf<BleuSmoothing>(a, 'smooth-method', BLEU_SMOOTHINGS);
  if (smooth !== undefined) opts.smoothMethod = smooth;
  const smoothValue = numberFlag(a, 'smooth-value');
  if (smoothValue !== undefined) {
    if (!(smoothValue >= 0))
      throw new EngineError('bad-request', `--smooth-value must be 0 or more, not ${smoothValue}`);
    opts.smoothValue = smoothValue;
    // sacreBLEU takes the value and ignores it; saying so spares a user wondering why nothing changed.
    if (!smoothValueApplies(opts))
      process.stderr.write(
        `note: --smooth-value applies to --smooth-method floor or add-k; ${smooth ?? 'exp'} ignores it, as ` +
          `sacreBLEU does\n`,
      );
  }
  return readFlags(
    a,
    opts,
    { lowercase: 'lowercase', effectiveOrder: 'effective-order', stem: 'stem', nonwords: 'nonwords' },
    { maxNgramOrder: 'max-ngram-order' },
  );
}

/** sacreBLEU's chrF flags (-m chrf): every chrF option, where Score Draft's settings choose chrF or chrF++. */
export function chrfFlags(a: Args): ChrfOptions {
  const opts = readFlags<ChrfOptions>(
    a,
    {},
    { whitespace: 'chrf-whitespace', lowercase: 'chrf-lowercase', epsSmoothing: 'chrf-eps-smoothing' },
    { charOrder: 'chrf-char-order', wordOrder: 'chrf-word-order', beta: 'chrf-beta' },
    0,
  );
  if ((opts.charOrder ?? 6) + (opts.wordOrder ?? 0) === 0)
    throw new EngineError('bad-request', '--chrf-char-order and --chrf-word-order cannot both be 0');
  return opts;
}

/** sacreBLEU's TER flags (-m ter). */
export function terFlags(a: Args): TerOptions {
  return readFlags<TerOptions>(
    a,
    {},
    {
      caseSensitive: 'ter-case-sensitive',
      normalized: 'ter-normalized',
      noPunct: 'ter-no-punct',
      asianSupport: 'ter-asian-support',
    },
  );
}

const METRIC_NAMES = ['bleu', 'chrf', 'ter', 'rouge', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'bertscore'] as const;
type MetricName = 'bleu' | 'chrf' | 'ter' | 'bertscore' | RougeType;
/** The metrics of sacreBLEU's workflow (-m bertscore has its own, scoreBertOnly). */
type SacreMetric = Exclude<MetricName, 'bertscore'>;
/** sacreBLEU's own metrics, which need the same number of references for every segment. */
const isSacreMetric = (m: MetricName) => m === 'bleu' || m === 'chrf' || m === 'ter';

function metricsOf(a: Args): MetricName[] | undefined {
  const values = a.flags.get('metrics');
  if (values === undefined) return undefined;
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  const out: MetricName[] = [];
  for (const n of names) {
    const lower = n.toLowerCase();
    if (lower === 'bleu' || lower === 'chrf' || lower === 'ter' || lower === 'bertscore') out.push(lower);
    else if (rougeTypesOf(n) !== undefined) out.push(...(rougeTypesOf(n) ?? []));
    else {
      throw new EngineError(
        'bad-request',
        `-m/--metrics takes ${METRIC_NAMES.join(', ')} (sacreBLEU's names and rouge-score's; chrF++ is chrf ` +
          `with --chrf-word-order 2; rouge is all four ROUGE types), not "${n}"`,
      );
    }
  }
  return [...new Set(out)];
}

export async function scoreCommand(a: Args, configOf?: ConfigOf): Promise<void> {
  const refs = a.flags.get('ref') ?? [];
  const hyps = a.flags.get('hyp') ?? [];
  if (refs.length === 0 || hyps.length === 0)
    throw new EngineError(
      'bad-request',
      'score needs --ref FILE and --hyp FILE (each may be given several times: references of the same ' +
        'segments, systems to compare)',
    );
  const options = scoreOptionsOf(a);
  const chrfOpts = chrfFlags(a);
  const terOpts = terFlags(a);
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
    // A folder (or a JSONL's named rows) is Score Drafts in Folder's table; -m chooses its chrF column.
    if (refs.length > 1 || hyps.length > 1 || pairedBs || pairedAr || sentenceLevel || confidence) {
      throw new EngineError(
        'bad-request',
        'a folder of drafts is scored as one table (one --hyp folder, one --ref folder); several systems, ' +
          'several references and the paired tests take segment files, one line per segment',
      );
    }
    return scoreFolderCli(a, options, configOf);
  }
  if (metrics?.includes('bertscore')) return scoreBertOnly(a, metrics, configOf);
  if (sacre) {
    for (const f of ['nonwords', 'perplexity', 'bertscore-model']) {
      if (flag(a, f) !== undefined)
        throw new EngineError(
          'bad-request',
          `--${f} applies to the full table (one --ref, one --hyp, no -m) or a folder's, not to -m, several ` +
            `systems or references, or the paired tests`,
        );
    }
  }
  if (!sacre) {
    for (const f of ['rouge-jackknife', 'rouge-split']) {
      if (flag(a, f) !== undefined)
        throw new EngineError('bad-request', `--${f} applies to ROUGE with -m (e.g. -m rouge), not to the full table`);
    }
    return scoreEverything(a, options, configOf);
  }
  return scoreSacre(a, {
    refs,
    hyps,
    metrics: (metrics ?? ['bleu']).filter((m): m is SacreMetric => m !== 'bertscore'),
    bleuOpts: bleuOptionsOf(options),
    chrfOpts,
    terOpts,
    pairedBs,
    pairedAr,
    sentenceLevel,
    confidence,
  });
}

/**
 * -m bertscore: BERTScore alone, over one --ref and one --hyp (one segment per line), in sacreBLEU's
 * score line: `BERTScore|signature = F1 (P = …, R = …)`, or --json. The encoder is --bertscore-model's.
 */
async function scoreBertOnly(a: Args, metrics: readonly MetricName[], configOf?: ConfigOf): Promise<void> {
  if (metrics.length > 1)
    throw new EngineError(
      'bad-request',
      `-m bertscore is scored on its own (the full table adds it to every metric: --bertscore-model without ` +
        `-m), not with ${metrics.filter((m) => m !== 'bertscore').join(', ')}`,
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
  metrics: SacreMetric[];
  bleuOpts: BleuOptions;
  chrfOpts: ChrfOptions;
  terOpts: TerOptions;
  pairedBs: boolean;
  pairedAr: boolean;
  sentenceLevel: boolean;
  confidence: boolean;
}

/** sacreBLEU's score line: `NAME|signature = score[ (μ = mean ± ci)][ verbose]` (Score.format). */
function scoreLine(name: string, signature: string, score: number, width: number, extra = ''): string {
  return `${name}|${signature} = ${score.toFixed(width)}${extra}`;
}

/** BLEUScore's verbose part: precisions, BP, ratio and lengths (sacrebleu/metrics/bleu.py). */
function bleuVerbose(b: BleuScore): string {
  return (
    ` ${b.precisions.map((p) => p.toFixed(1)).join('/')} (BP = ${b.brevityPenalty.toFixed(3)} ratio = ` +
    `${b.ratio.toFixed(3)} hyp_len = ${b.hypLength} ref_len = ${b.refLength})`
  );
}

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
  if (sentenceLevel && run.metrics.length > 1)
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
  if (varying && run.metrics.some(isSacreMetric)) {
    throw new EngineError(
      'bad-input',
      `segments have different numbers of references in ${run.refs.join(', ')}; BLEU, chrF and TER here need ` +
        `the same number for every segment (ROUGE takes any)`,
    );
  }
  const rougeOpts: RougeMetricOptions = {
    stem: flag(a, 'stem') !== undefined,
    jackknife: flag(a, 'rouge-jackknife') !== undefined,
    // One default with the full table and Score Draft: ROUGE-Lsum the same number in every table.
    split: oneOf(a, 'rouge-split', ['newline', 'nlp'] as const) ?? 'nlp',
    varRefs: varying,
  };
  if (rougeOpts.jackknife && !run.metrics.some((m) => m.startsWith('rouge')))
    throw new EngineError(
      'bad-request',
      '--rouge-jackknife applies to ROUGE: add -m rouge (or rouge1, rouge2, rougeL, rougeLsum)',
    );
  const names = uniqueNames(run.hyps);
  const named = systems.map((s, i) => ({ name: names[i], hyps: s.hyps.slice(0, take) }));
  const nrefs = refsCut.length;
  const started = performance.now();
  const rougeTypes = run.metrics.filter((m): m is RougeType => !isSacreMetric(m));
  const rouge = rougeMetrics(rougeTypes, rougeOpts);
  const statMetrics: StatMetric[] = run.metrics.map((m) =>
    m === 'bleu'
      ? bleuMetric(run.bleuOpts)
      : m === 'chrf'
        ? chrfMetric(run.chrfOpts)
        : m === 'ter'
          ? terMetric(run.terOpts)
          : rouge[rougeTypes.indexOf(m)],
  );
  const quiet = flag(a, 'quiet') !== undefined;

  if (sentenceLevel) {
    const m = run.metrics[0];
    // sacreBLEU: args.bleu_effective_order = True
    const bleuOpts: BleuOptions = { ...run.bleuOpts, effectiveOrder: true };
    const signature = m === 'bleu' ? bleuSignature(bleuOpts, nrefs) : statMetrics[0].signature(nrefs);
    const name = statMetrics[0].name;
    const rows = named[0].hyps.map((h, i) => {
      const rs = refsCut.map((r) => r[i]);
      if (m === 'bleu') {
        const b = runMetric(() => sentenceBleu(h, rs, bleuOpts));
        return { score: b.score, line: scoreLine(name, signature, b.score, width, bleuVerbose(b)) };
      }
      if (m !== 'chrf') {
        const r = statMetrics[0].score(statMetrics[0].segmentStats(h, rs));
        return { score: r, line: scoreLine(name, signature, r, width) };
      }
      const c = runMetric(() => sentenceChrf(h, rs, run.chrfOpts));
      return { score: c.score, line: scoreLine(name, signature, c.score, width) };
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
    comparisons = statMetrics.map((metric, k) => {
      if (confidence) {
        const r = runMetric(() => bootstrapConfidence(named[0].hyps, refsCut, metric, { samples: confidenceN, seed }));
        return { metric: metric.name, signature: r.signature, systems: [{ ...r, name: named[0].name }] };
      }
      const m = run.metrics[k];
      return {
        metric: metric.name,
        signature:
          m === 'bleu'
            ? bleuSignature(run.bleuOpts, nrefs)
            : m === 'chrf'
              ? chrfSignature(run.chrfOpts, nrefs)
              : metric.signature(nrefs),
        systems: named.map((s) => ({
          name: s.name,
          score: runMetric(() =>
            m === 'bleu'
              ? corpusBleu(s.hyps, refsCut, run.bleuOpts).score
              : m === 'chrf'
                ? corpusChrf(s.hyps, refsCut, run.chrfOpts).score
                : m === 'ter'
                  ? corpusTer(s.hyps, refsCut, run.terOpts).score
                  : corpusStatScore(metric, s.hyps, refsCut),
          ),
        })),
      };
    });
  }
  const details =
    run.metrics.includes('bleu') && !paired
      ? named.map((s) => runMetric(() => corpusBleu(s.hyps, refsCut, run.bleuOpts)))
      : undefined;
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
        : worstOf(named, refsCut, statMetrics, run, worstN ?? 5);
    printSystems(a, comparisons, table, width, worstN === undefined ? undefined : worst);
    if (reportFile !== undefined) await writeReport(reportFile, table, worst ?? [], run.refs.join(', '));
  } else printComparisons(a, mode, comparisons, width, details);
  if (!quiet)
    process.stderr.write(
      `scored ${named.length} system${named.length > 1 ? 's' : ''} × ${take} segments × ${nrefs} ` +
        `reference${nrefs > 1 ? 's' : ''} in ${seconds.toFixed(1)} s\n`,
    );
}

/**
 * A folder's chrF column: `-m chrf` adds chrF, with `--chrf-word-order 2` chrF++ (sacreBLEU's other
 * defaults, as Score Draft's draftsmith.score.chrf); other -m names are columns the table always has.
 */
function folderChrf(a: Args): Pick<MetricOptions, 'chrf'> {
  if (!(metricsOf(a) ?? []).includes('chrf')) return {};
  const { wordOrder, ...others } = chrfFlags(a);
  if (Object.keys(others).length > 0 || (wordOrder !== undefined && wordOrder !== 0 && wordOrder !== 2)) {
    throw new EngineError(
      'bad-request',
      "a folder's table takes chrF (-m chrf) or chrF++ (-m chrf --chrf-word-order 2) with sacreBLEU's other " +
        'defaults; for other chrF options, score segment files with -m chrf',
    );
  }
  return { chrf: wordOrder === 2 ? 'chrF++' : 'chrF' };
}

/** A folder's TER column: `-m ter`, with the --ter-* flags (Score Draft's draftsmith.score.ter settings). */
function folderTer(a: Args): Pick<MetricOptions, 'ter'> {
  if (!(metricsOf(a) ?? []).includes('ter')) return {};
  return { ter: terFlags(a) };
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
  const options: MetricOptions = { ...scoreOptions, ...folderChrf(a), ...folderTer(a) };
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

/** --worst N: BLEU per segment is sacreBLEU's --sentence-level BLEU (effective order on). */
function worstOf(
  systems: readonly { name: string; hyps: readonly string[] }[],
  refs: readonly (readonly string[])[],
  metrics: readonly StatMetric[],
  run: SacreRun,
  n: number,
): WorstSegments[] {
  const perSegment = metrics.map((m, k) =>
    run.metrics[k] === 'bleu' ? bleuMetric({ ...run.bleuOpts, effectiveOrder: true }) : m,
  );
  return worstSegments(systems, refs, metrics, perSegment, n);
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

/** A StatMetric's corpus score: its summed segment statistics. */
function corpusStatScore(metric: StatMetric, hyps: readonly string[], refs: readonly (readonly string[])[]): number {
  let sum: number[] = [];
  hyps.forEach((h, i) => {
    const st = metric.segmentStats(
      h,
      refs.map((stream) => stream[i]),
    );
    sum = st.map((x, k) => x + (sum[k] ?? 0));
  });
  return metric.score(sum);
}

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
  details: BleuScore[] | undefined,
): void {
  if (flag(a, 'json')) {
    const out = comparisons.map((c) => ({
      ...c,
      systems: c.systems.map((s, i) =>
        c.metric === 'BLEU' && details
          ? {
              ...s,
              precisions: details[i].precisions,
              brevityPenalty: details[i].brevityPenalty,
              ratio: details[i].ratio,
              hypLength: details[i].hypLength,
              refLength: details[i].refLength,
            }
          : s,
      ),
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
    for (const c of comparisons) {
      const s = c.systems[0];
      const ci =
        s.mean !== undefined && s.ci !== undefined ? ` (μ = ${s.mean.toFixed(width)} ± ${s.ci.toFixed(width)})` : '';
      process.stdout.write(
        scoreLine(
          c.metric,
          c.signature,
          s.score,
          width,
          ci + (c.metric === 'BLEU' && details ? bleuVerbose(details[0]) : ''),
        ) + '\n',
      );
    }
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
