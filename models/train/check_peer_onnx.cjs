#!/usr/bin/env node
// Runs a shipped summarize or essay folder (encoder.onnx, decoder.onnx, with their own inputs and
// outputs) in onnxruntime-node, 1 thread, on the check input export_peer.py wrote, and compares with
// the PyTorch model the peer was traced from: the encoder's cross_key_values, the first step's
// log-probs and greedy ids (no end-of-text stop). Prints one JSON object; exits 1 on a mismatch.
//
//   node models/train/check_peer_onnx.cjs SHIPPED_DIR PEER_DIR/parts/shipped_check.json
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ort, opts, i64, argmax, maxDiff } = require('./onnx_check.cjs');

const TOL = 1e-3; // float32 PyTorch vs onnxruntime on the same (int8-rounded) weights

async function main() {
  const [dir, file] = process.argv.slice(2);
  const ref = JSON.parse(fs.readFileSync(file, 'utf8'));
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const enc = await ort.InferenceSession.create(path.join(dir, m.files.encoder), opts);
  const dec = await ort.InferenceSession.create(path.join(dir, m.files.decoder), opts);
  const ids = ref.inputs.input_ids;
  const T = ids.length;
  const feeds = {
    attention_mask: i64(
      ids.map(() => 1),
      [1, T],
    ),
  };
  for (const [k, v] of Object.entries(ref.inputs)) feeds[k] = i64(v, [1, T]);
  const e = await enc.run(feeds);
  const report = {
    system: m.system,
    cross_key_values_max_abs_diff: maxDiff(e.cross_key_values.data, ref.cross_key_values),
  };
  // cross_key_values [L,2,1,H,M,dh] -> the decoder's one key and one value tensor per layer
  const [L, , , H, M, dh] = e.cross_key_values.dims;
  const n = H * M * dh;
  const slice = (j) => new ort.Tensor('float32', e.cross_key_values.data.slice(j * n, (j + 1) * n), [1, H, M, dh]);
  const fixed = { memory_mask: e.memory_mask, source_context: e.source_context, source_ids: i64(ids, [1, T]) };
  let past = {
    past_context_sum: new ort.Tensor('float32', new Float32Array(L * m.architecture.dModel), [
      L,
      1,
      m.architecture.dModel,
    ]),
  };
  for (let i = 0; i < L; i++) {
    fixed[`cross_key_values.${i}.key`] = slice(2 * i);
    fixed[`cross_key_values.${i}.value`] = slice(2 * i + 1);
    for (const kv of ['key', 'value'])
      past[`past_key_values.${i}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, dh]);
  }
  const out = [];
  let tok = m.specialTokens.bos;
  for (let t = 0; t < ref.greedy_ids.length; t++) {
    const all = { ...fixed, ...past, input_ids: i64([tok], [1, 1]) };
    const missing = dec.inputNames.filter((k) => !all[k]);
    if (missing.length) throw new Error(`no feed for ${missing.join(', ')}`);
    const r = await dec.run(Object.fromEntries(dec.inputNames.map((k) => [k, all[k]])));
    if (t === 0) report.first_log_probs_max_abs_diff = maxDiff(r.log_probs.data, ref.first_log_probs);
    tok = argmax(r.log_probs.data);
    out.push(tok);
    past = { past_context_sum: r.present_context_sum };
    for (let i = 0; i < L; i++)
      for (const kv of ['key', 'value']) past[`past_key_values.${i}.${kv}`] = r[`present.${i}.${kv}`];
  }
  report.greedy_steps = out.length;
  report.greedy_ids_equal = JSON.stringify(out) === JSON.stringify(ref.greedy_ids);
  if (!report.greedy_ids_equal) report.greedy_ids = { shipped: out, pytorch: ref.greedy_ids };
  console.log(JSON.stringify(report));
  if (
    !report.greedy_ids_equal ||
    !(report.cross_key_values_max_abs_diff < TOL) ||
    !(report.first_log_probs_max_abs_diff < TOL)
  )
    process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
