/**
 * Suggest Replies benchmark: bench/loopBench.ts measures the command's own path (keys, key
 * mappers, the encoder once, one beam search per key, each step one decoder call for all beams) on
 * a few posts. Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/reply.bench.js     (this one; THREADS, MODEL_DIR, VARIANT)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ReplySystem } from '../extension/engine/systems/reply';
import { benchLoop, root } from './loopBench';
import { peakRssMB } from './report';

// Messages of the kinds a writer answers: a question, news, a complaint, an invitation.
const POSTS = [
  'Do you want to play tennis with me on Saturday morning?',
  'I finally finished my first marathon yesterday and my legs are still sore.',
  'The new restaurant downtown was expensive and the food was cold.',
  'We are having a small party at the lake house next weekend, bring your guitar.',
  'My old dog is sick and the vet says there is nothing more to do.',
];
const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

(async () => {
  const baseRss = peakRssMB();
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', 'reply'));
  const t0 = performance.now();
  const system = await ReplySystem.load(dir, { device: 'cpu', threads, log: () => {} });
  const loadMs = performance.now() - t0;
  const beam = (JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')) as { decoding: { beamSize: number } })
    .decoding.beamSize;
  await benchLoop(
    {
      system: 'reply',
      name: system.name,
      loadMs,
      dir,
      files: ['encoder.onnx', 'decoder_step.onnx'],
      stepFiles: () => [{ file: 'decoder_step.onnx', perToken: 1 }],
      rowLookups: /embed/,
      decoding: beam,
      encoderCalls: 1,
      firstTokenCall: 1,
      input: `${POSTS.length} posts, keys by identity, synonym, antonym and neighbour`,
      inputs: POSTS.length,
      run: async (i) =>
        (
          await system.run(
            { op: 'reply', text: POSTS[i], mappers: ['identity', 'synonym', 'antonym', 'neighbour'] },
            context,
          )
        ).stats,
    },
    threads,
    process.env.VARIANT ?? 'shipped',
    baseRss,
  );
})();
