/**
 * Rewrite Selection at the instruct models' real sizes: random weights with the real shapes of
 * SmolLM2-135M-Instruct, SmolLM2-360M-Instruct and Qwen2.5-0.5B-Instruct (q4 and int8 files, as their
 * repositories ship them; models/train/draftsmith_train/hub_fixtures.py --real-size into
 * .work/real-size, git-ignored). Per model, data type and thread count, in a process of its own: the
 * load, the first token of the rewrite of a 100-word paragraph (the prompt through the chat template
 * read, then one step), and tokens/s of the rewrite's greedy loop. Random weights never end early,
 * so every run writes REWRITE_TOKENS tokens. Prints numbers; asserts nothing.
 *   node dist/bench/rewrite.bench.js    (REAL_SIZE_DIR, THREADS_LIST, REWRITE_TOKENS)
 */
import * as path from 'node:path';
import type { Dtype } from '../extension/engine/hub/fileChoice';
import { openCausalLm } from '../extension/engine/hub/hubSystems';
import { HubRewriteSystem } from '../extension/engine/systems/hubRewrite';
import { countWords } from '../extension/engine/text/words';
import { HubConfig } from '../extension/protocol';
import { root } from './loopBench';
import { eachRealSizeRun, measureInChild } from './realSizeRuns';
import { Reporter } from './report';

const TOKENS = Number(process.env.REWRITE_TOKENS ?? 48);
/** 100 words of plain prose, the size of a paragraph a writer selects. */
const PARAGRAPH =
  'The committee have met on Tuesday to discuss the state of the old bridge over the river, which has been closed to ' +
  'lorries since the spring floods. After a long debate, in which several members argued that the repairs were too ' +
  ('expensive for a small town, it was decided by a narrow vote that the bridge would be repaired rather than ' +
    'replaced. ') +
  'The work is expected to begin in the autumn and to last about six months, during which time a ferry will carry ' +
  'foot passengers across the water. Residents will be asked for their views at a public meeting next month.';
const watch = { progress: () => {}, isCancelled: () => false };
const quiet = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

interface Measured {
  loadMs: number;
  promptTokens: number;
  firstTokenMs: number;
  outputTokens: number;
  tokensPerSecond: number;
}

async function measure(dir: string, dtype: Dtype, threads: number): Promise<Measured> {
  const hub = HubConfig.parse({
    endpoint: 'http://127.0.0.1:9/',
    cacheDir: path.join(root, '.work', 'bench-cache'),
    offline: true,
  });
  const runtime = { device: 'cpu' as const, threads, log: () => {} };
  const t0 = performance.now();
  const lm = await openCausalLm({ kind: 'folder', dir }, 'the bench', hub, runtime, watch, { prefer: dtype });
  const system = await HubRewriteSystem.on(lm);
  const loadMs = performance.now() - t0;
  try {
    const r = await system.run({ op: 'rewrite', text: PARAGRAPH, preset: 'shorter', maxTokens: TOKENS }, quiet);
    return {
      loadMs,
      promptTokens: r.stats.usedInputTokens,
      firstTokenMs: r.firstTokenMs,
      outputTokens: r.stats.outputTokens,
      tokensPerSecond: r.stats.tokensPerSecond,
    };
  } finally {
    await system.dispose();
  }
}

(async () => {
  if (await measureInChild((run) => measure(run.dir, run.dtype, run.threads))) return;
  const r = new Reporter('rewrite');
  eachRealSizeRun<Measured>(r, 'Rewrite Selection at real size', { models: (name) => /Instruct/.test(name) }, (m) => {
    r.row('load', m.loadMs, 'ms');
    r.row(
      `first token of the rewrite of a ${countWords(PARAGRAPH)}-word paragraph (${m.promptTokens}-token prompt)`,
      m.firstTokenMs,
      'ms',
    );
    r.row(`the rewrite's greedy loop, ${m.outputTokens} tokens`, m.tokensPerSecond, 'tokens/s');
  });
  r.done();
})();
