/**
 * What a bench reports: sections of rows, printed as they come, and written as JSON to the file
 * named by BENCH_OUT (bench/run.ts runs each bench in its own process and gathers these into
 * bench/results/latest.{json,md}). A bench run by hand just prints.
 */
import { writeFileSync } from 'node:fs';

export interface Row {
  metric: string;
  value: number | string | null;
  unit?: string;
  note?: string;
}

export interface Section {
  title: string;
  rows: Row[];
}

/** One line of the summary table (one model at one setting). Absent fields were not measured. */
export interface ModelSummary {
  model: string;
  variant: string;
  threads: number;
  loadMs?: number;
  firstTokenMs?: number;
  greedyTokensPerSecond?: number;
  beam?: number;
  beamTokensPerSecond?: number;
  /** The beam search's decoding loop over the decoder's session.run time. */
  beamLoopOverFloor?: number;
  loopOverFloor?: number;
  bandwidthFloorMsPerToken?: number;
  msPerToken?: number;
  peerOverOurs?: number;
  peakRssMB?: number;
  sizeMB?: number;
}

export interface BenchOutput {
  bench: string;
  sections: Section[];
  summaries: ModelSummary[];
}

export const round = (x: number, digits = 1) => Number(x.toFixed(digits));

export class Reporter {
  private readonly out: BenchOutput;
  private current: Section | undefined;

  constructor(bench: string) {
    this.out = { bench, sections: [], summaries: [] };
  }

  section(title: string): this {
    this.current = { title, rows: [] };
    this.out.sections.push(this.current);
    console.log(`\n## ${title}`);
    return this;
  }

  row(metric: string, value: number | string | null, unit?: string, note?: string): this {
    if (!this.current) this.section(this.out.bench);
    const v =
      typeof value === 'number'
        ? Number.isInteger(value)
          ? value
          : round(value, Math.abs(value) < 10 ? 2 : 1)
        : value;
    this.current!.rows.push({ metric, value: v, ...(unit ? { unit } : {}), ...(note ? { note } : {}) });
    console.log(`${metric}: ${v ?? '—'}${unit ? ' ' + unit : ''}${note ? `  (${note})` : ''}`);
    return this;
  }

  summary(s: ModelSummary): void {
    this.out.summaries.push(s);
  }

  /** Writes the JSON for bench/run.ts (when it asked for it). */
  done(): void {
    const file = process.env.BENCH_OUT;
    if (file) writeFileSync(file, JSON.stringify(this.out, null, 1));
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Peak resident memory of this process so far, in MB (the bench process plays the engine's worker). */
export const peakRssMB = () => process.resourceUsage().maxRSS / 1024;
