#!/usr/bin/env node
// Checks a graph rewritten by onnx_graph.py against the graph it came from: the same random inputs
// (symbolic sizes: batch 4, source 9, past 5), every output compared, the largest difference printed
// and a failure above 1e-4; then the median time of a session.run of each, 1 thread.
//
//   node models/train/check_graph_rewrite.cjs BEFORE.onnx AFTER.onnx
'use strict';
const { ort, opts, maxDiff } = require('./onnx_check.cjs');

const SIZES = { batch: 4, source: 9, past: 5 };
let seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

function feedsFor(session) {
  const feeds = {};
  for (const meta of session.inputMetadata) {
    const dims = meta.shape.map((d) => (typeof d === 'number' ? d : (SIZES[d] ?? 1)));
    const n = dims.reduce((a, b) => a * b, 1);
    if (meta.type === 'int64') {
      // Ids below any vocabulary, positions small, masks all ones.
      const value = (i) =>
        /mask/.test(meta.name) ? 1 : /position/.test(meta.name) ? SIZES.past : 4 + ((i * 7919) % 3000);
      feeds[meta.name] = new ort.Tensor(
        'int64',
        BigInt64Array.from({ length: n }, (_, i) => BigInt(value(i))),
        dims,
      );
    } else {
      feeds[meta.name] = new ort.Tensor(
        'float32',
        Float32Array.from({ length: n }, () => random() * 2 - 1),
        dims,
      );
    }
  }
  return feeds;
}

async function time(session, feeds) {
  for (let i = 0; i < 20; i++) await session.run(feeds);
  const each = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await session.run(feeds);
    each.push(performance.now() - t);
  }
  return each.sort((a, b) => a - b)[100];
}

(async () => {
  const [before, after] = process.argv.slice(2);
  const a = await ort.InferenceSession.create(before, opts);
  const b = await ort.InferenceSession.create(after, opts);
  const feeds = feedsFor(a);
  const outA = await a.run(feeds);
  const outB = await b.run(feeds);
  let worst = 0;
  for (const name of a.outputNames) {
    if (!(name in outB)) throw new Error(`${after} lost output ${name}`);
    if (outA[name].dims.join() !== outB[name].dims.join())
      throw new Error(`${name}: dims ${outA[name].dims} became ${outB[name].dims}`);
    worst = Math.max(worst, maxDiff(outA[name].data, outB[name].data));
  }
  const msBefore = await time(a, feeds);
  const msAfter = await time(b, feeds);
  console.log(
    JSON.stringify({
      before,
      after,
      maxAbsDiff: worst,
      inputs: SIZES,
      runMs: { before: +msBefore.toFixed(3), after: +msAfter.toFixed(3) },
    }),
  );
  if (!(worst <= 1e-4)) process.exit(1);
})();
