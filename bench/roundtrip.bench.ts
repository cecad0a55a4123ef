/**
 * Round-Trip Paragraph benchmark: bench/loopBench.ts measures the command's own path (sentence
 * split, tokenize, encode, greedy decode of one sentence step per output sentence and one word step
 * per token, scores) on each paragraph of samples/sample.md. Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/roundtrip.bench.js     (this one; THREADS, MODEL_DIR, VARIANT)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RoundTripSystem } from '../extension/engine/systems/roundtrip';
import { paragraphSpans } from '../extension/engine/text/reader';
import { benchLoop, root } from './loopBench';
import { peakRssMB } from './report';

// The sample's paragraphs as the editor's command finds them (text/reader.ts), headings left out.
const paragraphs = paragraphSpans(readFileSync(path.join(root, 'samples', 'sample.md'), 'utf8'))
  .map((p) => p.text)
  .filter((p) => !p.startsWith('#'));
const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

(async () => {
  const baseRss = peakRssMB();
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', 'roundtrip'));
  const t0 = performance.now();
  const system = await RoundTripSystem.load(dir, { device: 'cpu', threads, log: () => {} });
  const loadMs = performance.now() - t0;
  let sentences = 0;
  await benchLoop(
    {
      system: 'roundtrip',
      name: system.name,
      loadMs,
      dir,
      files: ['encoder.onnx', 'sentence_step.onnx', 'word_step.onnx'],
      // A token costs a word step; a sentence step starts each sentence.
      stepFiles: ({ tokens }) => [
        { file: 'word_step.onnx', perToken: 1 },
        { file: 'sentence_step.onnx', perToken: sentences / Math.max(1, tokens) },
      ],
      rowLookups: /embed/,
      decoding: 'greedy',
      encoderCalls: 1,
      firstTokenCall: 2, // the encoder, the first sentence step, the first word step
      input: `${paragraphs.length} paragraphs of samples/sample.md`,
      inputs: paragraphs.length,
      async run(i) {
        const r = await system.run({ op: 'roundtrip', text: paragraphs[i] }, context);
        sentences += r.output.length;
        return r.stats;
      },
    },
    threads,
    process.env.VARIANT ?? 'shipped',
    baseRss,
  );
})();
