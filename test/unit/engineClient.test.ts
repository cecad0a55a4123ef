// The host's engine client over the real worker bundle (a worker thread), under plain Node: what
// the user sees when the worker dies on its own or is restarted mid-generation, when one model
// folder is broken, and when a request runs past draftsmith.maxSecondsPerRequest. The crashes come
// from the worker itself (crashForTest, honoured with the test hooks on), between decoding steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EngineClient, EngineClientOptions, EngineError } from '../../extension/host/engineClient';
import { modelsDir, repoRoot, tempDir } from './helpers';

const workerPath = path.join(repoRoot, 'dist', 'worker.js');
const LONG_TEXT = 'A long article about bridges, rivers and the towns beside them. '.repeat(40);
/** Decoding that keeps the worker busy for many steps (it cannot stop before 150 tokens). */
const LONG_DECODING = { beamSize: 4, maxLength: 200, minLength: 150 };

/** A client on the real worker, with its log lines kept for the assertions. */
function client(models = modelsDir, options: EngineClientOptions = {}) {
  const lines: string[] = [];
  const log = {
    info: (m: string) => lines.push(m),
    warn: (m: string) => lines.push(m),
    error: (m: string) => lines.push(m),
  };
  const c = new EngineClient(workerPath, { modelsDir: models, device: 'cpu', threads: 1 }, log, {
    testHooks: true,
    ...options,
  });
  return { c, lines };
}

const isEngineError = (code: string, message: RegExp) => (e: unknown) =>
  e instanceof EngineError && e.code === code && message.test(e.message);

/** Resolves once the worker reports that it is writing (past loading and encoding). */
function writing(): { hook: (message: string) => void; started: Promise<void> } {
  let resolve!: () => void;
  const started = new Promise<void>((r) => (resolve = r));
  return {
    hook: (message) => {
      if (message.startsWith('Writing')) resolve();
    },
    started,
  };
}

for (const [how, detail] of [
  ['throw', /Error: crash for test/],
  ['exit', /exit code 70/],
] as const) {
  test(`a worker killed mid-generation (${how === 'throw' ? 'an uncaught exception' : 'process.exit'} in the worker) fails the request with a clear message, and a new worker answers the next one`, async () => {
    const { c, lines } = client();
    try {
      const w = writing();
      const pending = c.request({ op: 'summarize', text: LONG_TEXT, decoding: LONG_DECODING }, { onProgress: w.hook });
      await w.started;
      c.crashForTest(how);
      await assert.rejects(pending, isEngineError('stopped', /engine stopped unexpectedly.*Try again/));
      assert.equal(c.inFlight, 0);

      const next = await c.request({
        op: 'summarize',
        text: 'The council approved the new library budget on Monday.',
        decoding: { maxLength: 8 },
      });
      assert.ok(next.summary.length > 0);
      assert.equal(
        lines.filter((l) => l.startsWith('engine: starting worker')).length,
        2,
        'a second worker was not started',
      );
      const crashLine = lines.find((l) => /worker stopped unexpectedly .*1 request\(s\) failed/.test(l));
      assert.ok(crashLine && detail.test(crashLine), lines.join('\n'));
    } finally {
      await c.shutdown();
    }
  });
}

test('Restart Engine in the middle of a generation stops that request at once, stops the old worker before terminating it, and the next request works', async () => {
  // Terminating the thread while onnxruntime is inside a run aborts the whole process; whether the
  // process survives is checked, repeatedly and in a process of its own, in engineRestart.test.ts.
  const { c, lines } = client();
  try {
    const w = writing();
    const pending = c.request({ op: 'summarize', text: LONG_TEXT, decoding: LONG_DECODING }, { onProgress: w.hook });
    await w.started;
    const oldStopped = c.restart();
    // Failed now, not once the old worker has finished its step.
    await assert.rejects(pending, isEngineError('stopped', /restarted/));
    const next = await c.request({
      op: 'summarize',
      text: 'Rain closed the harbour road on Friday.',
      decoding: { maxLength: 8 },
    });
    assert.ok(next.summary.length > 0);
    await oldStopped;
    assert.ok(
      lines.some((l) => /the old worker stopped in \d+ ms; terminating it/.test(l)),
      lines.join('\n'),
    );
    assert.ok(!lines.some((l) => /terminating it anyway/.test(l)), lines.join('\n'));
  } finally {
    await c.shutdown();
  }
});

