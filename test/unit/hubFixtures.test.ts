// The Hub fixture repositories (test/fixtures/hub/fixtures/*, written by models/train/draftsmith_train/hub_fixtures.py):
// transformers.js loads and runs every layout they imitate (check_hub_fixtures.cjs: GPT-2's older and newer
// file names, with and without position_ids; SmolLM2 and Qwen2.5 with grouped-query attention, float16
// caches, MatMulNBits and int8 graphs, num_logits_to_keep; distilbart-cnn's encoder and merged decoder;
// one repository for each other decoder family in extension/engine/hub/families.ts),
// their logits are PyTorch's for the same weights, and the cache gives a full pass's logits. The Python
// side (test_hub_fixtures.py: the generator writes the committed bytes, the layouts, the math) needs Debian's
// PyTorch and is skipped without it, saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './helpers';

const PY = process.env.DRAFTSMITH_TRAIN_PYTHON ?? '/usr/bin/python3';
const trainDir = path.join(repoRoot, 'models', 'train');
const hasTorch =
  spawnSync(PY, ['-c', 'import torch, onnx, numpy'], { encoding: 'utf8', timeout: 120_000 }).status === 0;

test(
  'transformers.js runs every Hub fixture layout as PyTorch computes it (check_hub_fixtures.cjs)',
  { timeout: 300_000 },
  () => {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [path.join(trainDir, 'check_hub_fixtures.cjs')], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 290_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' },
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    assert.equal(r.status, 0, out.slice(-8000));
    const summaries = out.split('\n').filter((l) => l.startsWith('# '));
    // one line per repository but the encoder (bertscore.test.ts holds that one to PyTorch)
    const mirrors = (
      JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'hub', 'MIRRORS.json'), 'utf8')) as {
        repos: Record<string, { family: string }>;
      }
    ).repos;
    assert.equal(summaries.length, Object.values(mirrors).filter((m) => m.family !== 'bert').length, out.slice(-4000));
    assert.ok(
      summaries.every((l) => l.startsWith('# ok')),
      summaries.join('\n'),
    );
    console.log(`# hub fixtures checked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  },
);

test(
  'the Hub fixtures are what hub_fixtures.py writes, with the real layouts and exact cached math (models/train/tests/test_hub_fixtures.py)',
  {
    skip: hasTorch ? false : `no PyTorch/onnx for ${PY} (bash scripts/setup-train.sh): the generator's tests skipped`,
    timeout: 300_000,
  },
  () => {
    const r = spawnSync(
      PY,
      ['-m', 'unittest', 'discover', '-s', path.join(trainDir, 'tests'), '-p', 'test_hub_fixtures.py', '-v'],
      {
        cwd: trainDir,
        encoding: 'utf8',
        timeout: 290_000,
        env: { ...process.env, PYTHONPATH: trainDir, PYTHONWARNINGS: 'ignore' },
      },
    );
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    assert.equal(r.status, 0, out);
    assert.match(out, /Ran 11 tests/);
    assert.doesNotMatch(out, /skipped/);
  },
);
