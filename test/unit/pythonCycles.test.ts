// models/train's Python has no import cycle (docs/architecture.md); scripts/python-cycles.py, run by
// `npm run lint`, holds it. These tests hold the checker: it passes the recipes as they are, and it
// fails a cycle closed by an import inside a function (how the old ones hid), naming the modules and
// the lines. They need a python3; without one they are skipped and say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const PY = process.env.DRAFTSMITH_TRAIN_PYTHON ?? 'python3';
const script = path.join(repoRoot, 'scripts', 'python-cycles.py');
const hasPython = spawnSync(PY, ['--version']).status === 0;
const skip = hasPython ? false : `no ${PY}: the Python import-cycle checks are skipped`;

function check(folder: string) {
  const r = spawnSync(PY, [script, folder], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

test('the training recipes (models/train/draftsmith_train) have no import cycle', { skip }, () => {
  const r = check(path.join(repoRoot, 'models', 'train', 'draftsmith_train'));
  assert.equal(r.status, 0, r.out);
});

test(
  'a cycle closed by an import inside a function fails the check, naming both modules and the lines',
  { skip },
  () => {
    const pkg = path.join(tempDir('pycycles'), 'recipes');
    mkdirSync(pkg);
    writeFileSync(path.join(pkg, 'model.py'), 'from .shared import helper\n\n\ndef load():\n    return helper()\n');
    writeFileSync(
      path.join(pkg, 'shared.py'),
      'def helper():\n    return 1\n\n\ndef main():\n    from .model import load\n\n    return load()\n',
    );
    writeFileSync(path.join(pkg, 'other.py'), 'from . import shared\n');
    const r = check(pkg);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /import cycle in recipes: model <-> shared/);
    assert.match(r.out, /model\.py:1 imports shared/);
    assert.match(r.out, /shared\.py:6 imports model/);
    assert.doesNotMatch(r.out, /other/, 'a module outside the cycle is not named');
  },
);
