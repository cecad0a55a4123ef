#!/usr/bin/env node
// Runs an exported Round-Trip folder (export_roundtrip.py) in onnxruntime-node, 1 thread, with the
// greedy decoding of RoundTrip.greedy (model.json "decoding"), and checks it against the PyTorch
// parity fixture: the encoder's and first steps' values and the greedy ids. Prints one JSON object.
// It is also the reference for the TypeScript system (extension/engine/systems/roundtrip).
//
//   node models/train/check_roundtrip_onnx.cjs MODEL_DIR FIXTURE.json
//   (onnxruntime-node from the repository's node_modules, or NODE_PATH=/path/to/node_modules)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ort, opts, i64, argmax, maxDiff, top5 } = require('./onnx_check.cjs');

const dir = process.argv[2];
const fx = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const m = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
const { bos, eos, pad } = m.specialTokens;

async function main() {
  const t0 = performance.now();
  const load = (f) => ort.InferenceSession.create(path.join(dir, f), opts);
  const enc = await load(m.files.encoder);
  const word = await load(m.files.wordStep);
  const sent = m.files.sentenceStep ? await load(m.files.sentenceStep) : null;
  const report = { model: fx.model, load_ms: +(performance.now() - t0).toFixed(1) };
  const sentences = fx.sentence_ids;
  const total = sentences.reduce((a, s) => a + s.length, 0);
  const budget = Math.ceil(1.5 * total);
  const tEnc = performance.now();
  let out = [];
  if (!sent) {
    const ids = sentences.flat().reverse();
    const e = await enc.run({ input_ids: i64(ids, [1, ids.length]) });
    report.encoder_ms = +(performance.now() - tEnc).toFixed(2);
    report.h_first_max_abs_diff = maxDiff(
      Array.from(e.h.data).slice(e.h.data.length - m.architecture.hidden),
      fx.h_first,
    );
    let h = e.h,
      c = e.c,
      tok = bos;
    const words = [];
    for (let t = 0; t < budget; t++) {
      const r = await word.run({ input_ids: i64([tok], [1, 1]), h, c });
      if (t === 0)
        report.first_log_probs_top_equal =
          JSON.stringify(top5(r.log_probs.data)) === JSON.stringify(fx.first_log_probs_top);
      h = r.h_out;
      c = r.c_out;
      tok = argmax(r.log_probs.data);
      if (tok === eos) break;
      words.push(tok);
    }
    out = [words];
  } else {
    const rows = sentences
      .slice()
      .reverse()
      .map((s) => s.slice().reverse());
    const T = Math.max(...rows.map((r) => r.length));
    const flat = rows.flatMap((r) => r.concat(new Array(T - r.length).fill(pad)));
    const e = await enc.run({
      input_ids: i64(flat, [rows.length, T]),
      lengths: i64(
        rows.map((r) => r.length),
        [rows.length],
      ),
    });
    report.encoder_ms = +(performance.now() - tEnc).toFixed(2);
    report.memory_first_max_abs_diff = maxDiff(e.memory.data, fx.memory_first);
    let h = e.h,
      c = e.c,
      prev = e.start,
      used = 0;
    const perSentence = Math.ceil(1.5 * Math.max(...sentences.map((s) => s.length)));
    const H = m.architecture.hidden;
    for (let k = 0; k < Math.ceil(1.5 * sentences.length); k++) {
      const feeds = { prev, h, c };
      if (sent.inputNames.includes('memory')) feeds.memory = e.memory;
      const s = await sent.run(feeds);
      h = s.h_out;
      c = s.c_out;
      if (k === 0) {
        report.first_end_logit_abs_diff = Math.abs(s.end_logit.data[0] - fx.first_end_logit);
        report.h_first_max_abs_diff = maxDiff(Array.from(h.data).slice(h.data.length - H), fx.h_first);
      }
      if (s.end_logit.data[0] > 0 || used >= budget) break;
      let wh = h,
        wc = c,
        tok = bos,
        o = null;
      const words = [];
      const cap = Math.min(perSentence, budget - used);
      for (let t = 0; t <= cap; t++) {
        const r = await word.run({ input_ids: i64([tok], [1, 1]), h: wh, c: wc });
        if (k === 0 && t === 0)
          report.first_log_probs_top_equal =
            JSON.stringify(top5(r.log_probs.data)) === JSON.stringify(fx.first_log_probs_top);
        wh = r.h_out;
        wc = r.c_out;
        o = r.output;
        tok = argmax(r.log_probs.data);
        if (tok === eos || words.length >= cap) break;
        words.push(tok);
      }
      used += words.length;
      out.push(words);
      prev = o;
    }
  }
  report.decode_ms = +(performance.now() - tEnc).toFixed(1);
  report.greedy_ids_equal = JSON.stringify(out) === JSON.stringify(fx.greedy_ids);
  report.output_tokens = out.reduce((a, s) => a + s.length, 0);
  console.log(JSON.stringify(report, null, 1));
  if (!report.greedy_ids_equal) process.exit(1);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
