/**
 * Several systems against one baseline, as sacreBLEU's multi-system paired test reports them
 * (sacrebleu/utils.py print_results_table): one row per system, the baseline first, and per metric
 * the system's score, its bootstrap mean ± the half-width of the 95 % interval, and the p-value of
 * its difference from the baseline. One table shape for the CLI's text and JSON, the insights panel
 * and the report; the drill-down (each segment's score, sorted by the largest drop against the
 * baseline) beside it.
 *
 * Pure: no Node API; the panel's page and the report read these shapes.
 */
import type { MetricComparison, StatMetric, SystemOutputs } from '../metrics/significance';

export interface SystemsCell {
  score: number;
  mean?: number;
  ci?: number;
  /** Absent for the baseline. */
  pValue?: number;
}

export interface SystemsTable {
  test: 'paired-bs' | 'paired-ar';
  /** Resamples (bootstrap) or trials (approximate randomization). */
  samples: number;
  seed: number;
  segments: number;
  nrefs: number;
  /** The metrics in column order, with their signatures and which way is better. */
  metrics: { name: string; signature: string; better: 'higher' | 'lower' }[];
  /** The baseline first; cells in the metrics' order. */
  systems: { name: string; baseline: boolean; cells: SystemsCell[] }[];
}

/** The comparisons of pairedBootstrap / pairedApproximateRandomization as one table. */
export function systemsTable(
  comparisons: readonly MetricComparison[],
  metrics: readonly StatMetric[],
  run: { test: SystemsTable['test']; samples: number; seed: number; segments: number; nrefs: number },
): SystemsTable {
  const names = comparisons[0]?.systems.map((s) => s.name) ?? [];
  return {
    ...run,
    metrics: comparisons.map((c, k) => ({
      name: c.metric,
      signature: c.signature,
      better: metrics[k]?.better ?? 'higher',
    })),
    systems: names.map((name, i) => ({
      name,
      baseline: i === 0,
      cells: comparisons.map((c) => {
        const s = c.systems[i];
        return {
          score: s.score,
          ...(s.mean !== undefined ? { mean: s.mean } : {}),
          ...(s.ci !== undefined ? { ci: s.ci } : {}),
          ...(s.pValue !== undefined ? { pValue: s.pValue } : {}),
        };
      }),
    })),
  };
}

/**
 * sacreBLEU's `-f json` for several systems (print_results_table): a list of
 * `{system, <metric>: {score, p_value, mean, ci}}`, nulls where a value is not computed.
 */
export function sacrebleuJson(
  t: SystemsTable,
): ({ system: string } & Record<
  string,
  { score: number; p_value: number | null; mean: number | null; ci: number | null } | string
>)[] {
  return t.systems.map((s) => {
    const row: { system: string } & Record<string, unknown> = { system: s.name };
    t.metrics.forEach((m, k) => {
      const c = s.cells[k];
      row[m.name] = { score: c.score, p_value: c.pValue ?? null, mean: c.mean ?? null, ci: c.ci ?? null };
    });
    return row as { system: string } & Record<
      string,
      { score: number; p_value: number | null; mean: number | null; ci: number | null }
    >;
  });
}

/** A cell as sacreBLEU writes it (utils._format_score_lines): `27.3 (27.1 ± 0.9)`, then `(p = 0.0010)*`. */
export function cellLines(c: SystemsCell, width: number): [string, string] {
  const score = c.score.toFixed(width);
  const ci = c.mean !== undefined && c.ci !== undefined ? ` (${c.mean.toFixed(width)} ± ${c.ci.toFixed(width)})` : '';
  const p = c.pValue === undefined ? '' : `(p = ${c.pValue.toFixed(4)})${c.pValue < 0.05 ? '*' : ''}`;
  return [score + ci, p];
}

/** The column header sacreBLEU gives a metric: `BLEU (μ ± 95% CI)` for the bootstrap, else its name. */
export const metricHeader = (t: SystemsTable, k: number): string =>
  t.test === 'paired-bs' ? `${t.metrics[k].name} (μ ± 95% CI)` : t.metrics[k].name;

