// The CUDA decision is made per engine configuration: every load that asked for cuda or
// auto and runs on the CPU says so in the log, and a new configuration tries CUDA again. The missing
// library is simulated, so these hold on a machine with CUDA too, and in any order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { CudaDecision, openSession, releaseSessions } from '../../extension/engine/runtime/onnx';
import type { EngineConfig } from '../../extension/protocol';
import { modelsDir, repoRoot, tempDir } from './helpers';

type Line = { level: string; message: string };
const cudaLines = (lines: Line[]) => lines.filter((l) => /CUDA/.test(l.message));

test('a CUDA session without the library runs on the CPU; each load says so once; a new decision checks again', async () => {
  let checks = 0;
  const missing = () => {
    checks++;
    return 'simulated: libonnxruntime_providers_cuda.so is not installed';
  };
  const file = path.join(modelsDir, 'summarize', 'encoder.onnx');
  const lines: Line[] = [];
  const log = (level: 'info' | 'warn', message: string) => lines.push({ level, message });

  const decision = new CudaDecision(missing);
  const load = decision.forLoad('the summarize model');
  const a = await openSession(file, { device: 'cuda', threads: 1, log, cuda: load });
  const b = await openSession(file, { device: 'cuda', threads: 1, log, cuda: load });
  assert.equal(a.provider, 'cpu');
  assert.equal(b.provider, 'cpu');
  assert.equal(cudaLines(lines).length, 1, 'one line for the load, not one per session');
  assert.equal(lines[0].level, 'warn', 'asked for cuda: a warning');
  assert.match(
    lines[0].message,
    /CUDA execution provider unavailable \(simulated: .*\); running the summarize model on the CPU/,
  );

  // Another load of the same configuration says it again ('auto': information, not a warning).
  const c = await openSession(file, { device: 'auto', threads: 1, log, cuda: decision.forLoad('the essay model') });
  assert.equal(cudaLines(lines).length, 2);
  assert.equal(lines[1].level, 'info');
  assert.match(lines[1].message, /running the essay model on the CPU/);
  assert.equal(checks, 1, 'the library is looked for once per configuration');

  // A new configuration's decision looks again.
  const d = await openSession(file, { device: 'cuda', threads: 1, log, cuda: new CudaDecision(missing).forLoad('x') });
  assert.equal(checks, 2);
  assert.equal(cudaLines(lines).length, 3);
  // 'cpu' never asks.
  const e = await openSession(file, { device: 'cpu', threads: 1, log, cuda: new CudaDecision(missing).forLoad('y') });
  assert.equal(checks, 2);
  assert.equal(cudaLines(lines).length, 3);
  await releaseSessions([a, b, c, d, e].map((s) => s.session));
});

test('after a fallback, switching to cpu and back to cuda tries CUDA again and logs again', async () => {
  // A small Round-Trip model as <models>/roundtrip.
  const models = tempDir('cuda');
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', 'standard');
  await fs.mkdir(path.join(models, 'roundtrip'));
  for (const f of await fs.readdir(fixture))
    await fs.copyFile(path.join(fixture, f), path.join(models, 'roundtrip', f));

  let checks = 0;
  const lines: Line[] = [];
  const cuda: EngineConfig = { modelsDir: models, device: 'cuda', threads: 1 };
  const engine = new Engine(cuda, (level, message) => lines.push({ level, message }), {
    missingCudaLibrary: () => {
      checks++;
      return 'simulated: no CUDA library';
    },
  });
  const run = async () => {
    const r = await engine.run({
      op: 'roundtrip',
      text: 'The river rose in the night. The farmers moved their animals to the hills.',
    });
    return r.stats.device;
  };
  assert.equal(await run(), 'cpu');
  assert.equal(cudaLines(lines).length, 1);
  assert.match(cudaLines(lines)[0].message, /running the roundtrip model on the CPU/);
  assert.equal(await run(), 'cpu');
  assert.equal(cudaLines(lines).length, 1, 'the loaded model is kept: nothing new to say');

  engine.configure({ ...cuda, device: 'cpu' });
  assert.equal(await run(), 'cpu');
  assert.equal(cudaLines(lines).length, 1, 'cpu asked for: no fallback to report');
  const before = checks;
  engine.configure(cuda);
  assert.equal(await run(), 'cpu');
  assert.ok(checks > before, 'the new configuration looked for CUDA again');
  assert.equal(cudaLines(lines).length, 2, 'and said again that it runs on the CPU');
  engine.configure({ ...cuda, threads: 2 });
  await fs.rm(models, { recursive: true, force: true });
});
