/**
 * Hub language models at their real sizes: random weights with the real shapes of SmolLM2-135M,
 * SmolLM2-360M and Qwen2.5-0.5B (q4 and int8 files, as their repositories ship them), made by
 * models/train/draftsmith_train/hub_fixtures.py --real-size into .work/real-size (git-ignored). Per
 * model, data type and thread count, in a process of its own (a clean peak memory): the load, the
 * first token after a 500-word prompt, tokens/s of our loop (hub/causalStep.ts: chunked prefill,
 * last-position logits) and of transformers.js's generate() on the same files, prompt and session
 * options (greedy, the same number of tokens), and the peak memory; for the smallest, the peak
 * memory after 1,000- and 4,000-token prompts. Prints numbers; asserts nothing.
 * The fixtures' tokenizers are random, and cut 500 English words into about twice the tokens the
 * real ones do (about 1.3 a word): the prompt is cut to PROMPT_TOKENS (650) so that the first token
 * is timed on what a real 500-word prompt costs. Tokens/s after the first token (decoding alone) is
 * given for both loops; transformers.js's first token is timed by a generate() of one token.
 *   node dist/bench/hubRealSize.bench.js    (REAL_SIZE_DIR, THREADS_LIST, HUB_TOKENS, PROMPT_TOKENS, MODELS=regex,
 *     REWRITE=off|exact|int8, DTYPES=q4,int8, LONG=0)
 */
import * as path from 'node:path';
import type { Dtype } from '../extension/engine/hub/fileChoice';
import { openHubCausalLm } from '../extension/engine/hub/hubSystems';
import { PrefixCache } from '../extension/engine/hub/prefixCache';
import { HubConfig } from '../extension/protocol';
import { root } from './loopBench';
import { eachRealSizeRun, measureInChild } from './realSizeRuns';
import { peakRssMB, Reporter } from './report';

const TOKENS = Number(process.env.HUB_TOKENS ?? 32);
const PROMPT_TOKENS = Number(process.env.PROMPT_TOKENS ?? 650);
/** The graphs as downloaded (off), rewritten exactly (exact, what the editor runs), or with int8 4-bit products. */
const REWRITE = process.env.REWRITE ?? 'exact';
const PARAGRAPH =
  'The river ran low that summer, and the children of the village walked its dry bed every morning, looking ' +
  'for the things the water had hidden for years: coins, a bell, the blade of a plough, and once a letter ' +
  'sealed in a bottle. ';
/** About 500 words. */
const PROMPT = PARAGRAPH.repeat(12);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const watch = { progress: () => {}, isCancelled: () => false };
const argmax = (a: Float32Array, from = 0, n = a.length) => {
  let best = from;
  for (let i = from; i < from + n; i++) if (a[i] > a[best]) best = i;
  return best - from;
};

interface Measured {
  loadMs: number;
  promptTokens: number;
  firstTokenMs: number;
  ours: number;
  theirs: number;
  /** Tokens/s after the first token. */
  oursDecode: number;
  theirsDecode: number;
  /** CPU time (every thread) per token after the first: the number a loaded machine does not distort. */
  oursDecodeCpuMs: number;
  theirsDecodeCpuMs: number;
  theirsFirstMs: number;
  /** The first token when the story was read before and 20 tokens were added (hub/prefixCache.ts). */
  cachedFirstTokenMs: number;
  peakMB: number;
  /** Peak memory after our loop, before transformers.js's generate() ran. */
  oursPeakMB: number;
  loadCpuMs: number;
  long?: { tokens: number; peakMB: number }[];
}

