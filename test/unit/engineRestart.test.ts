// Restart Engine and shutdown in the middle of long generations must not abort the process that
// hosts the engine client (the extension host). Terminating a worker thread while onnxruntime is
// inside session.run aborts it ('terminate called after throwing an instance of Napi::Error',
// SIGABRT), so the scenario runs in a child process of its own and the test checks how it ended:
// with the old terminate-at-once restart the child aborted within the first three rounds in every run.
//
// The same file is the child: started with DRAFTSMITH_RESTART_ROUNDS=N it runs the scenario
// instead of registering tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { EngineClient, EngineError } from '../../extension/host/engineClient';
import { modelsDir, repoRoot } from './helpers';

const ROUNDS = 5;
const LONG_TEXT = 'A long article about bridges, rivers and the towns beside them. '.repeat(40);
const LONG_DECODING = { beamSize: 4, maxLength: 200, minLength: 150 };

/** The child: ROUNDS restarts, each in the middle of a generation, then a shutdown in the middle of one. */
async function scenario(rounds: number): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const log = { info() {}, warn: (m: string) => say(`warn: ${m}`), error: (m: string) => say(`error: ${m}`) };
  const c = new EngineClient(path.join(repoRoot, 'dist', 'worker.js'), { modelsDir, device: 'cpu', threads: 1 }, log);
  const midGeneration = async () => {
    let writing!: () => void;
    const started = new Promise<void>((r) => (writing = r));
    let steps = 0;
    const pending = c.request(
      { op: 'summarize', text: LONG_TEXT, decoding: LONG_DECODING },
      {
        // A few decoding steps in: most of the worker's time is then spent inside session.run.
        onProgress: (message) => {
          if (message.startsWith('Writing') && ++steps >= 3) writing();
        },
        onPartial: () => {
          if (++steps >= 3) writing();
        },
      },
    );
    pending.catch(() => {});
    await started;
    return { pending }; // wrapped: an async function would wait for the request itself
  };
  for (let round = 1; round <= rounds; round++) {
    const { pending } = await midGeneration();
    const t = performance.now();
    const oldStopped = c.restart();
    const outcome = await pending.then(
      () => 'answered',
      (e: unknown) => (e instanceof EngineError ? e.code : String(e)),
    );
    if (outcome !== 'stopped') throw new Error(`round ${round}: the request ended as ${outcome}, not 'stopped'`);
    await oldStopped;
    say(
      `round ${round}: restarted mid-generation; the old worker was gone ${Math.round(performance.now() - t)} ms later`,
    );
  }
  const answer = await c.request({
    op: 'summarize',
    text: 'Rain closed the harbour road on Friday.',
    decoding: { maxLength: 8 },
  });
  if (!answer.summary) throw new Error('no summary after the restarts');
  await midGeneration();
  await c.shutdown();
  say('shut down mid-generation');
  say('survived');
}

const childRounds = Number(process.env.DRAFTSMITH_RESTART_ROUNDS ?? '');
if (childRounds > 0) {
  scenario(childRounds).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stdout.write(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
} else {
  test(`Restart Engine in the middle of a long generation, ${ROUNDS} times, and a shutdown in the middle of one, leave the host process running`, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DRAFTSMITH_RESTART_ROUNDS: String(ROUNDS) };
    delete env.NODE_TEST_CONTEXT; // the child runs the scenario, not a test file
    const child = spawn(process.execPath, [__filename], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    process.stdout.write(out.replace(/^/gm, '    '));
    assert.doesNotMatch(out, /terminate called|Napi::Error/);
    assert.equal(signal, null, `the host process was killed by ${signal}:\n${out}`);
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`round ${ROUNDS}: restarted mid-generation`));
    assert.match(out, /survived/);
    assert.doesNotMatch(out, /terminating it anyway/);
  });
}
