/**
 * GGUF models through our loop against llama.cpp's own sampler, on the same file, prompt and threads,
 * in one process and one interleaved run (the ratios are what to read on a shared machine): what running
 * our decoding loops (guards, seeded sampling, one path for both runtimes) on llama.cpp costs.
 * Ours: decode/sampling.ts's greedy and top-k (k 10, temperature 0.9) on gguf/ggufStep.ts, reading
 * llama.cpp's ranked candidates (stepRanked), and the same loop reading the whole distribution (the
 * path before). llama.cpp's: node-llama-cpp's sequence.evaluate at temperature 0, and at 0.9 with
 * top-k 10 (its sampler in C++). The files are ../shared/tools/llama-anchor/make_gguf.py's (random
 * weights, real shapes). Prints numbers; asserts nothing.
 *   GGUF_FILES=/tmp/smollm2-135m-q8_0.gguf [THREADS_LIST=1,2] [PROMPT_TOKENS=650] [GEN=32] [ROUNDS=2] node dist/bench/gguf.bench.js
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Token } from 'node-llama-cpp';
import { greedy, topKSample, type SamplingOptions } from '../extension/engine/decode/sampling';
import type { StepModel } from '../extension/engine/decode/types';
import { llamaRuntime } from '../extension/engine/gguf/llamaRuntime';
import type { CausalLm } from '../extension/engine/hub/causalLm';
import { openCausalLm } from '../extension/engine/hub/hubSystems';

const FILES = (process.env.GGUF_FILES ?? '').split(',').filter(Boolean);
const THREADS = (process.env.THREADS_LIST ?? '1,2').split(',').map(Number);
const PROMPT_TOKENS = Number(process.env.PROMPT_TOKENS ?? 650);
const GEN = Number(process.env.GEN ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const K = 10;
const TEMPERATURE = 0.9;
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

/** The step model without its ranked step: the loop reads the whole distribution, as before. */
function wholeRows(lm: CausalLm): StepModel<unknown> {
  const step = lm.step as StepModel<unknown>;
  return { vocabSize: step.vocabSize, step: (t, s) => step.step(t, s), reorder: (s, r) => step.reorder(s, r) };
}

type Mode = 'greedy' | 'sampled';

/** Our loop: ms per token after the first (the prompt read before, outside the timing). */
async function ours(lm: CausalLm, model: StepModel<unknown>, ids: number[], mode: Mode): Promise<number> {
  const read = await lm.step.run(ids.slice(0, -1), lm.step.initial());
  // The end token held back: every run writes GEN tokens.
  const opts: SamplingOptions = {
    bos: ids[ids.length - 1],
    eos: lm.eos,
    maxLength: GEN + 1,
    minLength: GEN + 1,
    banned: lm.banned,
  };
  let first = 0;
  const hooks = { onStep: (step: number) => void (step === 0 && (first = performance.now())) };
  const h =
    mode === 'greedy'
      ? await greedy(model, read.state, opts, hooks)
      : await topKSample(model, read.state, { ...opts, k: K, temperature: TEMPERATURE, seed: 7 }, hooks);
  return (performance.now() - first) / (h.tokens.length - 1);
}

async function main() {
  if (FILES.length === 0) {
    console.log(
      'GGUF_FILES=<file.gguf>[,...] names the files (make_gguf.py of ../shared/tools/llama-anchor writes them)',
    );
    return;
  }
  console.log(
    `prompt ${PROMPT_TOKENS} tokens, then ${GEN} tokens, best of ${ROUNDS} interleaved rounds; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  console.log(
    '| model | threads | decoding | llama.cpp tokens/s | ours, ranked candidates | ratio | ours, whole distribution | ratio |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const { llama } = await llamaRuntime('cpu', () => {});
  for (const file of FILES)
    for (const threads of THREADS) {
      const lm = await openCausalLm(
        { kind: 'gguf', file },
        'the bench',
        hub,
        { device: 'cpu', threads, log: () => {} },
        watch,
      );
      const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
      const context = await model.createContext({ contextSize: 2048, threads });
      const sequence = context.getSequence();
      const ids = prompt(PROMPT_TOKENS, new Set(lm.banned));
      await sequence.evaluateWithoutGeneratingNewTokens(ids.slice(0, -1) as unknown as Token[]);
      const base = sequence.nextTokenIndex;
      const theirs = async (mode: Mode) => {
        await sequence.eraseContextTokenRanges([{ start: base, end: sequence.nextTokenIndex }]);
        const options =
          mode === 'greedy' ? { temperature: 0 } : { temperature: TEMPERATURE, topK: K, topP: 1, minP: 0, seed: 7 };
        let n = 0;
        let first = 0;
        for await (const _ of sequence.evaluate([ids[ids.length - 1] as Token], { ...options, yieldEogToken: true })) {
          if (n === 0) first = performance.now();
          if (++n > GEN) break;
        }
        return (performance.now() - first) / GEN;
      };
      for (const mode of ['greedy', 'sampled'] as const) {
        const best = { theirs: Infinity, ranked: Infinity, whole: Infinity };
        for (let r = 0; r < ROUNDS; r++) {
          best.theirs = Math.min(best.theirs, await theirs(mode));
          best.ranked = Math.min(best.ranked, await ours(lm, lm.step as StepModel<unknown>, ids, mode));
          best.whole = Math.min(best.whole, await ours(lm, wholeRows(lm), ids, mode));
        }
        const tps = (ms: number) => 1000 / ms;
        console.log(
          `| ${path.basename(file, '.gguf')} | ${threads} | ${mode} | ${tps(best.theirs).toFixed(1)} | ${tps(best.ranked).toFixed(1)} | ${(best.theirs / best.ranked).toFixed(2)} | ${tps(best.whole).toFixed(1)} | ${(best.theirs / best.whole).toFixed(2)} |`,
        );
      }
      await context.dispose();
      await model.dispose();
      await lm.opened.model.dispose();
    }
  console.log(
    `load average after: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
}

void main();
