/**
 * The protocol's zod schemas for the host, loaded on first use (the first message from the worker
 * or the panel), not at activation: evaluating zod is most of what requiring the host bundle costs
 * (measured: ~70-140 ms of a ~75-125 ms require), and activation should stay under 100 ms.
 * Types come from '../protocol' with `import type`, which loads nothing.
 */
type Protocol = typeof import('../protocol');

let loaded: Protocol | undefined;

export function schemas(): Protocol {
  // require(), not import: esbuild then initialises the protocol (and zod) only when this runs.
  loaded ??= require('../protocol') as Protocol;
  return loaded;
}
