/** Times every onnxruntime session.run (the floor a decoding loop cannot go below): the loop's own
 * overhead is the rest of its time. Import before any session runs. */
import { ort } from '../extension/engine/runtime/onnx';

/** The time inside session.run since the last reset: in all, per call, and when each call ended (performance.now()). */
export const sessionTime = {
  ms: 0, calls: 0, each: [] as number[], ends: [] as number[],
  reset() { this.ms = 0; this.calls = 0; this.each = []; this.ends = []; },
};

// The factory type hides the class; at run time InferenceSession is a class whose instances share run().
const proto = (ort().InferenceSession as unknown as { prototype: { run: (...args: unknown[]) => Promise<unknown> } }).prototype;
const originalRun = proto.run;
proto.run = async function timedRun(this: unknown, ...args: unknown[]) {
  const t = performance.now();
  try {
    return await originalRun.apply(this, args);
  } finally {
    const end = performance.now();
    sessionTime.ms += end - t;
    sessionTime.calls++;
    sessionTime.each.push(end - t);
    sessionTime.ends.push(end);
  }
};

/** Median, min and max of a list of milliseconds, as the benches print them. */
export function spread(ms: number[]): { median: number; min: number; max: number; text: string } {
  const s = [...ms].sort((a, b) => a - b);
  const median = s[Math.floor(s.length / 2)];
  return { median, min: s[0], max: s[s.length - 1], text: `median ${median.toFixed(0)} ms (min ${s[0].toFixed(0)}, max ${s[s.length - 1].toFixed(0)})` };
}

/** The same spread for sub-millisecond figures (ms per token): two decimals. */
export function spreadFine(ms: number[]): string {
  const s = spread(ms);
  return `median ${s.median.toFixed(2)} (min ${s.min.toFixed(2)}, max ${s.max.toFixed(2)})`;
}
