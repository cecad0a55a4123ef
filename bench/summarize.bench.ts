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
import { ort } from '../extension/engine/runtime/onnx';

/** Every session.run goes through here, so its time can be set against the whole run. */
let sessionMs = 0;
let sessionCalls = 0;
// The factory type hides the class; at run time InferenceSession is a class whose instances share run().
const proto = (ort().InferenceSession as unknown as { prototype: { run: (...args: unknown[]) => Promise<unknown> } }).prototype;
const originalRun = proto.run;
proto.run = async function timedRun(this: unknown, ...args: unknown[]) {
  const t = performance.now();
  try {
    return await originalRun.apply(this, args);
  } finally {
    sessionMs += performance.now() - t;
    sessionCalls++;
  }
};

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
      sessionMs = 0;
      sessionCalls = 0;
      const t = performance.now();
      last = await system.run({ op: 'summarize', text, decoding: { beamSize } }, noop);
      runs.push(performance.now() - t);
      floors.push(sessionMs);
      calls = sessionCalls;
    }
    floors.sort((a, b) => a - b);
    runs.sort((a, b) => a - b);
    const s = last!.stats;
    console.log(`beam ${beamSize}: end-to-end median ${runs[2].toFixed(0)} ms (min ${runs[0].toFixed(0)}, max ${runs[4].toFixed(0)}); ` +
      `${s.usedInputTokens} input tokens, encode ${s.encodeMs.toFixed(0)} ms, ${s.outputTokens} output tokens, ${s.tokensPerSecond.toFixed(1)} steps/s; ` +
      `floor (${calls} session.run calls) median ${floors[2].toFixed(0)} ms: the loop takes ${(runs[2] / floors[2]).toFixed(2)}x the floor`);
  }
})();
