// Is system B better than system A? Paired significance tests between systems scored on the same
// segments, and bootstrap confidence intervals.
//
// Reference implementation matched: sacreBLEU 2.6.0, sacrebleu/significance.py:
//   - PairedTest: the first system is the baseline; its statistics are computed once;
//   - _paired_bs_test (paired bootstrap resampling, Koehn 2004, as Moses'
//     bootstrap-hypothesis-difference-significance.pl): n resamples of the segment indices, drawn
//     once (numpy default_rng(seed).choice(n_segments, (n, n_segments))) and shared by the baseline
//     and every system; each system's resampled scores give its mean and 95 % interval
//     (estimate_ci: half the spread between the 2.5th and 97.5th percentile, indices n//40 and
//     n − n//40 − 1 of the sorted scores); the p-value compares the observed |difference| with the
//     resampled |differences| centred on their mean (_compute_p_value: (c + 1) / (n + 1), c the
//     number strictly greater);
//   - _paired_ar_test (approximate randomization, as multeval): n trials, in each every segment's
//     outputs swapped between the two systems with probability 1/2 (default_rng(seed).integers(2,
//     (n, n_segments), dtype=bool), one mask shared by every system); the p-value counts the trials
//     whose |score difference| exceeds the observed one. No interval (sacreBLEU's CLI computes none
//     for AR).
// The random draws are NumPy's own (./numpyRandom.ts reproduces default_rng bit for bit), so with
// the same seed (sacreBLEU's default SACREBLEU_SEED=12345) and sample count the resamples are the
// very ones sacreBLEU draws, and the p-values and intervals agree with sacreBLEU's (checked in
// test/unit/significance.test.ts on 1,000 CommonGen pairs). Resampled statistics are summed as
// float32 there: exact for sums below 2^24, as ours. Under NumPy ≥ 2 sacreBLEU's resampled BLEU
// precisions and chrF arithmetic are float32 (NEP 50); `arithmetic: 'numpy2'` (the default)
// reproduces that, 'float64' gives what NumPy 1.x computed.

import {
  bleuFromStats,
  bleuScoreNumpyFloat32,
  flattenBleuStats,
  segmentStats,
  unflattenBleuStats,
  type BleuOptions,
} from './bleu';
import { chrfFromStats, chrfName, chrfScoreNumpyFloat32, chrfSegmentStats, type ChrfOptions } from './chrf';
import { NumpyGenerator } from './numpyRandom';
import { bleuSignature, chrfSignature, terSignature, type TestSignature } from './signature';
import { terFromStats, terScoreNumpyFloat32, terSegmentStats, type TerOptions } from './ter';

/** A metric with additive per-segment statistics (sacreBLEU's Metric with _extract_corpus_statistics). */
export interface StatMetric {
  /** 'BLEU', 'chrF2', 'chrF2++'. */
  name: string;
  /** Statistics of one segment against its references. */
  segmentStats(hyp: string, refs: readonly string[]): number[];
  /** The score (0–100) of summed statistics. */
  score(stats: ArrayLike<number>): number;
  /** The score of a resample as sacreBLEU computes it from float32 statistics under NumPy ≥ 2, and
   * whether NumPy holds it as a float32. */
  scoreFloat32(stats: ArrayLike<number>): { v: number; f: boolean };
  signature(nrefs: number | 'var', test?: TestSignature): string;
  /** Which way is better; absent: higher (TER, an error rate, is lower-is-better). The tests'
   * p-values compare absolute differences, so only the tables read this. */
  better?: 'higher' | 'lower';
  /** Its statistics are not whole numbers (TER's mean reference length over several references):
   * a resample sums them as float32 in order, as sacreBLEU's float32 arrays do (`_s.sum(0)`), which
   * differs from a double sum once a value is not a float32. */
  float32Sums?: boolean;
}

