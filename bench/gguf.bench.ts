/**
 * GGUF models through our loop against llama.cpp's own sampler, on the same file, prompt and threads:
 * what running our decoding loops (guards, beams, seeded sampling, one path for both runtimes) on
 * llama.cpp costs. Ours: gguf/ggufStep.ts, the whole vocabulary's probabilities per step, greedy.
 * llama.cpp's: node-llama-cpp's sequence.evaluate at temperature 0 (its sampler in C++). The files are
 * ../shared/tools/llama-anchor/make_gguf.py's (random weights, real shapes). Prints numbers; asserts nothing.
 *   GGUF_FILES=/tmp/smollm2-135m-q8_0.gguf [THREADS_LIST=1,2] [PROMPT_TOKENS=650] [GEN=32] node
 * dist/bench/gguf.bench.js
 */
import * as path from 'node:path';
import type { Token } from 'node-llama-cpp';
import { llamaRuntime } from '../extension/engine/gguf/llamaRuntime';
import { openCausalLm } from '../extension/engine/hub/hubSystems';

const FILES = (process.env.GGUF_FILES ?? '').split(',').filter(Boolean);
const THREADS = (process.env.THREADS_LIST ?? '1,2').split(',').map(Number);
const PROMPT_TOKENS = Number(process.env.PROMPT_TOKENS ?? 650);
const GEN = Number(process.env.GEN ?? 32);
const hub = { endpoint: 'http://127.0.0.1:9/', cacheDir: '/tmp', offline: true, stallSeconds: 30 };
const watch = { progress: () => {}, isCancelled: () => false };

/** Seeded ids among ordinary tokens, as llama-anchor's bench.mjs draws them. */
function prompt(n: number, banned: ReadonlySet<number>): number[] {
  let a = 1;
  const rand = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: number[] = [];
  while (out.length < n) {
    const id = 300 + Math.floor(rand() * (30000 - 300));
    if (!banned.has(id)) out.push(id);
  }
  return out;
}

const argmax = (a: Float32Array) => {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
};

async function ours(file: string, threads: number) {
  const t0 = performance.now();
  const lm = await openCausalLm(
    { kind: 'gguf', file },
    'the bench',
    hub,
    { device: 'cpu', threads, log: () => {} },
    watch,
  );
  const loadMs = performance.now() - t0;
  const ids = prompt(PROMPT_TOKENS, new Set(lm.banned));
  const t1 = performance.now();
  let out = await lm.step.run(ids, lm.step.initial());
  let token = argmax(out.logProbs);
  const firstMs = performance.now() - t1;
  const t2 = performance.now();
  for (let i = 0; i < GEN; i++) {
    out = await lm.step.step([token], out.state);
    token = argmax(out.logProbs);
  }
  const tokS = GEN / ((performance.now() - t2) / 1000);
  await lm.opened.model.dispose();
  return { loadMs, firstMs, tokS, ids };
}

async function theirs(file: string, threads: number, ids: number[]) {
  const { llama } = await llamaRuntime('cpu', () => {});
  const t0 = performance.now();
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 4096, threads });
  const loadMs = performance.now() - t0;
  let n = 0;
  let tFirst = 0;
  const t1 = performance.now();
  for await (const _ of context
    .getSequence()
    .evaluate(ids as unknown as Token[], { temperature: 0, yieldEogToken: true })) {
    if (n === 0) tFirst = performance.now();
    if (++n > GEN) break;
  }
  const tokS = GEN / ((performance.now() - tFirst) / 1000);
  await context.dispose();
  await model.dispose();
  return { loadMs, firstMs: tFirst - t1, tokS };
}

async function main() {
  if (FILES.length === 0) {
    console.log(
      'GGUF_FILES=<file.gguf>[,...] names the files (make_gguf.py of ../shared/tools/llama-anchor writes them)',
    );
    return;
  }
  console.log(
    `prompt ${PROMPT_TOKENS} tokens, then ${GEN} greedy tokens; load average ` +
      `${(await import('node:os')).loadavg()[0].toFixed(1)}`,
  );
  console.log(
    '| model | threads | load s ours / llama.cpp | first token s ours / llama.cpp | tokens/s ours / llama.cpp ' +
      '| ratio |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const file of FILES)
    for (const threads of THREADS) {
      const a = await ours(file, threads);
      const b = await theirs(file, threads, a.ids);
      const f = (x: number) => (x / 1000).toFixed(2);
      console.log(
        `| ${path.basename(file, '.gguf')} | ${threads} | ${f(a.loadMs)} / ${f(b.loadMs)} | ${f(a.firstMs)} / ` +
          `${f(b.firstMs)} | ${a.tokS.toFixed(1)} / ${b.tokS.toFixed(1)} | ${(a.tokS / b.tokS).toFixed(2)} |`,
      );
    }
}

void main();
