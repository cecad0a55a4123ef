#!/usr/bin/env node
// Runs an exported story folder (export_story.py) in onnxruntime-node, 1 thread, and checks it
// against PyTorch: the decoder's and the premise model's first-step log-probabilities, the greedy
// continuation and its fusion gates (the parity fixture), and a few log-probabilities at every
// greedy step (BENCH_DIR/torch_reference.json). Then it measures the two ways to stream a story:
// the exported step with incremental state, and recomputing the whole prefix every step
// (BENCH_DIR/decoder_full.onnx). Prints one JSON object.
//
//   node models/train/check_story_onnx.cjs MODEL_DIR FIXTURE.json BENCH_DIR [steps]
//   (onnxruntime-node from the repository's node_modules, or NODE_PATH=/path/to/node_modules)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ort, opts, i64, argmax, maxDiff } = require('./onnx_check.cjs');

const dir = process.argv[2];
const fixture = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const bench = process.argv[4];
const steps = Number(process.argv[5] || 200);
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
const ref = JSON.parse(fs.readFileSync(path.join(bench, 'torch_reference.json'), 'utf8'));

const zeros = (shape) => {
  const dims = shape.map((d) => (d === 'batch' ? 1 : d));
  return new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);
};
// Probed ids: a few fixed ones and the last of the vocabulary (8,000 or 4,000 pieces), as export_story.py's reference.
const PROBE = [0, 3, 100, 1000, manifest.architecture.vocabSize - 1];

async function main() {
  const t0 = Date.now();
  const enc = await ort.InferenceSession.create(path.join(dir, manifest.files.encoder), opts);
  const dec = await ort.InferenceSession.create(path.join(dir, manifest.files.decoder), opts);
  const pre = await ort.InferenceSession.create(path.join(dir, manifest.files.premise), opts);
  const loadMs = Date.now() - t0;
  const S = fixture.input_ids.length;
  const ids = i64(fixture.input_ids, [1, S]);
  const mask = i64(new Array(S).fill(1), [1, S]);
  const tEnc = performance.now();
  const encOut = await enc.run({ input_ids: ids, attention_mask: mask });
  const encMs = performance.now() - tEnc;

  // One step of a decoder with incremental state: every past_* input gets the previous present_*.
  async function stepper(session, stateSpec, fixed) {
    let state = Object.fromEntries(stateSpec.map((s) => [s.name, zeros(s.shape)]));
    let pos = 0;
    return async (tok) => {
      const feeds = { input_ids: i64([tok], [1, 1]), position: i64([pos], [1]), ...state };
      for (const n of session.inputNames) if (!(n in feeds) && fixed[n]) feeds[n] = fixed[n];
      const out = await session.run(feeds);
      state = Object.fromEntries(Object.keys(state).map((n) => [n, out[n.replace('past', 'present')]]));
      pos += 1;
      return out;
    };
  }
  const fixed = { attention_mask: mask, ...encOut };
  const report = { device: 'onnxruntime-node ' + require('onnxruntime-node/package.json').version + ', CPU, 1 thread' };

  // ---- decoder parity: first step, greedy ids, gates, probes at every step ---------------------
  let step = await stepper(dec, manifest.architecture.state, fixed);
  let out = await step(manifest.specialTokens.bos);
  report.decoder_first_step_max_abs_diff = maxDiff(out.log_probs.data, ref.decoder_first_log_probs);
  const greedy = [];
  let gateDiff = 0,
    probeDiff = 0,
    lp = out;
  for (let t = 0; t < fixture.greedy_ids.length; t++) {
    const k = argmax(lp.log_probs.data);
    greedy.push(k);
    probeDiff = Math.max(
      probeDiff,
      maxDiff(
        PROBE.map((i) => lp.log_probs.data[i]),
        ref.decoder_greedy_step_log_probs[t],
      ),
    );
    if (fixture.greedy_gates) gateDiff = Math.max(gateDiff, maxDiff(lp.fusion_gates.data, fixture.greedy_gates[t]));
    if (k === manifest.specialTokens.eos) break;
    if (t + 1 < fixture.greedy_ids.length) lp = await step(k);
  }
  report.greedy_ids_equal = JSON.stringify(greedy) === JSON.stringify(fixture.greedy_ids);
  report.decoder_greedy_probe_max_abs_diff = probeDiff;
  if (fixture.greedy_gates) report.fusion_gates_max_abs_diff = gateDiff;

  // ---- premise parity ----------------------------------------------------------------------------
  const pstep = await stepper(pre, manifest.architecture.premise.state, {});
  let p = await pstep(manifest.specialTokens.bos);
  report.premise_first_step_max_abs_diff = maxDiff(p.log_probs.data, ref.premise_first_log_probs);
  const pg = [];
  for (let t = 0; t < fixture.premise.greedy_ids.length; t++) {
    const k = argmax(p.log_probs.data);
    pg.push(k);
    if (k === manifest.specialTokens.eos) break;
    p = await pstep(k);
  }
  report.premise_greedy_ids_equal = JSON.stringify(pg) === JSON.stringify(fixture.premise.greedy_ids);

  // ---- whole-prefix graph against PyTorch --------------------------------------------------------
  const full = await ort.InferenceSession.create(path.join(bench, 'decoder_full.onnx'), opts);
  const fullFeeds = (prefix) => {
    const f = { input_ids: i64(prefix, [1, prefix.length]) };
    for (const n of full.inputNames) if (!(n in f)) f[n] = fixed[n];
    return f;
  };
  const fo = await full.run(fullFeeds(ref.full_prefix));
  report.full_prefix_max_abs_diff = maxDiff(fo.log_probs.data, ref.full_last_log_probs);

  // ---- streaming: incremental step vs recompute from the whole prefix ----------------------------
  // Greedy with </s> masked, so both run `steps` tokens.
  const eos = manifest.specialTokens.eos;
  const pick = (a) => {
    a[eos] = -Infinity;
    return argmax(a);
  };
  step = await stepper(dec, manifest.architecture.state, fixed);
  let tok = manifest.specialTokens.bos;
  const seq = [tok];
  const tInc = performance.now();
  for (let t = 0; t < steps; t++) {
    tok = pick((await step(tok)).log_probs.data);
    seq.push(tok);
  }
  const incMs = (performance.now() - tInc) / steps;
  const tFull = performance.now();
  let fullTokens = [];
  for (let t = 1; t <= steps; t++) fullTokens.push(pick((await full.run(fullFeeds(seq.slice(0, t)))).log_probs.data));
  const fullMs = (performance.now() - tFull) / steps;
  report.streaming = {
    steps,
    incremental_ms_per_step: +incMs.toFixed(2),
    recompute_ms_per_step: +fullMs.toFixed(2),
    incremental_tokens_per_s: Math.round(1000 / incMs),
    same_tokens: JSON.stringify(fullTokens) === JSON.stringify(seq.slice(1)),
    load_ms: loadMs,
    encoder_ms: +encMs.toFixed(2),
  };
  // Premise steps, for the speed of the hierarchical first stage.
  const ps = await stepper(pre, manifest.architecture.premise.state, {});
  const tP = performance.now();
  tok = manifest.specialTokens.bos;
  for (let t = 0; t < 60; t++) tok = pick((await ps(tok)).log_probs.data);
  report.streaming.premise_ms_per_step = +((performance.now() - tP) / 60).toFixed(2);
  console.log(JSON.stringify(report, null, 1));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
