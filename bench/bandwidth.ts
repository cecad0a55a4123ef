/**
 * This machine's memory bandwidth as a plain copy measures it in Node (one thread, as the
 * decoders run): a Float32Array.set of a buffer far larger than the CPU caches, counted as bytes
 * read plus bytes written (STREAM's "Copy" convention). A decoding step must at least read every
 * weight once; that many bytes at this rate is the step's memory-bandwidth floor.
 */
export function copyBandwidth(megabytes = 256, repeats = 5): { bytesPerSecond: number; megabytes: number } {
  const n = (megabytes * 1024 * 1024) / 4;
  const src = new Float32Array(n).fill(1);
  const dst = new Float32Array(n);
  dst.set(src); // touch every page first
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    dst.set(src);
    best = Math.min(best, performance.now() - t);
  }
  return { bytesPerSecond: (2 * n * 4) / (best / 1000), megabytes };
}
