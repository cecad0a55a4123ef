/**
 * `npm install` downloads nothing beyond npm packages. onnxruntime-node's postinstall
 * would fetch its CUDA provider libraries from outside the npm registry; it is turned off twice, so the
 * skip does not hang on one npm version: `.npmrc`'s onnxruntime-node-install=skip (read by npm 10, which
 * Node 20 ships, and by onnxruntime's script; npm 11 warns it will stop passing unknown keys) and
 * package.json's allowScripts, npm 11's own policy, denying the script.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { missingCudaLibrary } from '../../extension/engine/runtime/onnx';
import { repoRoot } from './helpers';

test(
  'the installed onnxruntime-node has no CUDA provider library: nothing was downloaded by its install script',
  {
    skip:
      process.platform !== 'linux' || process.arch !== 'x64' ? 'the CUDA files are fetched for linux/x64 only' : false,
  },
  () => {
    assert.match(missingCudaLibrary() ?? 'present', /libonnxruntime_providers_cuda\.so is not installed/);
  },
);

test("both npm generations are told not to run onnxruntime-node's download", () => {
  assert.match(readFileSync(path.join(repoRoot, '.npmrc'), 'utf8'), /^onnxruntime-node-install=skip$/m);
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
  };
  assert.equal(pkg.allowScripts?.['onnxruntime-node'], false);
});
