/**
 * draftsmith.device names any execution provider onnxruntime-node has (cuda, dml, coreml, webgpu):
 * the choice reaches the session options, and where it cannot run here the model runs on the CPU
 * with one clear log line that names the provider and the reason.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import test from 'node:test';
import { Engine } from '../../extension/engine/engine';
import {
  acceleratorOf,
  CudaDecision,
  missingAccelerator,
  openSession,
  releaseSessions,
} from '../../extension/engine/runtime/onnx';
import { DeviceSetting } from '../../extension/protocol';
import { article, modelsDir } from './helpers';

test('every device the setting offers is one the engine takes, and names its provider', () => {
  assert.deepEqual(DeviceSetting.options, ['auto', 'cpu', 'cuda', 'dml', 'coreml', 'webgpu']);
  assert.equal(acceleratorOf('auto'), 'cuda');
  assert.equal(acceleratorOf('cpu'), undefined);
  for (const d of ['cuda', 'dml', 'coreml', 'webgpu'] as const) assert.equal(acceleratorOf(d), d);
});

test('a provider of another platform is refused before onnxruntime is asked, saying whose platform it is', () => {
  if (process.platform !== 'win32') assert.match(missingAccelerator('dml') ?? '', /DirectML runs on Windows only/);
  if (process.platform !== 'darwin') assert.match(missingAccelerator('coreml') ?? '', /CoreML runs on macOS only/);
});

test('the chosen provider reaches the session options; where it fails the CPU runs it, with one log line naming it', async () => {
  const file = path.join(modelsDir, 'summarize', 'encoder.onnx');
  for (const device of ['webgpu', 'dml', 'coreml'] as const) {
    const lines: string[] = [];
    const log = (_l: 'info' | 'warn', m: string) => lines.push(m);
    const decision = new CudaDecision(undefined, device);
    const tried: string[] = [];
    const calls = new (await import('../../extension/engine/runtime/onnx')).NativeCalls();
    // The native layer's own session creation is what we watch: the options it is given.
    const real = (await import('onnxruntime-node')).InferenceSession.create;
    const ort = await import('onnxruntime-node');
    (ort.InferenceSession as unknown as { create: typeof real }).create = ((
      f: string,
      o?: { executionProviders?: string[] },
    ) => {
      tried.push(...(o?.executionProviders ?? []).map(String));
      return real(f, o);
    }) as typeof real;
    try {
      const opened = await openSession(file, { device, threads: 1, log, cuda: decision.forLoad('the encoder'), calls });
      const reachable = decision.unavailable === undefined || opened.provider !== 'cpu';
      if (opened.provider === 'cpu') {
        const said = lines.filter((m) => /execution provider unavailable/.test(m));
        assert.equal(said.length, 1, lines.join('\n'));
        assert.match(
          said[0],
          new RegExp(`^${decision.name} execution provider unavailable \\(.+\\); running the encoder on the CPU\\.$`),
        );
      }
      // A provider this platform could have was put in the session options first.
      if (reachable) assert.equal(tried[0], device);
      await releaseSessions([opened.session]);
    } finally {
      (ort.InferenceSession as unknown as { create: typeof real }).create = real;
    }
  }
});

test('an engine configured for a provider it lacks still summarizes, on the CPU', async () => {
  const lines: string[] = [];
  const engine = new Engine({ modelsDir, device: 'dml', threads: 1 }, (_l, m) => lines.push(m));
  const r = await engine.run({ op: 'summarize', text: article });
  assert.equal((r as { stats: { device: string } }).stats.device, 'cpu');
  if (process.platform !== 'win32')
    assert.ok(
      lines.some((m) => /DirectML execution provider unavailable \(DirectML runs on Windows only\)/.test(m)),
      lines.join('\n'),
    );
});
