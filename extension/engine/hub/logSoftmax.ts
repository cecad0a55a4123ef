/**
 * log-softmax of `logits` into out[at..] (a graph that already returns log-probs comes out unchanged):
 * the Hub graphs return raw logits, our decoding loops read log-probs.
 */
export function logSoftmaxInto(logits: Float32Array, out: Float32Array, at = 0): Float32Array {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const lse = max + Math.log(sum);
  for (let i = 0; i < logits.length; i++) out[at + i] = logits[i] - lse;
  return out;
}
