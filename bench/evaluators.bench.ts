/**
 * Evaluators benchmark: TER over 10,000 pairs, and 5 systems against a baseline over 10,000 pairs
 * with 1,000 bootstrap resamples (the N-systems table of `draftsmith score --hyp … --paired-bs`).
 * Pairs: DialogSum train from ../shared/data, as bench/metrics.bench.ts. Prints numbers; asserts
 * nothing.
 *   npm run build && node dist/bench/evaluators.bench.js   (PAIRS=N, DATA=file.jsonl)
 */
import { corpusTer } from '../extension/engine/metrics/ter';
import { bleuMetric, pairedBootstrap, terMetric } from '../extension/engine/metrics/significance';
import { systemsTable } from '../extension/engine/eval/systemsTable';
import { dialogsumPairs, PAIRS } from './dialogsumPairs';
import { Reporter } from './report';

const N = PAIRS;
const r = new Reporter('evaluators');
r.section(`TER and N systems over ${N.toLocaleString('en')} pairs`);

/** A system: the summary with every k-th word dropped and two neighbours swapped (seeded by k). */
const variant = (s: string, k: number) => {
  const w = s.split(' ').filter((_, i) => i % (k + 5) !== 2);
  if (w.length > 4) [w[1], w[3]] = [w[3], w[1]];
  return w.join(' ');
};

const pairs = dialogsumPairs(r, 'evaluators');
if (pairs) {
  const { rows, summaries, dialogues } = pairs;
  const timed = (name: string, pairs: number, fn: () => unknown, note = '') => {
    const t = performance.now();
    fn();
    const s = (performance.now() - t) / 1000;
    r.row(name, pairs / s, 'pairs/s', `${s.toFixed(2)} s${note}`);
  };
  // A rewording of the reference (MT-like: the reference's words, some dropped, some moved).
  const reworded = summaries.map((s) => variant(s, 1));
  timed('TER (corpus), reworded summary against its summary', rows.length, () => corpusTer(reworded, [summaries]));
  // The summary against its whole dialogue (~25 against ~190 words): long references, many shift candidates.
  timed('TER (corpus), summary against its dialogue', rows.length, () => corpusTer(summaries, [dialogues]));

  const systems = [0, 1, 2, 3, 4, 5].map((k) => ({
    name: k === 0 ? 'baseline' : `system ${k}`,
    hyps: k === 0 ? summaries : summaries.map((s) => variant(s, k)),
  }));
  const refs = [summaries.map((s) => variant(s, 9))];
  for (const [label, metrics] of [
    ['BLEU', [bleuMetric()]],
    ['BLEU + TER', [bleuMetric(), terMetric()]],
  ] as const) {
    const t = performance.now();
    const comparisons = pairedBootstrap(systems, refs, metrics, { samples: 1000 });
    const table = systemsTable(comparisons, metrics, {
      test: 'paired-bs',
      samples: 1000,
      seed: 12345,
      segments: rows.length,
      nrefs: 1,
    });
    const s = (performance.now() - t) / 1000;
    r.row(
      `5 systems + baseline × ${rows.length.toLocaleString('en')} pairs × 1,000 resamples, ${label}`,
      s,
      's',
      `whole table (${table.systems.length} rows × ${table.metrics.length} metrics)`,
    );
  }
}
r.done();
