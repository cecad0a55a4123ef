/**
 * Node 20 is the minimum (package.json engines.node), so every package npm installs must run on
 * it: one that declares a newer Node makes `npm install` warn EBADENGINE on the minimum (vsce 4.1
 * and two @azure packages once did).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import semver from 'semver';
import { repoRoot } from './helpers';

test("every package in the lockfile supports the minimum Node version of package.json's engines", () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
  };
  const minimum = semver.minVersion(pkg.engines.node);
  assert.ok(minimum, `package.json engines.node ${pkg.engines.node} names no version`);
  const refused = Object.entries(lock.packages)
    .filter(([name]) => name !== '')
    .map(([name, p]) => ({
      name: name.replace(/^.*node_modules\//, ''),
      range: !Array.isArray(p.engines) ? p.engines?.node : undefined,
    }))
    .filter((p) => p.range && !semver.satisfies(minimum, p.range, { includePrerelease: true }));
  assert.deepEqual(
    refused,
    [],
    `packages that do not run on Node ${minimum.version}: ${refused.map((p) => `${p.name} (${p.range})`).join(', ')}`,
  );
});
