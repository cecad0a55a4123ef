/**
 * Continue Story benchmark: bench/loopBench.ts measures the command's own path (the prompt encoded
 * once, then top-k sampling, one fused decoder step per token, the partial text decoded and sent
 * after every token) over five seeds; then the premise model's sampling. Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/story.bench.js     (this one; THREADS, MODEL_DIR)
 */
import * as path from 'node:path';
import { StorySystem } from '../extension/engine/systems/story';
import { benchLoop, root } from './loopBench';
import { median, peakRssMB } from './report';

const PROMPT = 'A lighthouse keeper finds a message in a bottle that was written by her own hand.';
const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

(async () => {
  const baseRss = peakRssMB();
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', 'story'));
  const t0 = performance.now();
  const system = await StorySystem.load(dir, { device: 'cpu', threads, log: () => {} });
  const loadMs = performance.now() - t0;
  await benchLoop(
    {
      system: 'story',
      name: system.name,
      loadMs,
      dir,
      files: ['encoder.onnx', 'decoder.onnx', 'premise.onnx'],
      stepFiles: () => [{ file: 'decoder.onnx', perToken: 1 }],
      rowLookups: /embed|\.pos\./,
      decoding: 'sampling',
      encoderCalls: 1,
      firstTokenCall: 1,
      input: `the prompt "${PROMPT}", seeds 0-4, to the story's end or its ${system.maxStoryTokens}-token limit`,
      inputs: 5,
      run: async (seed) =>
        (await system.run({ op: 'story', prompt: PROMPT, words: 2000, sampling: { seed } }, context)).stats,
      async extra(r) {
        const perToken: number[] = [];
        for (let seed = 0; seed < 5; seed++) {
          const p = await system.premise({ op: 'premise', sampling: { seed } }, context);
          perToken.push(p.stats.decodeMs / Math.max(1, p.stats.outputTokens));
        }
        r.row(
          'Write a Premise: ms per token (median over 5 seeds)',
          median(perToken),
          'ms',
          'the premise language model, sampling',
        );
      },
    },
    threads,
    'shipped',
    baseRss,
  );
})();
