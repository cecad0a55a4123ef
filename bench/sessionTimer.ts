/** Times every onnxruntime session.run (the floor a decoding loop cannot go below): the loop's own
 * overhead is the rest of its time. Import before any session runs. */
import { ort } from '../extension/engine/runtime/onnx';

/** The time inside session.run since the last reset: in all, per call, and when each call ended (performance.now()). */
export const sessionTime = {
  ms: 0,
  calls: 0,
  each: [] as number[],
  ends: [] as number[],
  reset() {
    this.ms = 0;
    this.calls = 0;
    this.each = [];
    this.ends = [];
  },
};

// The factory type hides the class; at run time InferenceSession is a class whose instances share run().
const proto = (ort().InferenceSession as unknown as { prototype: { run: (...args: unknown[]) => Promise<unknown> } })
  .prototype;
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
