/**
 * Summarize benchmark: model load time, encode time, decoding steps per second and end-to-end
 * latency on a ~350-word article, for beam sizes 1 and 4; and the floor: the time spent inside
 * onnxruntime's session.run calls the loop makes (the loop's own overhead is the rest).
 * Prints numbers; asserts nothing.
 *   npm run bench
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SummarizeSystem } from '../extension/engine/systems/summarize';
import { sessionTime, spread } from './sessionTimer';

const root = path.resolve(__dirname, '..', '..');
const text = readFileSync(path.join(root, 'samples', 'sample.md'), 'utf8');
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const t0 = performance.now();
  const system = await SummarizeSystem.load(path.join(root, 'models', 'summarize'), { device: 'cpu', threads, log: () => {} });
  console.log(`model ${system.name}: load ${(performance.now() - t0).toFixed(0)} ms (threads=${threads})`);
  for (const beamSize of [1, 4]) {
    const runs: number[] = [];
    const floors: number[] = [];
    let calls = 0;
    let last;
    for (let i = 0; i < 5; i++) {
      sessionTime.reset();
      const t = performance.now();
      last = await system.run({ op: 'summarize', text, decoding: { beamSize } }, noop);
      runs.push(performance.now() - t);
      floors.push(sessionTime.ms);
      calls = sessionTime.calls;
    }
    const run = spread(runs);
    const floor = spread(floors);
    const s = last!.stats;
    console.log(`beam ${beamSize}: end-to-end ${run.text}; ` +
      `${s.usedInputTokens} input tokens, encode ${s.encodeMs.toFixed(0)} ms, ${s.outputTokens} output tokens, ${s.tokensPerSecond.toFixed(1)} steps/s; ` +
      `floor (${calls} session.run calls) median ${floor.median.toFixed(0)} ms: the loop takes ${(run.median / floor.median).toFixed(2)}x the floor`);
  }
})();
