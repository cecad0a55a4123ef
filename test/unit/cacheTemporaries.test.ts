/**
 * What a download killed mid-file leaves in the cache, and what the next download into it removes:
 * a dead process's temporaries at once, a live one's only once untouched for an hour, this process's
 * own only when none of its downloads holds them; never a model's files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  ABANDONED_MS,
  holdTemporary,
  removeOwnTemporaries,
  sweepTemporaries,
} from '../../extension/engine/hub/cacheTemporaries';
import { files, tempCache } from './hubTestKit';

/** The id of a process that has exited (and been reaped): no process has it now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? assert.fail('no pid');
}

function touch(p: string, ageMs = 0): void {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, 'partial');
  if (ageMs > 0) {
    const t = (Date.now() - ageMs) / 1000;
    utimesSync(p, t, t);
  }
}

test("a dead process's temporary is removed at once, a model's own files never", async (t) => {
  const cacheDir = tempCache(t);
  const dead = await deadPid();
  const model = path.join(cacheDir, 'owner', 'name');
  touch(path.join(model, 'config.json'));
  touch(path.join(model, 'onnx', 'model.onnx'));
  touch(path.join(model, 'onnx', `model.onnx.tmp.${dead}.a1b2c3d4`));
  touch(path.join(cacheDir, 'urls', '0123', `summarize.tmp.${dead}.ffee0011`, 'model.json'));
  const removed = sweepTemporaries(cacheDir);
  assert.equal(removed.length, 2, removed.join(', '));
  assert.deepEqual(files(cacheDir), [
    path.join('owner', 'name', 'config.json'),
    path.join('owner', 'name', 'onnx', 'model.onnx'),
  ]);
});

test("a live process's temporary is kept while fresh (its download may be running), removed once untouched for an hour", (t) => {
  const cacheDir = tempCache(t);
  // The test runner's parent process: alive for as long as this test runs.
  const fresh = path.join(cacheDir, 'a', 'b', `model.onnx.tmp.${process.ppid}.00000001`);
  const old = path.join(cacheDir, 'a', 'b', `model.onnx_data.tmp.${process.ppid}.00000002`);
  touch(fresh);
  touch(old, ABANDONED_MS + 60_000);
  assert.deepEqual(sweepTemporaries(cacheDir), [old]);
  assert.deepEqual(files(cacheDir), [path.join('a', 'b', path.basename(fresh))]);
});

test("this process's temporaries: kept while a download holds them, removed when none does (a reused process id)", (t) => {
  const cacheDir = tempCache(t);
  const dest = path.join(cacheDir, 'a', 'b', 'tokenizer.json');
  const held = holdTemporary(dest);
  touch(held.path);
  const stray = `${dest}.tmp.${process.pid}.deadbeef`;
  touch(stray);
  assert.deepEqual(sweepTemporaries(cacheDir), [stray]);
  assert.deepEqual(files(cacheDir), [path.join('a', 'b', path.basename(held.path))]);
  // An exit that cannot wait for the download's own clean-up removes what it held.
  removeOwnTemporaries();
  assert.deepEqual(files(cacheDir), []);
  held.release();
});