/**
 * The table as text: sacreBLEU's layout (a row per system, the p-value on a second line under each
 * score) drawn as a Markdown table, then the test and the signatures, as sacreBLEU prints them.
 */
export function systemsText(t: SystemsTable, width: number): string {
  const header = ['System', ...t.metrics.map((_, k) => metricHeader(t, k))];
  const rows: string[][] = [];
  for (const s of t.systems) {
    const cells = s.cells.map((c) => cellLines(c, width));
    rows.push([s.name, ...cells.map((c) => c[0])]);
    if (cells.some((c) => c[1] !== '')) rows.push(['', ...cells.map((c) => c[1])]);
  }
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((x, k) => (k === 0 ? x.padStart(widths[k]) : x.padStart(widths[k]))).join(' | ')} |\n`;
  const lower = t.metrics.filter((m) => m.better === 'lower').map((m) => m.name);
  const what =
    t.test === 'paired-bs'
      ? `Paired bootstrap resampling test with ${t.samples} resampling trials`
      : `Paired approximate randomization test with ${t.samples} trials`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 1) + ':').join('|')}|\n`,
    ...rows.map(line),
    '\n',
    `${what} (seed ${t.seed}, ${t.segments} segments): each system against ${t.systems[0]?.name ?? 'the baseline'}; `,
    `p-value: the chance of an absolute difference at least this large if both came from the same process (* p ` +
      `< 0.05).`,
    lower.length > 0 ? ` Lower is better for ${lower.join(', ')}.` : '',
    '\n\nMetric signatures\n',
    ...t.metrics.map((m) => ` - ${m.name.padEnd(10)} ${m.signature}\n`),
  ].join('');
}

/** One segment where a system differs from the baseline. */
export interface SegmentDrop {
  /** 0-based segment index (the line of a segment file, the file of a folder). */
  index: number;
  baseline: number;
  system: number;
  /** How much worse the system is there: positive is a loss, in the metric's direction. */
  drop: number;
}

/** Each segment's score of a system under one metric: the segment's own statistics scored alone
 * (for BLEU pass a metric with effective order, as sacreBLEU's sentence_bleu). */
export function segmentScores(
  metric: StatMetric,
  hyps: readonly string[],
  refs: readonly (readonly string[])[],
): number[] {
  return hyps.map((h, i) =>
    metric.score(
      metric.segmentStats(
        h,
        refs.map((r) => r[i]),
      ),
    ),
  );
}

/** The segments sorted by the largest drop against the baseline (ties: the earlier segment first). */
export function drillDown(
  baseline: readonly number[],
  system: readonly number[],
  better: 'higher' | 'lower' = 'higher',
): SegmentDrop[] {
  return baseline
    .map((b, index) => {
      const s = system[index];
      return { index, baseline: b, system: s, drop: better === 'higher' ? b - s : s - b };
    })
    .sort((x, y) => y.drop - x.drop || x.index - y.index);
}

/** A system's worst segments against the baseline under one metric, with their texts. */
export interface WorstSegments {
  system: string;
  metric: string;
  segments: (SegmentDrop & { hypothesis: string; baselineHypothesis: string; references: string[] })[];
}

/**
 * The drill-down: for every system but the baseline (the first) and every metric, each segment's
 * score under `perSegment[k]` (sacreBLEU's --sentence-level number), sorted by the largest drop
 * against the baseline in the direction of `metrics[k]`, the first `n` with their texts.
 */
export function worstSegments(
  systems: readonly SystemOutputs[],
  refs: readonly (readonly string[])[],
  metrics: readonly StatMetric[],
  perSegment: readonly StatMetric[],
  n: number,
): WorstSegments[] {
  const base = perSegment.map((m) => segmentScores(m, systems[0].hyps, refs));
  return systems.slice(1).flatMap((s) =>
    perSegment.map((m, k) => ({
      system: s.name,
      metric: metrics[k].name,
      segments: drillDown(base[k], segmentScores(m, s.hyps, refs), metrics[k].better ?? 'higher')
        .slice(0, n)
        .map((d) => ({
          ...d,
          hypothesis: s.hyps[d.index],
          baselineHypothesis: systems[0].hyps[d.index],
          references: refs.map((r) => r[d.index]),
        })),
    })),
  );
}
