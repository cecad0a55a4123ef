/**
 * Suggest Replies benchmark: model load time; then the command's own path (keys, key mappers,
 * encode once, one beam search per key) on a few posts, in ms per post and ms per decoding step of
 * the beam, against the floor (the time inside session.run: the encoder once, one decoder step per
 * step for all beams together). Prints numbers; asserts nothing.
 *   npm run bench            (all benches, tables in bench/results/)
 *   node dist/bench/reply.bench.js     (this one; THREADS, MODEL_DIR)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ReplySystem } from '../extension/engine/systems/reply';
import { sessionTime, spread, spreadFine } from './sessionTimer';

const root = path.resolve(__dirname, '..', '..');
// Messages of the kinds a writer answers: a question, news, a complaint, an invitation.
const POSTS = [
  'Do you want to play tennis with me on Saturday morning?',
  'I finally finished my first marathon yesterday and my legs are still sore.',
  'The new restaurant downtown was expensive and the food was cold.',
  'We are having a small party at the lake house next weekend, bring your guitar.',
  'My old dog is sick and the vet says there is nothing more to do.',
];

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', 'reply'));
  const t0 = performance.now();
  const system = await ReplySystem.load(dir, { device: 'cpu', threads, log: () => {} });
  const beam = (JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')) as { decoding: { beamSize: number } }).decoding.beamSize;
  console.log(`model ${system.name}: load ${(performance.now() - t0).toFixed(0)} ms (threads=${threads})`);
  const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
  const encode: number[] = [];
  const perStep: number[] = [];
  const floorPerStep: number[] = [];
  const whole: number[] = [];
  let candidates = 0;
  let tokens = 0;
  for (const text of POSTS) {
    sessionTime.reset();
    const t = performance.now();
    const r = await system.run({ op: 'reply', text, mappers: ['identity', 'synonym', 'antonym', 'neighbour'] }, context);
    whole.push(performance.now() - t);
    // Each candidate's beam runs one decoder step (all beams in one batch) per token of its best hypothesis, about.
    const steps = Math.max(1, r.stats.outputTokens);
    candidates += r.candidates.length;
    tokens += r.stats.outputTokens;
    encode.push(r.stats.encodeMs);
    perStep.push(r.stats.decodeMs / steps);
    floorPerStep.push((sessionTime.ms - r.stats.encodeMs) / steps);
  }
  const loop = spread(perStep);
  const floor = spread(floorPerStep);
  console.log(`reply: ${POSTS.length} posts, ${candidates} candidates (one beam search per key), ${tokens} tokens written; ` +
    `encode ms/post ${spreadFine(encode)}; decode ms/step (beam ${beam}) ${spreadFine(perStep)}; ` +
    `floor (session.run) median ${floor.median.toFixed(2)} ms/step: the loop takes ${(loop.median / floor.median).toFixed(2)}x the floor; ` +
    `whole command (keys, mappers, encode, every candidate) ${spread(whole).text}`);
})();
