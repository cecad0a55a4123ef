/**
 * GGUF models through our loop against llama.cpp's own sampler, on the same file, prompt and threads,
 * in one process and one interleaved run (the ratios are what to read on a shared machine): what running
 * our decoding loops (guards, seeded sampling, one path for both runtimes) on llama.cpp costs.
 * Ours: decode/sampling.ts's greedy and top-k (k 10, temperature 0.9) on gguf/ggufStep.ts, reading
 * llama.cpp's ranked candidates (stepRanked), and the same loop reading the whole distribution (the
 * path before). llama.cpp's: node-llama-cpp's sequence.evaluate at temperature 0, and at 0.9 with
 * top-k 10 (its sampler in C++). The files are ../shared/tools/llama-anchor/make_gguf.py's (random
 * weights, real shapes). Prints numbers; asserts nothing.
 * Then, each runtime in a process of its own (a clean peak memory): the load, the first token after
 * the prompt, greedy tokens/s after it, and the peak RSS: llama.cpp alone, and our loop on it.
 *   GGUF_FILES=/tmp/smollm2-135m-q8_0.gguf [THREADS_LIST=1,2] [PROMPT_TOKENS=650] [GEN=16] [ROUNDS=7]
 * [WHOLE=0] node dist/bench/gguf.bench.js
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Token } from 'node-llama-cpp';
import { greedy, topKSample, type SamplingOptions } from '../extension/engine/decode/sampling';
import type { StepModel } from '../extension/engine/decode/types';
import { llamaRuntime } from '../extension/engine/gguf/llamaRuntime';
import type { CausalLm } from '../extension/engine/hub/causalLm';
import { openCausalLm } from '../extension/engine/hub/hubSystems';
import { peakRssMB } from './report';

const FILES = (process.env.GGUF_FILES ?? '').split(',').filter(Boolean);
const THREADS = (process.env.THREADS_LIST ?? '1,2').split(',').map(Number);
const PROMPT_TOKENS = Number(process.env.PROMPT_TOKENS ?? 650);
const GEN = Number(process.env.GEN ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
/** WHOLE=0 leaves out the whole-distribution loop (the slow one, the path before). */
const WHOLE = process.env.WHOLE !== '0';
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

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

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

interface Alone {
  loadMs: number;
  firstMs: number;
  tokS: number;
  peakMB: number;
}

/** One runtime alone, greedy: what a child process prints. */
async function alone(file: string, threads: number, who: 'llama.cpp' | 'ours'): Promise<Alone> {
  const t0 = performance.now();
  const lm = await openCausalLm(
    { kind: 'gguf', file },
    'the bench',
    hub,
    { device: 'cpu', threads, log: () => {} },
    watch,
  );
  const ids = prompt(PROMPT_TOKENS, new Set(lm.banned));
  if (who === 'ours') {
    const loadMs = performance.now() - t0;
    const t1 = performance.now();
    const read = await lm.step.run(ids.slice(0, -1), lm.step.initial());
    let first = 0;
    const opts = { bos: ids[ids.length - 1], eos: lm.eos, maxLength: GEN + 1, minLength: GEN + 1, banned: lm.banned };
    await greedy(lm.step, read.state, opts, { onStep: (step) => void (step === 0 && (first = performance.now())) });
    return { loadMs, firstMs: first - t1, tokS: GEN / ((performance.now() - first) / 1000), peakMB: peakRssMB() };
  }
  await lm.opened.model.dispose();
  const { llama } = await llamaRuntime('cpu', () => {});
  const t2 = performance.now();
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 2048, threads });
  const loadMs = performance.now() - t2;
  let n = 0;
  let first = 0;
  const t1 = performance.now();
  for await (const _ of context
    .getSequence()
    .evaluate(ids as unknown as Token[], { temperature: 0, yieldEogToken: true })) {
    if (n === 0) first = performance.now();
    if (++n > GEN) break;
  }
  return { loadMs, firstMs: first - t1, tokS: GEN / ((performance.now() - first) / 1000), peakMB: peakRssMB() };
}

async function main() {
  const child = process.env.GGUF_CHILD;
  if (child) {
    const [file, threads, who] = child.split('|');
    process.stdout.write(`RESULT ${JSON.stringify(await alone(file, Number(threads), who as 'ours'))}\n`);
    return;
  }
  if (FILES.length === 0) {
    console.log(
      'GGUF_FILES=<file.gguf>[,...] names the files (make_gguf.py of ../shared/tools/llama-anchor writes them)',
    );
    return;
  }
  console.log(
    `prompt ${PROMPT_TOKENS} tokens, then ${GEN} tokens, medians of ${ROUNDS} interleaved rounds; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  console.log(
    '| model | threads | decoding | llama.cpp tokens/s | ours, ranked candidates | ratio | ours, whole ' +
      'distribution | ratio |',
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
        // Round by round, each runtime right after the other: on a shared machine the load moves within
        // seconds, so the median of each round's own ratio is what holds, not a ratio of best times.
        const ms = { theirs: [] as number[], ranked: [] as number[], whole: [] as number[] };
        for (let r = 0; r < ROUNDS; r++) {
          ms.theirs.push(await theirs(mode));
          ms.ranked.push(await ours(lm, lm.step as StepModel<unknown>, ids, mode));
          if (WHOLE) ms.whole.push(await ours(lm, wholeRows(lm), ids, mode));
        }
        const tps = (xs: number[]) => (xs.length ? (1000 / median(xs)).toFixed(1) : '–');
        const ratio = (xs: number[]) => (xs.length ? median(xs.map((x, r) => ms.theirs[r] / x)).toFixed(2) : '–');
        console.log(
          `| ${path.basename(file, '.gguf')} | ${threads} | ${mode} | ${tps(ms.theirs)} | ${tps(ms.ranked)} | ` +
            `${ratio(ms.ranked)} | ${tps(ms.whole)} | ${ratio(ms.whole)} |`,
        );
      }
      await context.dispose();
      await model.dispose();
      await lm.opened.model.dispose();
    }
  console.log('\n| model | threads | runtime | load s | first token s | greedy tokens/s | peak RSS MB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const file of FILES)
    for (const threads of THREADS)
      for (const who of ['llama.cpp', 'ours']) {
        const run = spawnSync(process.execPath, [__filename], {
          env: { ...process.env, GGUF_CHILD: `${file}|${threads}|${who}` },
          encoding: 'utf8',
        });
        const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
        const name =
          `| ${path.basename(file, '.gguf')} | ${threads} | ` + `${who === 'ours' ? 'our loop on llama.cpp' : who} |`;
        if (!line) {
          console.log(`${name} failed: ${(run.stderr || run.stdout).split('\n').slice(-3).join(' ')} |`);
          continue;
        }
        const m = JSON.parse(line.slice(7)) as Alone;
        console.log(
          `${name} ${(m.loadMs / 1000).toFixed(2)} | ${(m.firstMs / 1000).toFixed(2)} | ${m.tokS.toFixed(1)} | ` +
            `${m.peakMB.toFixed(0)} |`,
        );
      }
  console.log(
    `load average after: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
}

void main();