/** One model, data type and thread count: what the parent prints. */
async function measure(dir: string, dtype: Dtype, threads: number, long: boolean): Promise<Measured> {
  const hub = HubConfig.parse({
    endpoint: 'http://127.0.0.1:9/',
    cacheDir: path.join(root, '.work', 'bench-cache'),
    offline: true,
  });
  const runtime = { device: 'cpu' as const, threads, log: () => {} };
  let t0 = performance.now();
  const loadCpu = process.cpuUsage();
  const lm = await openHubCausalLm({ kind: 'folder', dir }, 'the bench', hub, runtime, watch, {
    prefer: dtype,
    rewriteGraphs: REWRITE !== 'off',
    int8Compute: REWRITE === 'int8',
  });
  const loadMs = performance.now() - t0;
  const loaded = { loadCpuMs: cpuMs(loadCpu) };
  try {
    const ids = lm.opened.tokenizer.encode(PROMPT, { add_special_tokens: false }).slice(0, PROMPT_TOKENS);
    // Ours: the prompt in chunks, then greedy steps.
    t0 = performance.now();
    let out = await lm.step.run(ids, lm.step.initial());
    let next = argmax(out.logProbs);
    const firstTokenMs = performance.now() - t0;
    const c0 = process.cpuUsage();
    for (let i = 1; i < TOKENS; i++) {
      const s = await lm.step.step([next], out.state);
      out = { logProbs: s.logProbs, state: s.state };
      next = argmax(s.logProbs);
    }
    const oursMs = performance.now() - t0;
    const oursDecodeCpuMs = cpuMs(c0) / (TOKENS - 1);
    // Before transformers.js's generate() below, which holds a whole prompt's logits and caches of its own.
    const oursPeakMB = peakRssMB();
    // Continued again: the story read before, 20 tokens written on since.
    const cache = new PrefixCache(lm.step);
    await cache.read(ids.slice(0, ids.length - 20));
    t0 = performance.now();
    const { state: again } = await cache.read(ids.slice(0, -1));
    await lm.step.step([ids[ids.length - 1]], again);
    const cachedFirstTokenMs = performance.now() - t0;
    const ours = TOKENS / (oursMs / 1000);
    const oursDecode = (TOKENS - 1) / ((oursMs - firstTokenMs) / 1000);
    // transformers.js's generate() on the same sessions: the same prompt ids, the same number of tokens.
    if (process.env.THEIRS === '0') {
      const none = { theirs: NaN, theirsDecode: NaN, theirsFirstMs: NaN, theirsDecodeCpuMs: NaN };
      const { loadCpuMs } = loaded;
      return {
        loadMs,
        loadCpuMs,
        promptTokens: ids.length,
        firstTokenMs,
        ours,
        oursDecode,
        oursDecodeCpuMs,
        oursPeakMB,
        cachedFirstTokenMs,
        peakMB: peakRssMB(),
        ...none,
      };
    }
    const full = lm.opened.tokenizer(PROMPT, { add_special_tokens: false });
    const cut: [number, number] = [0, ids.length];
    const input = { input_ids: full.input_ids.slice(null, cut), attention_mask: full.attention_mask.slice(null, cut) };
    const generate = async (n: number) => {
      const t = performance.now();
      const c = process.cpuUsage();
      await lm.opened.model.generate({ ...input, max_new_tokens: n, min_new_tokens: n, do_sample: false });
      return [performance.now() - t, cpuMs(c)];
    };
    const [theirsFirstMs, theirsFirstCpu] = await generate(1);
    const [theirsMs, theirsCpu] = await generate(TOKENS);
    const theirsDecodeCpuMs = (theirsCpu - theirsFirstCpu) / (TOKENS - 1);
    const theirs = TOKENS / (theirsMs / 1000);
    const theirsDecode = (TOKENS - 1) / (Math.max(1, theirsMs - theirsFirstMs) / 1000);
    const result: Measured = {
      loadMs,
      promptTokens: ids.length,
      firstTokenMs,
      ours,
      theirs,
      oursDecode,
      theirsDecode,
      theirsFirstMs,
      oursDecodeCpuMs,
      theirsDecodeCpuMs,
      oursPeakMB,
      loadCpuMs: loaded.loadCpuMs,
      cachedFirstTokenMs,
      peakMB: peakRssMB(),
    };
    if (long) {
      result.long = [];
      for (const n of [1000, 4000]) {
        const many = Array.from({ length: n }, (_, i) => ids[i % ids.length]);
        await lm.step.run(many, lm.step.initial());
        result.long.push({ tokens: n, peakMB: peakRssMB() });
      }
    }
    return result;
  } finally {
    await lm.opened.model.dispose();
  }
}

(async () => {
  if (await measureInChild((run) => measure(run.dir, run.dtype, run.threads, run.extra))) return;
  const r = new Reporter('hubRealSize');
  // The long prompts' memory once: the smallest model's q4 file at the last thread count.
  const extra = (run: { name: string; dtype: Dtype }, last: boolean) =>
    run.name.startsWith('SmolLM2-135M') && run.dtype === 'q4' && last && process.env.LONG !== '0';
  eachRealSizeRun<Measured>(r, 'Hub models at real size', { extra }, (m) => {
    r.row('load', m.loadMs, 'ms', `CPU ${m.loadCpuMs.toFixed(0)} ms`);
    r.row(`first token after a ${m.promptTokens}-token prompt (500 words)`, m.firstTokenMs, 'ms');
    // THEIRS=0 leaves transformers.js's generate() out (null in the child's JSON).
    const theirs = typeof m.theirsDecode === 'number';
    if (theirs) r.row("transformers.js's first token, the same", m.theirsFirstMs, 'ms');
    r.row('first token with the story read before and 20 tokens added since', m.cachedFirstTokenMs, 'ms');
    r.row(
      'decoding after the first token, ours',
      m.oursDecode,
      'tokens/s',
      theirs
        ? `ours / theirs = ${(m.oursDecode / m.theirsDecode).toFixed(2)} (theirs ${m.theirsDecode.toFixed(1)})`
        : '',
    );
    r.row(
      'CPU time per token after the first, ours',
      m.oursDecodeCpuMs,
      'ms',
      theirs ? `transformers.js's ${m.theirsDecodeCpuMs.toFixed(1)} ms` : '',
    );
    r.row(`our loop, greedy ${TOKENS} tokens with the prompt`, m.ours, 'tokens/s');
    if (theirs)
      r.row(
        "transformers.js's generate(), the same",
        m.theirs,
        'tokens/s',
        `ours / theirs = ${(m.ours / m.theirs).toFixed(2)}`,
      );
    r.row('peak memory, our loop', m.oursPeakMB, 'MB');
    r.row('peak memory', m.peakMB, 'MB');
    for (const l of m.long ?? []) r.row(`peak memory after a ${l.tokens}-token prompt`, l.peakMB, 'MB');
  });
  r.done();
})();