export function bleuMetric(opts: BleuOptions = {}): StatMetric {
  return {
    name: 'BLEU',
    segmentStats: (hyp, refs) => flattenBleuStats(segmentStats(hyp, refs, opts)),
    score: (stats) => bleuFromStats(unflattenBleuStats(stats, (stats.length - 2) / 2), opts).score,
    scoreFloat32: (stats) => ({ v: bleuScoreNumpyFloat32(stats, opts), f: false }),
    signature: (nrefs, test) => bleuSignature(opts, nrefs, test),
  };
}

export function chrfMetric(opts: ChrfOptions = {}): StatMetric {
  return {
    name: chrfName(opts),
    segmentStats: (hyp, refs) => chrfSegmentStats(hyp, refs, opts),
    score: (stats) => chrfFromStats(Array.from(stats), opts),
    scoreFloat32: (stats) => chrfScoreNumpyFloat32(stats, opts),
    signature: (nrefs, test) => chrfSignature(opts, nrefs, test),
  };
}

/** TER (sacrebleu/metrics/ter.py): statistics [fewest edits, mean reference length]. */
export function terMetric(opts: TerOptions = {}): StatMetric {
  return {
    name: 'TER',
    segmentStats: (hyp, refs) => terSegmentStats(hyp, refs, opts),
    score: (stats) => terFromStats(stats).score,
    scoreFloat32: (stats) => terScoreNumpyFloat32(stats),
    signature: (nrefs, test) => terSignature(opts, nrefs, test),
    better: 'lower',
    float32Sums: true,
  };
}

export interface SystemOutputs {
  name: string;
  hyps: readonly string[];
}

export interface SystemResult {
  name: string;
  score: number;
  /** Mean of the bootstrap resamples' scores (paired bootstrap only). */
  mean?: number;
  /** Half-width of the 95 % interval: the score lies in mean ± ci (paired bootstrap only). */
  ci?: number;
  /** p-value of the difference from the baseline (every system but the first). */
  pValue?: number;
}

export interface MetricComparison {
  metric: string;
  signature: string;
  /** The baseline first, then the other systems in the order given. */
  systems: SystemResult[];
}

export interface PairedTestOptions {
  /** Resamples (bootstrap, default 1,000) or trials (approximate randomization, default 10,000). */
  samples?: number;
  /** default_rng's seed; default 12345, sacreBLEU's SACREBLEU_SEED default. */
  seed?: number;
  arithmetic?: 'numpy2' | 'float64';
  /** Called after each system with how many are done (of all metric × system pairs). */
  progress?: (done: number, total: number) => void;
}

export const DEFAULT_SEED = 12345;
export const DEFAULT_BS_SAMPLES = 1000;
export const DEFAULT_AR_SAMPLES = 10000;

/** Per-segment statistics of a system, flattened row-major (segments × width). */
function corpusStats(
  metric: StatMetric,
  hyps: readonly string[],
  refs: readonly (readonly string[])[],
): { flat: Float64Array; width: number } {
  const rows = hyps.map((h, i) =>
    metric.segmentStats(
      h,
      refs.map((stream) => stream[i]),
    ),
  );
  const width = rows[0]?.length ?? 0;
  const flat = new Float64Array(rows.length * width);
  rows.forEach((r, i) => flat.set(r, i * width));
  return { flat, width };
}

function sumRows(flat: Float64Array, width: number): Float64Array {
  const sum = new Float64Array(width);
  for (let i = 0; i < flat.length; i += width) for (let k = 0; k < width; k++) sum[k] += flat[i + k];
  return sum;
}

/** NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum), which
 * ndarray.mean uses on a contiguous array; `f32` rounds every addition as a float32 array does. */
