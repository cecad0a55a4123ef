/**
 * `npm install` downloads nothing beyond npm packages, as the repository's own files say it: no
 * install-time script of ours, and every dependency that has an install script (package-lock.json's
 * hasInstallScript: onnxruntime-node's fetches its CUDA provider libraries from outside the npm
 * registry, others build or fetch native binaries) is denied by package.json's allowScripts, npm
 * 11's own policy. onnxruntime-node's is also turned off by `.npmrc`'s onnxruntime-node-install=skip
 * (read by npm 10, which Node 20 ships, and by onnxruntime's script), so the skip does not hang on
 * one npm version. These read the code, not the machine the tests run on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './helpers';

const json = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8')) as unknown;
const pkg = json('package.json') as { scripts?: Record<string, string>; allowScripts?: Record<string, boolean> };
const lock = json('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };

/** npm's install-time lifecycle scripts (npm help scripts): what `npm install` in this folder runs. */
const INSTALL_LIFECYCLE = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];

test('the package runs no script of its own at install', () => {
  const run = INSTALL_LIFECYCLE.filter((s) => pkg.scripts?.[s] !== undefined);
  assert.deepEqual(run, [], `package.json's scripts run at install: ${run.join(', ')}`);
});

test('every dependency with an install script is denied it by allowScripts', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.includes('onnxruntime-node'), 'the lock file lists the install scripts');
  for (const name of new Set(withScripts))
    assert.equal(pkg.allowScripts?.[name], false, `${name} has an install script that allowScripts does not deny`);
});

test("npm 10 is told not to run onnxruntime-node's download too", () => {
  assert.match(readFileSync(path.join(repoRoot, '.npmrc'), 'utf8'), /^onnxruntime-node-install=skip$/m);
});

test("npm 10 is told not to run node-llama-cpp's postinstall (it would build llama.cpp from source where no prebuilt binary loads)", () => {
  assert.match(readFileSync(path.join(repoRoot, '.npmrc'), 'utf8'), /^node-llama-cpp-postinstall=skip$/m);
});
