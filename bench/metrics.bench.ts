/**
 * Metrics benchmark: pairs per second for ROUGE-L and BLEU (and every metric together, as
 * `draftsmith score` runs them), ROUGE and BLEU with 1 and 4 references, and the paired tests, over
 * 10,000 document pairs of ../shared/data (DialogSum train:
 * each summary scored against its dialogue, ~190 and ~25 words). Prints numbers; asserts nothing.
 *   npm run bench:metrics            (DATA=path/to/dialogsum.train.jsonl to use another file)
 */
import { corpusBleu, sentenceBleu } from '../extension/engine/metrics/bleu';
import { rougeL } from '../extension/engine/metrics/rouge';
import { scoreCorpus } from '../extension/engine/eval/scoreDraft';
import { corpusChrf } from '../extension/engine/metrics/chrf';
import { enUsSpeller, nonwordRate } from '../extension/engine/metrics/nonwords';
import { bleuMetric, pairedApproximateRandomization, pairedBootstrap } from '../extension/engine/metrics/significance';
import { rougeMetrics } from '../extension/engine/metrics/rougeMetric';
import { dialogsumPairs, PAIRS } from './dialogsumPairs';
import { median, Reporter } from './report';

const N = PAIRS;
const r = new Reporter('metrics');
r.section(`metrics over ${N.toLocaleString('en')} pairs`);

const pairs = dialogsumPairs(r, 'metrics');
if (pairs) {
  const { rows, summaries: hyps, dialogues: refs, fileName } = pairs;
  const words = (xs: string[]) => xs.reduce((n, x) => n + x.split(/\s+/).length, 0);
  r.row(
    'pairs',
    rows.length,
    undefined,
    `${fileName}: ${(words(hyps) / rows.length).toFixed(0)} hypothesis and ` +
      `${(words(refs) / rows.length).toFixed(0)} reference words on average`,
  );

  const time = (name: string, fn: () => unknown, repeats = 3) => {
    const runs: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t = performance.now();
      fn();
      runs.push(performance.now() - t);
    }
    const s = median(runs) / 1000;
    r.row(name, rows.length / s, 'pairs/s', `median of ${repeats}: ${s.toFixed(2)} s`);
  };
  time('ROUGE-L (per pair, F1)', () => {
    for (let i = 0; i < rows.length; i++) rougeL(hyps[i], refs[i]);
  });
  time('ROUGE-L with Porter stemming', () => {
    for (let i = 0; i < rows.length; i++) rougeL(hyps[i], refs[i], { stem: true });
  });
  time('BLEU (corpus, 13a)', () => corpusBleu(hyps, [refs]));
  time('BLEU (sentence, per pair)', () => {
    for (let i = 0; i < rows.length; i++) sentenceBleu(hyps[i], [refs[i]]);
  });
  time('chrF (corpus)', () => corpusChrf(hyps, [refs]));
  time('chrF++ (corpus)', () => corpusChrf(hyps, [refs], { wordOrder: 2 }));
  // The non-word rate of the drafts (nspell, hunspell en_US; the dictionary read before timing).
  enUsSpeller();
  time('non-word rate (the drafts, hunspell en_US)', () => nonwordRate(hyps));
  // Paired tests as sacreBLEU's --paired-bs / --paired-ar: baseline = the summaries, system = the
  // summaries with every 7th word dropped, 1,000 pairs; the figure is pairs per second of the whole test.
  {
    const k = Math.min(1000, rows.length);
    const base = hyps.slice(0, k);
    const sys = base.map((h) =>
      h
        .split(' ')
        .filter((_, i) => i % 7 !== 3)
        .join(' '),
    );
    const refK = [refs.slice(0, k)];
    const timeTest = (name: string, fn: () => unknown) => {
      const t = performance.now();
      fn();
      const s = (performance.now() - t) / 1000;
      r.row(name, k / s, 'pairs/s', `${k} pairs, ${s.toFixed(2)} s for the whole test`);
    };
    timeTest('paired bootstrap, BLEU, 1,000 resamples', () =>
      pairedBootstrap(
        [
          { name: 'a', hyps: base },
          { name: 'b', hyps: sys },
        ],
        refK,
        [bleuMetric()],
        { samples: 1000 },
      ),
    );
    timeTest('approximate randomization, BLEU, 10,000 trials', () =>
      pairedApproximateRandomization(
        [
          { name: 'a', hyps: base },
          { name: 'b', hyps: sys },
        ],
        refK,
        [bleuMetric()],
        { samples: 10000 },
      ),
    );
  }
  // Several references: ROUGE-1/2/L/Lsum as `draftsmith score -m rouge`, each segment against
  // 1 or 4 references (4: its own dialogue and the next three, so every reference has the data's length),
  // and BLEU with 4 references. rouge-score is not installed here, so there is no row of its own.
  {
    const refs4 = [0, 1, 2, 3].map((k) => refs.map((_, i) => refs[(i + k) % refs.length]));
    const rougeCorpus = (streams: string[][], jackknife = false) => {
      const ms = rougeMetrics(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], { jackknife });
      for (let i = 0; i < hyps.length; i++)
        for (const m of ms)
          m.segmentStats(
            hyps[i],
            streams.map((st) => st[i]),
          );
    };
    time('ROUGE-1/2/L/Lsum, 1 reference (-m rouge)', () => rougeCorpus([refs]), 1);
    time('ROUGE-1/2/L/Lsum, 4 references, best (score_multi)', () => rougeCorpus(refs4), 1);
    time('ROUGE-1/2/L/Lsum, 4 references, jackknife', () => rougeCorpus(refs4, true), 1);
    time('BLEU (corpus, 13a), 4 references', () => corpusBleu(hyps, refs4), 1);
    const sys = hyps.map((h) =>
      h
        .split(' ')
        .filter((_, i) => i % 7 !== 3)
        .join(' '),
    );
    const t = performance.now();
    pairedBootstrap(
      [
        { name: 'a', hyps },
        { name: 'b', hyps: sys },
      ],
      [refs],
      [bleuMetric(), ...rougeMetrics(['rougeL'])],
      { samples: 1000 },
    );
    const s = (performance.now() - t) / 1000;
    r.row(
      `paired bootstrap, BLEU + ROUGE-L, ${rows.length.toLocaleString('en')} pairs, 1,000 resamples`,
      rows.length / s,
      'pairs/s',
      `${s.toFixed(2)} s for the whole test`,
    );
  }
  time(
    'every metric (draftsmith score)',
    () => scoreCorpus(rows.map((x) => ({ hypothesis: x.summary, reference: x.dialogue }))),
    1,
  );
}
r.done();