export function numpySum(a: ArrayLike<number>, f32 = false, start = 0, n = a.length): number {
  const r = f32 ? Math.fround : (x: number) => x;
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res = r(res + a[start + i]);
    return res;
  }
  if (n <= 128) {
    const acc = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) acc[j] = r(acc[j] + a[start + i + j]);
    let res = r(r(r(acc[0] + acc[1]) + r(acc[2] + acc[3])) + r(r(acc[4] + acc[5]) + r(acc[6] + acc[7])));
    for (; i < n; i++) res = r(res + a[start + i]);
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return r(numpySum(a, f32, start, n2) + numpySum(a, f32, start + n2, n - n2));
}

const numpyMean = (a: ArrayLike<number>, f32: boolean): number =>
  f32 ? Math.fround(numpySum(a, true) / a.length) : numpySum(a) / a.length;

/** significance.estimate_ci: mean and half-width of the 95 % interval of resampled scores. */
export function estimateCi(scores: ArrayLike<number>, f32 = false): { mean: number; ci: number } {
  const sorted = Float64Array.from(scores).sort();
  const n = sorted.length;
  const lowerIdx = Math.floor(n / 40);
  const upperIdx = n - lowerIdx - 1;
  const half = f32
    ? Math.fround(0.5 * Math.fround(sorted[upperIdx] - sorted[lowerIdx]))
    : 0.5 * (sorted[upperIdx] - sorted[lowerIdx]);
  return { mean: numpyMean(sorted, f32), ci: half };
}

/** significance._compute_p_value: (number of statistics strictly above the observed one + 1) / (n + 1). */
export function pValue(stats: ArrayLike<number>, realDifference: number): number {
  let c = 0;
  for (let i = 0; i < stats.length; i++) if (stats[i] > realDifference) c++;
  return (c + 1) / (stats.length + 1);
}

function checkSystems(systems: readonly SystemOutputs[], refs: readonly (readonly string[])[]): number {
  if (systems.length < 2) throw new RangeError('a paired test needs a baseline and at least one other system');
  if (refs.length === 0) throw new RangeError('a paired test needs references');
  const n = systems[0].hyps.length;
  if (n === 0) throw new RangeError('a paired test needs at least one segment');
  for (const s of systems)
    if (s.hyps.length !== n) throw new RangeError(`${s.name} has ${s.hyps.length} segments, the baseline ${n}`);
  for (const r of refs)
    if (r.length !== n) throw new RangeError(`a reference stream has ${r.length} segments, the systems ${n}`);
  return n;
}

/** Scores of `samples` bootstrap resamples (row s of `idxs` lists the segments of resample s). */
function resampledScores(
  metric: StatMetric,
  flat: Float64Array,
  width: number,
  idxs: Uint32Array,
  n: number,
  samples: number,
  arithmetic: 'numpy2' | 'float64',
): { scores: Float64Array; f32: boolean } {
  const scores = new Float64Array(samples);
  const sum = new Float64Array(width);
  let allF32 = arithmetic === 'numpy2';
  const f32 = metric.float32Sums === true;
  const stats = f32 ? flat.map(Math.fround) : flat;
  for (let s = 0; s < samples; s++) {
    sum.fill(0);
    const row = s * n;
    for (let j = 0; j < n; j++) {
      const base = idxs[row + j] * width;
      if (f32) for (let k = 0; k < width; k++) sum[k] = Math.fround(sum[k] + stats[base + k]);
      else for (let k = 0; k < width; k++) sum[k] += stats[base + k];
    }
    if (arithmetic === 'numpy2') {
      const r = metric.scoreFloat32(sum);
      scores[s] = r.v;
      if (!r.f) allF32 = false;
    } else scores[s] = metric.score(sum);
  }
  return { scores, f32: allF32 };
}

/** A paired test's segments per system, resamples (or trials) and seed, checked. */
function pairedSetup(
  systems: readonly SystemOutputs[],
  refs: readonly (readonly string[])[],
  opts: PairedTestOptions,
  defaultSamples: number,
  what: string,
): { n: number; samples: number; seed: number } {
  const n = checkSystems(systems, refs);
  const samples = opts.samples ?? defaultSamples;
  if (!Number.isInteger(samples) || samples < 1)
    throw new RangeError(`the number of ${what} must be a whole number ≥ 1, not ${samples}`);
  return { n, samples, seed: opts.seed ?? DEFAULT_SEED };
}

