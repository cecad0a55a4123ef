/**
 * `draftsmith eval essay`: BLEU and Diversity on the held-out topic-words → paragraph test split, in
 * the shape of the PC-SAN paper's Tables 3–5 — the corpus's own Diversity ("Gold") first, then each
 * model variant (the full model and its ablations). Also the mean number of the five topic words an
 * essay covers, and decoding speed. The split is written by the training recipe
 * (python3 -m draftsmith_train.essay prepare), never committed.
 */
import { z } from 'zod';
import { corpusBleu } from '../metrics/bleu';
import { diversity } from '../metrics/diversity';
import { silentRun } from '../systems/context';
import { loadSystem } from '../systems/registry';
import { singleFolder } from '../runtime/modelSource';
import { readSplit, type EvalOptions } from './testSplit';

const Pair = z.object({ domain: z.string(), topics: z.array(z.string()).min(1), text: z.string() });

export interface EssayEvalOptions extends EvalOptions {
  /** Beam size; the manifest's (the paper's 5) when absent. */
  beamSize?: number;
  /** Plain beam search, as the paper decodes (the default requires every topic word). */
  unconstrained: boolean;
  /** Print the first three essays of each variant with their topics. */
  show: boolean;
}

interface Row {
  name: string;
  bleu?: number;
  diversity: number;
  distinct2: number;
  coverage?: number;
  tokensPerSecond?: number;
  seconds?: number;
}

export async function runEssayEval(opts: EssayEvalOptions, log: (m: string) => void): Promise<string> {
  const pairs = (await readSplit('essay', opts.dataDir, Pair)).slice(0, opts.limit);
  const gold = diversity(pairs.map((p) => p.text));
  const rows: Row[] = [{ name: 'Gold (the test paragraphs)', diversity: gold.diversity, distinct2: gold.distinct2 }];
  for (const v of opts.variants) {
    const system = await loadSystem('essay', singleFolder(v.dir), opts.runtime);
    const t0 = performance.now();
    const essays: string[] = [];
    let covered = 0;
    let steps = 0;
    let decodeMs = 0;
    for (const [i, p] of pairs.entries()) {
      const r = await system.run(
        {
          op: 'essay',
          topics: p.topics.join(', '),
          decoding: { beamSize: opts.beamSize },
          includeAllTopics: !opts.unconstrained,
          guards: opts.guards,
        },
        silentRun,
      );
      const best = r.candidates[0];
      essays.push(best.text);
      opts.dump?.({
        system: 'essay',
        variant: v.name,
        id: String(i),
        domain: p.domain,
        source: p.topics.join(', '),
        output: best.text,
        references: [p.text],
      });
      covered += best.covered.length / r.topics.length;
      steps += r.stats.outputTokens + 1;
      decodeMs += r.stats.decodeMs;
      if ((i + 1) % 25 === 0) log(`${v.name}: ${i + 1}/${pairs.length}`);
      if (opts.show && i < 3) log(`${v.name} #${i} [${p.topics.join(', ')}]: ${best.text}`);
    }
    const d = diversity(essays);
    rows.push({
      name: `${v.name} (${system.name}${opts.guards === false ? ', no guards' : ''})`,
      bleu: corpusBleu(essays, [pairs.map((p) => p.text)]).score,
      diversity: d.diversity,
      distinct2: d.distinct2,
      coverage: covered / pairs.length,
      tokensPerSecond: steps / (decodeMs / 1000),
      seconds: (performance.now() - t0) / 1000,
    });
  }
  return table(rows, pairs.length);
}

function table(rows: Row[], n: number): string {
  const f = (x: number | undefined, digits: number, scale = 1) => {
    return x === undefined ? '–' : (x * scale).toFixed(digits);
  };
  return [
    '| model | BLEU | Diversity | distinct-2 | topic words covered | decoding tokens/s |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${f(r.bleu, 2)} | ${f(r.diversity, 4)} | ${f(r.distinct2, 4)} | ` +
        `${f(r.coverage, 1, 100)}${r.coverage === undefined ? '' : '%'} | ${f(r.tokensPerSecond, 1)} |`,
    ),
    '',
    `Test split, ${n} paragraphs. BLEU: corpus BLEU against the one reference paragraph (sacreBLEU 13a, exp ` +
      `smoothing). ` +
      'Diversity: unique tokens / tokens over all outputs (lowercased 13a tokens, punctuation dropped). ' +
      'Topic words covered: the mean share of the five input words that the best essay contains (same Porter stem). ' +
      'Tokens/s: decoder steps per second of beam search (all beams advance together), one thread.',
    '',
  ].join('\n');
}
