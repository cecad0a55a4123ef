/**
 * `draftsmith eval roundtrip`: how well each Round-Trip model reconstructs held-out paragraphs, in
 * the shape of the paper's results table (Li, Luong & Jurafsky 2015: Model x Dataset -> BLEU,
 * ROUGE-1, ROUGE-2, coherence L), with ROUGE-W, and encode / decode times. The models are compared
 * on the same paragraphs: the first N of the test split with the sources taking turns (wiki, story,
 * news, tech, wiki, ...), as the recipe's own eval samples them (roundtrip_data.load with a limit).
 * Each paragraph is read as the recipe split it (its "sentences"), so the model sees what training
 * saw; outputs are scored with the TypeScript metrics (metrics/bleu, rouge, coherence).
 * The split is written by python3 -m draftsmith_train.roundtrip prepare, never committed.
 */
import { z } from 'zod';
import { corpusBleu } from '../metrics/bleu';
import { coherence } from '../metrics/coherence';
import { corpusRouge } from '../metrics/rouge';
import { loadSystem } from '../systems/registry';
import { singleFolder } from '../runtime/modelSource';
import { analyseEach } from '../text/nlp';
import { readSplit, takeTurns, type EvalOptions } from './testSplit';

export const RoundTripRow = z.object({ source: z.string(), doc: z.string(), sentences: z.array(z.string()).min(1) });
export type RoundTripRow = z.infer<typeof RoundTripRow>;

/** limit: the sources take turns. guards: the paragraph's own words allowed, as run() decodes; off, the
 * paper's plain greedy decoding (decodeIds, what the parity tests hold to PyTorch). */
export interface RoundTripEvalOptions extends EvalOptions {
  /** Print the first three reconstructions of each variant. */
  show: boolean;
}

export { takeTurns } from './testSplit';

/** One paragraph's reconstruction. */
interface Reconstructed {
  row: RoundTripRow;
  output: string[];
  L: number | null;
  encodeMs: number;
  decodeMs: number;
}

interface Line {
  model: string;
  dataset: string;
  n: number;
  bleu: number;
  rouge1: number;
  rouge2: number;
  rougeW: number;
  L: number | null;
  lDefined: number;
  encodeMs: number;
  decodeMs: number;
}

function line(model: string, dataset: string, items: readonly Reconstructed[]): Line {
  const hyps = items.map((x) => x.output.join(' '));
  const refs = items.map((x) => x.row.sentences.join(' '));
  const rouge = corpusRouge(hyps, refs);
  const ls = items.map((x) => x.L).filter((L): L is number => L !== null);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  return {
    model,
    dataset,
    n: items.length,
    bleu: corpusBleu(hyps, [refs]).score,
    rouge1: rouge.rouge1.f1,
    rouge2: rouge.rouge2.f1,
    rougeW: rouge.rougeW.f1,
    L: ls.length > 0 ? mean(ls) : null,
    lDefined: ls.length,
    encodeMs: mean(items.map((x) => x.encodeMs)),
    decodeMs: mean(items.map((x) => x.decodeMs)),
  };
}

export async function runRoundTripEval(opts: RoundTripEvalOptions, log: (m: string) => void): Promise<string> {
  const rows = takeTurns(await readSplit('roundtrip', opts.dataDir, RoundTripRow), opts.limit);
  const sources = [...new Set(rows.map((r) => r.source))].sort();
  const lines: Line[] = [];
  for (const v of opts.variants) {
    const system = await loadSystem('roundtrip', singleFolder(v.dir), opts.runtime);
    const done: Reconstructed[] = [];
    for (const [i, row] of rows.entries()) {
      const input = row.sentences.join(' ');
      const d = await system.decodeIds(
        row.sentences.map((s) => system.encodeSentence(s)),
        { guards: { input, enabled: opts.guards } },
      );
      const output = system.outputSentences(d).map((s) => s.text);
      opts.dump?.({
        system: 'roundtrip',
        variant: v.name,
        id: `${row.doc}#${i}`,
        domain: row.source,
        source: input,
        output: output.join(' '),
        references: [input],
      });
      done.push({
        row,
        output,
        L: coherence(analyseEach(row.sentences), analyseEach(output)).L,
        encodeMs: d.encodeMs,
        decodeMs: d.decodeMs,
      });
      if ((i + 1) % 50 === 0) log(`${v.name}: ${i + 1}/${rows.length}`);
      if (opts.show && i < 3)
        log(`${v.name} #${i} IN : ${row.sentences.join(' ')}\n${v.name} #${i} OUT: ${output.join(' ')}`);
    }
    const model = `${v.name} (${system.variant}, ${system.name}${opts.guards === false ? ', no guards' : ''})`;
    lines.push(line(model, 'all', done));
    for (const s of sources)
      lines.push(
        line(
          model,
          s,
          done.filter((x) => x.row.source === s),
        ),
      );
  }
  return table(
    lines,
    rows.length,
    sources.map((s) => `${s} ${rows.filter((r) => r.source === s).length}`).join(', '),
    opts.runtime.threads,
    opts.guards !== false,
  );
}

function table(lines: readonly Line[], n: number, perSource: string, threads: number, guards: boolean): string {
  const L = (l: Line) => (l.L === null ? 'n/a' : `${l.L.toFixed(2)} (${l.lDefined})`);
  return [
    '| Model | Dataset | BLEU | ROUGE-1 | ROUGE-2 | ROUGE-W | Coherence L ↓ (paragraphs) | encode ms | decode ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...lines.map(
      (l) =>
        `| ${l.model} | ${l.dataset} (${l.n}) | ${l.bleu.toFixed(2)} | ${l.rouge1.toFixed(3)} | ` +
        `${l.rouge2.toFixed(3)} | ${l.rougeW.toFixed(3)} | ${L(l)} | ${l.encodeMs.toFixed(1)} | ` +
        `${l.decodeMs.toFixed(1)} |`,
    ),
    '',
    `Test split, ${n} paragraphs (${perSource}), the sources taking turns; each read as the recipe split it ` +
      `into sentences. ` +
      ('BLEU: corpus BLEU against the input paragraph (sacreBLEU 13a, exp smoothing). ROUGE-1/2: F1 ' +
        '(rouge-score tokens, no stemming); ') +
      ('ROUGE-W: weighted-LCS F (w = 1.2, Lin 2004); mean over paragraphs. Coherence L (Eq. 18, lower is ' +
        'better): mean over the paragraphs ') +
      ('with at least two aligned output sentences (their count in brackets); output sentences aligned to input ' +
        'sentences by noun/verb F1. ') +
      (`Times: mean per paragraph, greedy decoding ` +
        `${guards ? 'with the decoding guards' : 'without the decoding guards (--no-guards)'}, ` +
        `${threads > 0 ? `${threads} thread${threads === 1 ? '' : 's'}` : "onnxruntime's default threads"} ` +
        `(--threads).`),
    '',
  ].join('\n');
}
