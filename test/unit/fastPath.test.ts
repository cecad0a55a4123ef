/** The per-token path: beams keep their rows, caches move in place, the memory is shared, CUDA falls back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { assignRows } from '../../extension/engine/decode/beam';
import { gatherAxis, reorderAxis, reorderInPlace } from '../../extension/engine/runtime/tensorOps';
import { layerViews, reorderCaches } from '../../extension/engine/runtime/layerCaches';
import { float32Tensor } from '../../extension/engine/runtime/onnx';
import type { FromWorker } from '../../extension/protocol';
import { endOf, modelsDir, startWorker } from './helpers';

test("a parent's best child keeps its row; other children take the rows of parents that died", () => {
  // Best first: a and b from row 0, c from row 1, d from row 3; row 2 had no child.
  const { beams, order } = assignRows(['a', 'b', 'c', 'd'], [0, 0, 1, 3]);
  assert.deepEqual(beams, ['a', 'c', 'b', 'd']);
  assert.deepEqual(order, [0, 1, 0, 3]);
  // Fewer beams than rows: rows beyond them are not used.
  assert.deepEqual(assignRows(['x', 'y'], [3, 0]), { beams: ['y', 'x'], order: [0, 3] });
});

test('a reorder that moves rows only from rows that stay is done in place, with the same result as a copy', () => {
  const dims = [4, 2, 3];
  const data = Float32Array.from({ length: 24 }, (_, i) => i);
  const rows = [0, 1, 0, 3];
  const expected = gatherAxis(data, dims, 0, rows).data;
  const same = reorderAxis(data, dims, 0, rows);
  assert.equal(same.data, data, 'no new array');
  assert.deepEqual(Array.from(same.data), Array.from(expected));
  // Along an inner axis too (the essay's [layers, beams, d] running sums).
  const sums = Float32Array.from({ length: 2 * 3 * 2 }, (_, i) => i);
  const want = gatherAxis(sums, [2, 3, 2], 1, [2, 1, 2]).data;
  assert.ok(reorderInPlace(sums, [2, 3, 2], 1, [2, 1, 2]));
  assert.deepEqual(Array.from(sums), Array.from(want));
});

test('a swap cannot be done in place and is copied instead, leaving the old array as it was', () => {
  const data = Float32Array.from([1, 2, 3, 4]);
  assert.equal(reorderInPlace(data, [2, 2], 0, [1, 0]), false);
  assert.deepEqual(Array.from(data), [1, 2, 3, 4]);
  const swapped = reorderCaches({ data: [data], dims: [2, 1, 1, 2] }, [1, 0]);
  assert.deepEqual(Array.from(swapped.data[0]), [3, 4, 1, 2]);
  assert.deepEqual(Array.from(data), [1, 2, 3, 4]);
});

test("the encoder's stacked cross-attention memory is fed per layer as views, not copies", () => {
  const [L, H, T, dh] = [3, 2, 5, 4];
  const stacked = float32Tensor(
    Float32Array.from({ length: L * 2 * H * T * dh }, (_, i) => i),
    [L, 2, 1, H, T, dh],
  );
  const views = layerViews(stacked, 'cross_key_values');
  assert.equal(views.data.length, 2 * L);
  assert.deepEqual(views.dims, [1, H, T, dh]);
  for (const v of views.data) assert.equal(v.buffer, (stacked.data as Float32Array).buffer);
  assert.equal(views.data[3][0], 3 * H * T * dh, "layer 1's value starts where it lies in the stack");
});

test(
  'device "cuda" without onnxruntime\'s CUDA library runs on the CPU and logs why',
  {
    skip:
      existsSync(
        path.join(
          path.dirname(require.resolve('onnxruntime-node/package.json')),
          'bin',
          'napi-v6',
          'linux',
          'x64',
          'libonnxruntime_providers_cuda.so',
        ),
      ) && 'this machine has the CUDA provider',
  },
  async () => {
    // Through the worker bundle, as the host starts it. The CUDA decision belongs to the engine's
    // configuration (no module state), so nothing that ran before in this process matters.
    const { messages, until: seen, send, close } = startWorker();
    try {
      send({ type: 'configure', config: { modelsDir, device: 'cuda', threads: 1 } });
      send({
        type: 'request',
        id: 1,
        request: { op: 'essay', topics: 'river, boat', decoding: { beamSize: 1, maxLength: 4 } },
      });
      const end = await seen(endOf(1));
      assert.ok(end.type === 'result' && end.result.op === 'essay', JSON.stringify(end));
      assert.equal(end.result.stats.device, 'cpu');
      const logged = messages.filter(
        (m): m is Extract<FromWorker, { type: 'log' }> => m.type === 'log' && /CUDA/.test(m.message),
      );
      assert.equal(logged.length, 1, "once for the load: the decoder's session goes straight to the CPU");
      assert.equal(logged[0].level, 'warn', 'asked for cuda: a warning');
      assert.match(logged[0].message, /CUDA execution provider unavailable \(.*\); running the essay model on the CPU/);
      // A switch to cpu and back to cuda: the new configuration looks again and says so again.
      send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
      send({ type: 'configure', config: { modelsDir, device: 'cuda', threads: 1 } });
      send({
        type: 'request',
        id: 2,
        request: { op: 'essay', topics: 'river, boat', decoding: { beamSize: 1, maxLength: 4 } },
      });
      const again = await seen(endOf(2));
      assert.ok(
        again.type === 'result' && again.result.op === 'essay' && again.result.stats.device === 'cpu',
        JSON.stringify(again),
      );
      assert.equal(messages.filter((m) => m.type === 'log' && /CUDA/.test(m.message)).length, 2, 'logged again');
    } finally {
      await close(); // as the host does: never terminated inside an onnxruntime call
    }
  },
);
