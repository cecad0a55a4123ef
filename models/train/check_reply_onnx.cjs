#!/usr/bin/env node
// Runs an exported reply folder (export_reply.py) in onnxruntime-node, 1 thread: the encoder, the
// memory read of the fixture's key (Eqs. 11-12, beta from keys.json) and greedy decoding with the step
// graph, and checks them against the PyTorch parity fixture. Prints one JSON object; exits 1 on a mismatch.
//
//   node models/train/check_reply_onnx.cjs MODEL_DIR FIXTURE.json
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ort, opts, i64, argmax, maxDiff, top5 } = require('./onnx_check.cjs');

const dir = process.argv[2];
const fx = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const m = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));

function half(u) {
  // IEEE float16 -> number
  const s = u & 0x8000 ? -1 : 1,
    e = (u >> 10) & 0x1f,
    f = u & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

async function main() {
  const enc = await ort.InferenceSession.create(path.join(dir, m.files.encoder), opts);
  const dec = await ort.InferenceSession.create(path.join(dir, m.files.decoderStep), opts);
  const ids = fx.input_ids;
  const e = await enc.run({ input_ids: i64(ids, [1, ids.length]) });
  const report = { model: fx.model, key: fx.key, state_first_max_abs_diff: maxDiff(e.state.data, fx.state_first) };
  let read = null;
  if (m.architecture.memory) {
    const keys = JSON.parse(fs.readFileSync(path.join(dir, m.files.keys), 'utf8'));
    const raw = fs.readFileSync(path.join(dir, m.files.memory));
    const u16 = new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2);
    const k = keys.keys.indexOf(fx.key),
      L = keys.slots,
      D = keys.dim;
    const p = e.query.data;
    const rows = [];
    for (let l = 0; l < L; l++) rows.push(Array.from({ length: D }, (_, d) => half(u16[(k * L + l) * D + d])));
    const scores = rows.map((row) =>
      row.some((x) => x !== 0) ? keys.beta * row.reduce((s, x, d) => s + x * p[d], 0) : -Infinity,
    );
    const top = Math.max(...scores);
    const w = scores.map((s) => Math.exp(s - top));
    const z = w.reduce((a, b) => a + b, 0);
    read = Float32Array.from({ length: D }, (_, d) => rows.reduce((s, row, l) => s + (w[l] / z) * row[d], 0));
    report.read_weights_max_abs_diff = maxDiff(
      w.map((x) => x / z),
      fx.read_weights,
    );
    report.read_first_max_abs_diff = maxDiff(read, fx.read_first);
  }
  let state = e.state,
    tok = m.specialTokens.bos;
  const out = [];
  for (let t = 0; t < fx.max_length; t++) {
    const feeds = { input_ids: i64([tok], [1, 1]), state, encoder_outputs: e.encoder_outputs };
    if (read) feeds.memory_read = new ort.Tensor('float32', read, [1, read.length]);
    const r = await dec.run(feeds);
    if (t === 0)
      report.first_log_probs_top_equal =
        JSON.stringify(top5(r.log_probs.data)) === JSON.stringify(fx.first_log_probs_top);
    state = r.state_out;
    tok = argmax(r.log_probs.data);
    if (tok === m.specialTokens.eos) break;
    out.push(tok);
  }
  report.greedy_ids_equal = JSON.stringify(out) === JSON.stringify(fx.greedy_ids);
  console.log(JSON.stringify(report, null, 1));
  if (!report.greedy_ids_equal) process.exit(1);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