test('a worker that never confirms the stop is terminated after the bounded wait, with a warning that says why', async () => {
  const { c, lines } = client(modelsDir, { stopTimeoutMs: 1000 });
  try {
    const first = await c.request({
      op: 'score',
      hypothesis: 'The bees flew home.',
      reference: 'Bees fly home at dusk.',
    });
    assert.ok(Number.isFinite(first.scores.bleu.score));
    c.crashForTest('hang'); // a busy loop in JS: it never reads the stop message
    const started = performance.now();
    await c.restart();
    const waited = performance.now() - started;
    assert.ok(waited >= 900 && waited < 10_000, `waited ${waited} ms`);
    assert.ok(
      lines.some((l) => /did not confirm that it stopped within 1 s; terminating it anyway \(it seems stuck/.test(l)),
      lines.join('\n'),
    );
    const next = await c.request({
      op: 'score',
      hypothesis: 'The bees flew home.',
      reference: 'Bees fly home at dusk.',
    });
    assert.ok(Number.isFinite(next.scores.bleu.score));
  } finally {
    await c.shutdown();
  }
});

test('crashForTest is refused without the test hooks', async () => {
  const { c, lines } = client(modelsDir, { testHooks: false });
  try {
    assert.throws(() => c.crashForTest(), /DRAFTSMITH_TEST_CRASH=1/);
    const scored = await c.request({
      op: 'score',
      hypothesis: 'The bees flew home.',
      reference: 'Bees fly home at dusk.',
    });
    assert.ok(Number.isFinite(scored.scores.bleu.score));
    assert.equal(lines.filter((l) => l.startsWith('engine: starting worker')).length, 1);
  } finally {
    await c.shutdown();
  }
});

test('a worker killed while an essay and a score are in flight fails both, and both work again afterwards', async () => {
  const { c } = client();
  try {
    const w = writing();
    const essay = c.request(
      {
        op: 'essay',
        topics: 'bee, swallow, geese, flower, frog',
        decoding: { beamSize: 5, maxLength: 120, minLength: 100 },
      },
      { onProgress: w.hook },
    );
    const score = c.request({ op: 'score', hypothesis: 'The bees flew home.', reference: 'Bees fly home at dusk.' });
    await w.started;
    c.crashForTest();
    // The score may have been answered before the crash; the essay cannot have been.
    await assert.rejects(essay, isEngineError('stopped', /stopped unexpectedly/));
    await score.catch((e: unknown) => assert.ok(isEngineError('stopped', /stopped unexpectedly/)(e), String(e)));

    const again = await c.request({
      op: 'essay',
      topics: 'bee, frog',
      candidates: 1,
      decoding: { beamSize: 1, maxLength: 8 },
    });
    assert.ok(again.candidates[0].text.length > 0);
    const scored = await c.request({
      op: 'score',
      hypothesis: 'The bees flew home.',
      reference: 'Bees fly home at dusk.',
    });
    assert.ok(Number.isFinite(scored.scores.bleu.score));
  } finally {
    await c.shutdown();
  }
});

test('a broken essay model is reported by file name, while summarize and score keep working in the same worker', async () => {
  const models = tempDir('models');
  await fs.symlink(path.join(modelsDir, 'summarize'), path.join(models, 'summarize'), 'dir');
  const essayDir = path.join(models, 'essay');
  await fs.mkdir(essayDir);
  for (const f of await fs.readdir(path.join(modelsDir, 'essay')))
    await fs.copyFile(path.join(modelsDir, 'essay', f), path.join(essayDir, f));
  const decoder = path.join(essayDir, 'decoder.onnx');
  await fs.truncate(decoder, 4096);

  const { c, lines } = client(models);
  try {
    // Sent together: the essay model fails to load while the summarizer loads beside it.
    const [essay, summary] = await Promise.allSettled([
      c.request({ op: 'essay', topics: 'bee, frog', decoding: { beamSize: 1, maxLength: 8 } }),
      c.request({
        op: 'summarize',
        text: 'The council approved the new library budget on Monday.',
        decoding: { maxLength: 8 },
      }),
    ]);
    assert.equal(essay.status, 'rejected');
    assert.ok(
      essay.status === 'rejected' &&
        isEngineError('bad-model', /corrupt/)(essay.reason) &&
        String(essay.reason.message).includes(decoder),
      String(essay.status === 'rejected' && essay.reason),
    );
    assert.equal(summary.status, 'fulfilled', String(summary.status === 'rejected' && summary.reason));

    // Asked again, the essay gives the same clear error (a failed load is not kept as a broken system) ...
    await assert.rejects(
      c.request({ op: 'essay', topics: 'bee, frog', decoding: { beamSize: 1, maxLength: 8 } }),
      isEngineError('bad-model', /decoder\.onnx.*corrupt/),
    );
    // ... and the worker was never replaced: the others keep working in it.
    const scored = await c.request({
      op: 'score',
      hypothesis: 'The bees flew home.',
      reference: 'Bees fly home at dusk.',
    });
    assert.ok(Number.isFinite(scored.scores.bleu.score));
    const again = await c.request({
      op: 'summarize',
      text: 'Rain closed the harbour road on Friday.',
      decoding: { maxLength: 8 },
    });
    assert.ok(again.summary.length > 0);
    assert.equal(lines.filter((l) => l.startsWith('engine: starting worker')).length, 1, lines.join('\n'));
  } finally {
    await c.shutdown();
  }
});

test('a request that runs past its time limit is stopped with a message naming the setting, and the next request works', async () => {
  const { c, lines } = client();
  try {
    // Loading alone takes longer than this; the point is that the limit is reported, not when.
    await assert.rejects(
      c.request({ op: 'summarize', text: LONG_TEXT, decoding: LONG_DECODING }, { timeLimitMs: 300 }),
      isEngineError('time-limit', /stopped after 0\.3 s.*draftsmith\.maxSecondsPerRequest/),
    );
    assert.equal(c.inFlight, 0);
    assert.ok(
      lines.some((l) => /passed its time limit/.test(l)),
      lines.join('\n'),
    );
    // The worker was told to stop the old request (not replaced), and answers the next one within a generous limit.
    const next = await c.request(
      { op: 'summarize', text: 'Rain closed the harbour road on Friday.', decoding: { maxLength: 8 } },
      { timeLimitMs: 600_000 },
    );
    assert.ok(next.summary.length > 0);
    assert.equal(lines.filter((l) => l.startsWith('engine: starting worker')).length, 1);
  } finally {
    await c.shutdown();
  }
});