/** One system's statistics on a metric: each segment's row, their sum, and the corpus score. */
interface Scored {
  flat: Float64Array;
  width: number;
  sum: Float64Array;
  score: number;
}

function scored(metric: StatMetric, hyps: readonly string[], refs: readonly (readonly string[])[]): Scored {
  const { flat, width } = corpusStats(metric, hyps, refs);
  const sum = sumRows(flat, width);
  return { flat, width, sum, score: metric.score(sum) };
}

interface PairedInputs {
  systems: readonly SystemOutputs[];
  refs: readonly (readonly string[])[];
  metrics: readonly StatMetric[];
  opts: PairedTestOptions;
}

/**
 * What both paired tests do around their own statistics: for each metric, the baseline (the first
 * system) scored, then each other system scored and tested against it; progress after each.
 * `baseline` says what the baseline's row adds and keeps what the test reuses for every system.
 */
function pairedWalk<B>(
  { systems, refs, metrics, opts }: PairedInputs,
  test: TestSignature,
  tester: {
    baseline: (metric: StatMetric, bl: Scored) => { shown: Partial<SystemResult>; kept: B };
    against: (metric: StatMetric, bl: Scored, sys: Scored, kept: B) => Partial<SystemResult>;
  },
): MetricComparison[] {
  const total = metrics.length * systems.length;
  let done = 0;
  return metrics.map((metric) => {
    const bl = scored(metric, systems[0].hyps, refs);
    const { shown, kept } = tester.baseline(metric, bl);
    const results: SystemResult[] = [{ name: systems[0].name, score: bl.score, ...shown }];
    opts.progress?.(++done, total);
    for (const system of systems.slice(1)) {
      const sys = scored(metric, system.hyps, refs);
      results.push({ name: system.name, score: sys.score, ...tester.against(metric, bl, sys, kept) });
      opts.progress?.(++done, total);
    }
    return { metric: metric.name, signature: metric.signature(refs.length, test), systems: results };
  });
}

/** A paired test: each metric on each system (the baseline first) against the same references. */
export type PairedTest = (
  systems: readonly SystemOutputs[],
  refs: readonly (readonly string[])[],
  metrics: readonly StatMetric[],
  opts?: PairedTestOptions,
) => MetricComparison[];

/** sacreBLEU's `--paired-bs`: paired bootstrap resampling against the first system. */
export const pairedBootstrap: PairedTest = (systems, refs, metrics, opts = {}) => {
  const { n, samples, seed } = pairedSetup(systems, refs, opts, DEFAULT_BS_SAMPLES, 'bootstrap resamples');
  const arithmetic = opts.arithmetic ?? 'numpy2';
  const idxs = new NumpyGenerator(seed).integers(n, samples * n);
  const resampled = (metric: StatMetric, st: Scored) =>
    resampledScores(metric, st.flat, st.width, idxs, n, samples, arithmetic);
  return pairedWalk(
    { systems, refs, metrics, opts },
    { bs: samples, seed },
    {
      baseline(metric, bl) {
        const blSamples = resampled(metric, bl);
        return { shown: estimateCi(blSamples.scores, blSamples.f32), kept: blSamples };
      },
      against(metric, bl, st, blSamples) {
        const sys = resampled(metric, st);
        const f32 = sys.f32 && blSamples.f32;
        const r = f32 ? Math.fround : (x: number) => x;
        const diffs = new Float64Array(samples);
        for (let s = 0; s < samples; s++) diffs[s] = Math.abs(r(sys.scores[s] - blSamples.scores[s]));
        const mean = numpyMean(diffs, f32);
        const centred = diffs.map((d) => r(d - mean));
        // A float32 array compared with a Python float: the float becomes float32 (NEP 50).
        const p = pValue(centred, r(Math.abs(bl.score - st.score)));
        return { ...estimateCi(sys.scores, sys.f32), pValue: p };
      },
    },
  );
};

