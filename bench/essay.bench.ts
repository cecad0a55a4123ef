/**
 * Essay benchmark: model load time, then for beam 1 and the paper's beam 5, end-to-end time for
 * five topic words, decoder steps per second (all beams advance together), generated tokens per
 * second, and the floor (time inside session.run). Prints numbers; asserts nothing.
 *   npm run bench:essay
 */
import * as path from 'node:path';
import { EssaySystem } from '../extension/engine/systems/essay';
import { sessionTime, spread } from './sessionTimer';

const root = path.resolve(__dirname, '..', '..');
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const TOPICS = 'bee, swallow, geese, flower, frog';

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const t0 = performance.now();
  const system = await EssaySystem.load(path.join(root, 'models', 'essay'), { device: 'cpu', threads, log: () => {} });
  console.log(`model ${system.name}: load ${(performance.now() - t0).toFixed(0)} ms (threads=${threads}); topics "${TOPICS}"`);
  for (const beamSize of [1, 5]) {
    const runs: number[] = [];
    const floors: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      sessionTime.reset();
      const t = performance.now();
      last = await system.run({ op: 'essay', topics: TOPICS, decoding: { beamSize } }, noop);
      runs.push(performance.now() - t);
      floors.push(sessionTime.ms);
    }
    const run = spread(runs);
    const floor = spread(floors);
    const s = last!.stats;
    console.log(`beam ${beamSize}: end-to-end ${run.text}; ${s.outputTokens} tokens, ${s.tokensPerSecond.toFixed(1)} steps/s, ` +
      `${(s.outputTokens / (s.decodeMs / 1000)).toFixed(1)} generated tokens/s, encode ${s.encodeMs.toFixed(0)} ms; ` +
      `floor median ${floor.median.toFixed(0)} ms: the loop takes ${(run.median / floor.median).toFixed(2)}x the floor`);
  }
})();
