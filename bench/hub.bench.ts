/**
 * Hub models: a model in transformers.js's layout, served by a loopback Hub on this
 * machine, as a user's first Continue Story with it goes: the download into an empty cache, the
 * load, and tokens/s through our decoding loop (hub/causalStep.ts) beside transformers.js's own
 * generate() on the same weights and the same session options (greedy, a fixed number of tokens,
 * so both do the same work). Prints numbers; asserts nothing.
 *   node dist/bench/hub.bench.js     (THREADS, HUB_TOKENS)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { causalStepOf } from '../extension/engine/hub/hubSystems';
import { openHubModel } from '../extension/engine/hub/hubModel';
import { HubConfig, type StoryResult } from '../extension/protocol';
import { HubStorySystem } from '../extension/engine/systems/hubStory';
import { startLoopbackHub, STORY_LM, STORY_LM_WEIGHTS } from '../test/unit/loopbackHub';
import { root } from './loopBench';
import { median, peakRssMB, Reporter } from './report';

const PROMPT = 'A lighthouse keeper finds a message in a bottle that was written by her own hand.';
const context = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };

(async () => {
  const threads = Number(process.env.THREADS ?? 1);
  const tokens = Number(process.env.HUB_TOKENS ?? 100);
  const r = new Reporter('hub');
  const runtime = { device: 'cpu' as const, threads, log: () => {} };
  const fixtures = path.join(root, 'test', 'fixtures', 'hub');
  const server = await startLoopbackHub(fixtures);
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-hub-bench-'));
  try {
    const hub = HubConfig.parse({ endpoint: server.endpoint, cacheDir });
    const files = [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'generation_config.json',
      STORY_LM_WEIGHTS,
    ];
    const bytes = files.reduce((a, f) => a + statSync(path.join(fixtures, STORY_LM, f)).size, 0);
    r.section(
      `Hub model ${STORY_LM} (a GPT-2 trained by models/train/draftsmith_train/causal_lm.py), threads ${threads}`,
    );

    // First use: an empty cache, everything from the loopback Hub.
    let t0 = performance.now();
    const first = await HubStorySystem.load({ kind: 'hub', id: STORY_LM }, hub, runtime, watch);
    const firstMs = performance.now() - t0;
    await first.dispose();
    r.row(
      'first use: download from a loopback Hub + load',
      firstMs,
      'ms',
      `${(bytes / 1024 / 1024).toFixed(1)} MB in ${files.length} files, ${server.requests.length} requests`,
    );
    t0 = performance.now();
    const system = await HubStorySystem.load({ kind: 'hub', id: STORY_LM }, hub, runtime, watch);
    r.row('later use: load from the cache', performance.now() - t0, 'ms');

    // Greedy, `tokens` new tokens each, both on the same session options.
    const opened = await openHubModel({ kind: 'hub', id: STORY_LM }, 'causal-lm', 'the bench', hub, runtime, watch);
    const { step } = causalStepOf(opened);
    const ids = [2, ...opened.tokenizer.encode(PROMPT, { add_special_tokens: false })];
    const ours: number[] = [];
    const theirs: number[] = [];
    // Run 0 warms both up (onnxruntime's first runs allocate); runs 1-5 are timed.
    for (let run = 0; run <= 5; run++) {
      t0 = performance.now();
      let out = await step.run(ids, step.initial());
      for (let i = 1; i < tokens; i++) {
        let best = 0;
        for (let v = 1; v < out.logProbs.length; v++) if (out.logProbs[v] > out.logProbs[best]) best = v;
        out = await step.run([best], out.state);
      }
      if (run > 0) ours.push(tokens / ((performance.now() - t0) / 1000));
      const input = opened.tokenizer(PROMPT, { add_special_tokens: false });
      t0 = performance.now();
      await opened.model.generate({ ...input, max_new_tokens: tokens, min_new_tokens: tokens, do_sample: false });
      if (run > 0) theirs.push(tokens / ((performance.now() - t0) / 1000));
    }
    const o = median(ours),
      t = median(theirs);
    r.row(
      `our loop, greedy ${tokens} tokens (median of 5)`,
      o,
      'tokens/s',
      'hub/causalStep.ts: prompt in one call, then one token per call',
    );
    r.row(
      `transformers.js generate(), greedy ${tokens} tokens (median of 5)`,
      t,
      'tokens/s',
      'the same weights and session options',
    );
    r.row('ours / transformers.js', o / t, '×');
    await opened.model.dispose();

    // The command's own path: top-k sampling, the text decoded and streamed after every token.
    const perSecond: number[] = [];
    for (let seed = 0; seed < 5; seed++) {
      const res = (await system.run(
        { op: 'story', prompt: PROMPT, words: 2000, sampling: { seed } },
        context,
      )) as StoryResult;
      perSecond.push(res.stats.tokensPerSecond);
    }
    r.row(
      'Continue Story with the Hub model: tokens/s (median over 5 seeds)',
      median(perSecond),
      'tokens/s',
      'top-k 10, streamed',
    );
    r.row('peak RSS', peakRssMB(), 'MB');
    r.summary({
      model: STORY_LM,
      variant: 'hub (int8 storage)',
      threads,
      loadMs: firstMs,
      greedyTokensPerSecond: o,
      peerOverOurs: t / o,
      peakRssMB: peakRssMB(),
      sizeMB: bytes / 1024 / 1024,
    });
    await system.dispose();
  } finally {
    await server.close();
    rmSync(cacheDir, { recursive: true, force: true });
    r.done();
  }
})();
