/**
 * Compare Drafts against a Baseline: several drafts of the same segments, each against the first,
 * by sacreBLEU's paired bootstrap (or approximate randomization), with Score Draft's metrics (BLEU,
 * chrF and TER when asked for, ROUGE-1 and ROUGE-L: eval/metricList.ts sentenceMetrics), so the
 * numbers are those `draftsmith score --ref R --hyp BASE --hyp … -m bleu rouge1 rougeL --paired-bs`
 * prints for the same lines; and the drill-down: each system's worst segments against the baseline.
 */
import type { SystemsRequest, SystemsResult } from '../../protocol';
import { EngineError } from '../errors';
import {
  bleuMetric,
  DEFAULT_AR_SAMPLES,
  DEFAULT_BS_SAMPLES,
  DEFAULT_SEED,
  pairedApproximateRandomization,
  pairedBootstrap,
} from '../metrics/significance';
import { sentenceMetrics } from './metricList';
import { bleuOptionsOf } from './scoreOptions';
import { systemsTable, worstSegments } from './systemsTable';

export const DEFAULT_WORST = 10;

export function compareSystems(req: SystemsRequest, hooks: { checkCancelled?: () => void } = {}): SystemsResult {
  const started = performance.now();
  const n = req.systems[0].segments.length;
  const counts = [
    ...req.systems.map((s) => `${s.name}: ${s.segments.length}`),
    ...req.references.map(
      (r, k) => `${req.referenceName}${req.references.length > 1 ? ` #${k + 1}` : ''}: ${r.length}`,
    ),
  ];
  if (req.systems.some((s) => s.segments.length !== n) || req.references.some((r) => r.length !== n))
    throw new EngineError(
      'bad-input',
      `The drafts and the reference must have the same number of segments (one per line, or one file each), ` +
        `but have: ${counts.join('; ')}.`,
    );
  if (n === 0) throw new EngineError('bad-input', 'The drafts have no segments to compare.');
  const options = req.options ?? {};
  const metrics = sentenceMetrics(options);
  const test = req.test ?? 'paired-bs';
  const samples = req.samples ?? (test === 'paired-bs' ? DEFAULT_BS_SAMPLES : DEFAULT_AR_SAMPLES);
  const seed = req.seed ?? DEFAULT_SEED;
  const systems = req.systems.map((s, i) => ({ name: i === 0 ? `Baseline: ${s.name}` : s.name, hyps: s.segments }));
  const run = test === 'paired-bs' ? pairedBootstrap : pairedApproximateRandomization;
  const comparisons = run(systems, req.references, metrics, {
    samples,
    seed,
    progress: () => hooks.checkCancelled?.(),
  });
  hooks.checkCancelled?.();
  const table = systemsTable(comparisons, metrics, {
    test,
    samples,
    seed,
    segments: n,
    nrefs: req.references.length,
  });
  // Per segment, BLEU is sacreBLEU's sentence BLEU (effective order), as --sentence-level prints it.
  const perSegment = metrics.map((m) =>
    m.name === 'BLEU' ? bleuMetric({ ...bleuOptionsOf(options), effectiveOrder: true }) : m,
  );
  const worst = worstSegments(systems, req.references, metrics, perSegment, req.worst ?? DEFAULT_WORST);
  return {
    op: 'systems',
    referenceName: req.referenceName,
    table,
    worst,
    elapsedMs: performance.now() - started,
  };
}
