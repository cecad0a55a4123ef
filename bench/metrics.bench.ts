/**
 * Metrics benchmark: pairs per second for ROUGE-L and BLEU (and every metric together, as
 * `draftsmith score` runs them) over 10,000 document pairs of ../shared/data (DialogSum train:
 * each summary scored against its dialogue, ~190 and ~25 words). Prints numbers; asserts nothing.
 *   npm run bench:metrics            (DATA=path/to/dialogsum.train.jsonl to use another file)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { corpusBleu, sentenceBleu } from '../extension/engine/metrics/bleu';
import { rougeL } from '../extension/engine/metrics/rouge';
import { scoreCorpus } from '../extension/engine/eval/scoreDraft';

const root = path.resolve(__dirname, '..', '..');
const file = process.env.DATA ?? path.join(root, '..', 'shared', 'data', 'dialogsum', 'dialogsum.train.jsonl');
const N = Number(process.env.PAIRS ?? 10_000);

const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, N)
  .map((l) => JSON.parse(l) as { dialogue: string; summary: string });
const hyps = rows.map((r) => r.summary);
const refs = rows.map((r) => r.dialogue);
const words = (xs: string[]) => xs.reduce((n, x) => n + x.split(/\s+/).length, 0);
console.log(`${rows.length} pairs from ${path.relative(root, file)}: ${(words(hyps) / rows.length).toFixed(0)} hypothesis words, ${(words(refs) / rows.length).toFixed(0)} reference words on average`);

function time(name: string, fn: () => unknown): void {
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    fn();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  const med = runs[1] / 1000;
  console.log(`${name.padEnd(34)} ${(rows.length / med).toFixed(0).padStart(7)} pairs/s  (median ${med.toFixed(2)} s of 3; min ${(runs[0] / 1000).toFixed(2)}, max ${(runs[2] / 1000).toFixed(2)})`);
}

time('ROUGE-L (per pair, F1)', () => { for (let i = 0; i < rows.length; i++) rougeL(hyps[i], refs[i]); });
time('ROUGE-L with Porter stemming', () => { for (let i = 0; i < rows.length; i++) rougeL(hyps[i], refs[i], { stem: true }); });
time('BLEU (corpus, 13a)', () => corpusBleu(hyps, [refs]));
time('BLEU (sentence, per pair)', () => { for (let i = 0; i < rows.length; i++) sentenceBleu(hyps[i], [refs[i]]); });
const t = performance.now();
scoreCorpus(rows.map((r) => ({ hypothesis: r.summary, reference: r.dialogue })));
const s = (performance.now() - t) / 1000;
console.log(`${'every metric (draftsmith score)'.padEnd(34)} ${(rows.length / s).toFixed(0).padStart(7)} pairs/s  (one run, ${s.toFixed(1)} s)`);
