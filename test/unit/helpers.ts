import * as path from 'node:path';

/** The repository root: tests run bundled from dist/test/unit/. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const modelsDir = path.join(repoRoot, 'models');
export const fixture = (name: string) => path.join(repoRoot, 'test', 'fixtures', name);
