// What the parity checkers (check_*_onnx.cjs) share: onnxruntime-node on 1 thread, as the fixtures'
// timings and the engine's defaults assume, and the small array helpers they compare with.
'use strict';
const ort = require('onnxruntime-node');

const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
const i64 = (arr, dims) => new ort.Tensor('int64', BigInt64Array.from(arr.map(BigInt)), dims);
const argmax = (a) => {
  let k = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[k]) k = i;
  return k;
};
const maxDiff = (a, b) => {
  let d = 0;
  for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};
const top5 = (a) =>
  Array.from(a)
    .map((v, i) => [v, i])
    .sort((x, y) => y[0] - x[0])
    .slice(0, 5)
    .map((x) => x[1]);

module.exports = { ort, opts, i64, argmax, maxDiff, top5 };
