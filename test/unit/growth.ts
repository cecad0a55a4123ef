// A complexity claim checked without an absolute time: how much longer the work takes on an input
// `factor` times larger. Linear work grows by about `factor`, quadratic work by about factor², so
// the ratio separates the two on a fast machine and a loaded one alike.
import assert from 'node:assert/strict';

/** The least of `tries` timings of `work(size)`, in ms, after one untimed run (the JIT's warm-up). */
function fastest(work: (size: number) => unknown, size: number, tries: number): number {
  work(size);
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const started = performance.now();
    work(size);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * Asserts that `work` grows at most linearly (with room for a log factor and noise) from `size` to
 * `size * factor`: the ratio of the fastest timings must stay under `factor * slack`, far below the
 * factor² of a quadratic algorithm. Returns the ratio.
 */
export function assertLinearGrowth(
  work: (size: number) => unknown,
  size: number,
  { factor = 8, slack = 3, tries = 5 } = {},
): number {
  const small = fastest(work, size, tries);
  const large = fastest(work, size * factor, tries);
  const ratio = large / Math.max(small, 1e-3);
  assert.ok(
    ratio < factor * slack,
    `${factor}× the input took ${ratio.toFixed(1)}× the time (${small.toFixed(2)} ms → ${large.toFixed(2)} ms); linear work takes about ${factor}×, quadratic ${factor * factor}×`,
  );
  return ratio;
}