/** sacreBLEU's `--paired-ar`: approximate randomization against the first system. */
export const pairedApproximateRandomization: PairedTest = (systems, refs, metrics, opts = {}) => {
  const { n, samples, seed } = pairedSetup(systems, refs, opts, DEFAULT_AR_SAMPLES, 'randomization trials');
  const swap = new NumpyGenerator(seed).booleans(samples * n);
  return pairedWalk(
    { systems, refs, metrics, opts },
    { ar: samples, seed },
    {
      baseline: () => ({ shown: {}, kept: undefined }),
      against(metric, bl, st) {
        const width = bl.width;
        const diff = Math.abs(bl.score - st.score);
        // Pseudo-system a takes the baseline's segment where the mask is set, the system's elsewhere;
        // b the opposite: a = Σsys + Σ_mask (bl − sys), b = Σbl − Σ_mask (bl − sys). Integer sums: exact.
        const delta = new Float64Array(bl.flat.length);
        for (let i = 0; i < delta.length; i++) delta[i] = bl.flat[i] - st.flat[i];
        const stats = new Float64Array(samples);
        const moved = new Float64Array(width);
        const a = new Float64Array(width);
        const b = new Float64Array(width);
        for (let t = 0; t < samples; t++) {
          moved.fill(0);
          const row = t * n;
          for (let j = 0; j < n; j++) {
            if (!swap[row + j]) continue;
            const base = j * width;
            for (let k = 0; k < width; k++) moved[k] += delta[base + k];
          }
          for (let k = 0; k < width; k++) {
            a[k] = st.sum[k] + moved[k];
            b[k] = bl.sum[k] - moved[k];
          }
          stats[t] = Math.abs(metric.score(a) - metric.score(b));
        }
        return { pValue: pValue(stats, diff) };
      },
    },
  );
};

/** Python's statistics.mean: the exactly rounded mean (Shewchuk's exact partial sums, as math.fsum;
 * the final division can differ from statistics.mean's exact Fraction by at most one unit in the
 * last place). */
export function exactMean(xs: ArrayLike<number>): number {
  const partials: number[] = [];
  for (let i = 0; i < xs.length; i++) {
    let x = xs[i];
    let j = 0;
    for (const p of partials) {
      let y = p;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[j++] = lo;
      x = hi;
    }
    partials.length = j;
    partials.push(x);
  }
  let sum = 0;
  for (let k = partials.length - 1; k >= 0; k--) sum += partials[k];
  return sum / xs.length;
}

/** sacreBLEU's `--confidence` for one system (Metric.corpus_score with n_bootstrap, then
 * Score.estimate_ci in sacrebleu/metrics/base.py: the same percentiles, the mean by
 * statistics.mean): its score with the bootstrap mean and 95 % interval. */
export function bootstrapConfidence(
  hyps: readonly string[],
  refs: readonly (readonly string[])[],
  metric: StatMetric,
  opts: PairedTestOptions = {},
): SystemResult & { signature: string } {
  const n = hyps.length;
  if (n === 0) throw new RangeError('a confidence interval needs at least one segment');
  const samples = opts.samples ?? DEFAULT_BS_SAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const st = corpusStats(metric, hyps, refs);
  const idxs = new NumpyGenerator(seed).integers(n, samples * n);
  const res = resampledScores(metric, st.flat, st.width, idxs, n, samples, opts.arithmetic ?? 'numpy2');
  const { ci } = estimateCi(res.scores, res.f32);
  const mean = res.f32 ? Math.fround(exactMean(res.scores)) : exactMean(res.scores);
  return {
    name: 'system',
    score: metric.score(sumRows(st.flat, st.width)),
    mean,
    ci,
    signature: metric.signature(refs.length, { bs: samples, seed }),
  };
}
