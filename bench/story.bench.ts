/**
 * Story benchmark: model load time; then Continue Story's sampling loop (top-k, one token per step,
 * the partial text decoded and sent after every token) in ms per generated token, against the floor
 * (the time inside session.run); and the premise model's. Prints numbers; asserts nothing.
 *   npm run bench:story
 */
import * as path from 'node:path';
import { StorySystem } from '../extension/engine/systems/story';
import { sessionTime, spread, spreadFine } from './sessionTimer';

const root = path.resolve(__dirname, '..', '..');
const PROMPT = 'A lighthouse keeper finds a message in a bottle that was written by her own hand.';

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const t0 = performance.now();
  const system = await StorySystem.load(path.join(root, 'models', 'story'), { device: 'cpu', threads, log: () => {} });
  console.log(`model ${system.name}: load ${(performance.now() - t0).toFixed(0)} ms (threads=${threads})`);
  let partials = 0;
  const context = { progress: () => {}, partial: () => { partials++; }, checkCancelled: () => {} };
  const perToken: number[] = [];
  const floorPerToken: number[] = [];
  let tokens = 0;
  for (let seed = 0; seed < 5; seed++) {
    sessionTime.reset();
    // As many words as the model writes: the run goes to its end or to its 256-token limit.
    const r = await system.run({ op: 'story', prompt: PROMPT, words: 2000, sampling: { seed } }, context);
    const n = Math.max(1, r.tokens.length);
    tokens += r.tokens.length;
    perToken.push(r.stats.decodeMs / n);
    floorPerToken.push((sessionTime.ms - r.stats.encodeMs) / n);
  }
  const loop = spread(perToken);
  const floor = spread(floorPerToken);
  console.log(`story: ${tokens} tokens over 5 seeds, ${partials} partial texts sent; ms/token ${spreadFine(perToken)}; ` +
    `floor (session.run) median ${floor.median.toFixed(2)} ms/token: the loop takes ${(loop.median / floor.median).toFixed(2)}x the floor`);
  const premise: number[] = [];
  for (let seed = 0; seed < 5; seed++) {
    const r = await system.premise({ op: 'premise', sampling: { seed } }, context);
    premise.push(r.stats.decodeMs / Math.max(1, r.stats.outputTokens));
  }
  console.log(`premise: ms/token ${spreadFine(premise)}`);
})();
