/**
 * `draftsmith score --ref REF --hyp HYP [--document] [--json | --csv] [--stem] [--lowercase]
 *                   [--ref-field F] [--hyp-field F] [--limit N]`
 * Every metric of the metrics module over the pairs, the same function Score Draft uses.
 */
import type { CorpusScores } from '../protocol';
import { EngineError } from '../engine/errors';
import { scoreCorpus } from '../engine/eval/scoreDraft';
import { flag, intFlag, type Args } from './args';
import { progressBar } from './progressBar';
import { readPairs } from './readPairs';

/** Rows of (metric, value) in the order the table, the CSV and the panel show them. */
export function scoreRows(s: CorpusScores): [string, string][] {
  const pct = (x: number) => (x * 100).toFixed(2);
  const rows: [string, string][] = [['pairs', String(s.pairs)], ['BLEU', s.bleu.score.toFixed(2)]];
  s.bleu.precisions.forEach((p, i) => rows.push([`BLEU p${i + 1}`, p.toFixed(2)]));
  rows.push(['BLEU brevity penalty', s.bleu.brevityPenalty.toFixed(4)], ['BLEU length ratio', s.bleu.ratio.toFixed(4)]);
  for (const [key, name] of [['rouge1', 'ROUGE-1'], ['rouge2', 'ROUGE-2'], ['rougeL', 'ROUGE-L'], ['rougeLsum', 'ROUGE-Lsum'], ['rougeW', 'ROUGE-W']] as const) {
    const r = s.rouge[key];
    rows.push([`${name} P`, pct(r.precision)], [`${name} R`, pct(r.recall)], [`${name} F1`, pct(r.f1)]);
  }
  rows.push(
    ['Diversity', s.diversity.diversity.toFixed(4)],
    ['distinct-1', s.diversity.distinct1.toFixed(4)],
    ['distinct-2', s.diversity.distinct2.toFixed(4)],
    ['Substantiality (entity words / sentence)', s.substantiality.perSentence.toFixed(3)],
    ['Coherence L', s.coherenceL === null ? 'n/a' : s.coherenceL.toFixed(3)],
  );
  return rows;
}

const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export async function scoreCommand(a: Args): Promise<void> {
  const ref = flag(a, 'ref');
  const hyp = flag(a, 'hyp');
  if (!ref || !hyp) throw new EngineError('bad-request', 'score needs --ref FILE and --hyp FILE');
  const pairs = await readPairs({
    ref, hyp,
    refField: flag(a, 'ref-field') ?? 'text',
    hypField: flag(a, 'hyp-field') ?? 'text',
    document: flag(a, 'document') !== undefined,
    limit: intFlag(a, 'limit') ?? Infinity,
  });
  if (pairs.length === 0) throw new EngineError('bad-input', `no pairs to score in ${ref} and ${hyp}`);
  const bar = progressBar('scoring');
  const started = performance.now();
  const scores = scoreCorpus(pairs, { stem: flag(a, 'stem') !== undefined, lowercase: flag(a, 'lowercase') !== undefined }, {
    progress: (done, total) => bar.update(done, total),
  });
  bar.done();
  const seconds = (performance.now() - started) / 1000;
  if (flag(a, 'json')) process.stdout.write(JSON.stringify(scores, null, 2) + '\n');
  else if (flag(a, 'csv')) process.stdout.write(['metric,value', ...scoreRows(scores).map(([m, v]) => `${csvCell(m)},${v}`)].join('\n') + '\n');
  else {
    const rows = scoreRows(scores);
    const width = Math.max(...rows.map(([m]) => m.length));
    process.stdout.write(`| ${'metric'.padEnd(width)} | value |\n|${'-'.repeat(width + 2)}|------:|\n`);
    for (const [m, v] of rows) process.stdout.write(`| ${m.padEnd(width)} | ${v} |\n`);
  }
  if (flag(a, 'quiet') === undefined) {
    process.stderr.write(`scored ${pairs.length} pairs in ${seconds.toFixed(1)} s (${(pairs.length / seconds).toFixed(0)} pairs/s)\n`);
  }
}
