// How much each model reads: one source of truth, maxInputTokens in each model's model.json.
// The CLI reads a long text in parts of the window from the manifest of the model that ran;
// the documentation's table of limits is written from the manifests (docs.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { article, editManifest, modelsDir, repoRoot, tempDir } from './helpers';

const limitOf = (folder: string): number =>
  JSON.parse(readFileSync(path.join(modelsDir, folder, 'model.json'), 'utf8')).maxInputTokens;
test("a long text file is read whole, in parts of the window given by the model's model.json", async () => {
  // A copy of the summarizer whose manifest reads less: the window must follow the manifest, not a constant.
  const models = tempDir('limits');
  cpSync(path.join(modelsDir, 'summarize'), path.join(models, 'summarize'), { recursive: true });
  await editManifest(path.join(models, 'summarize'), (m) => {
    m.maxInputTokens = 200;
  });
  const long = path.join(models, 'long.txt');
  writeFileSync(long, `${article}\n\n`.repeat(8));
  const run = (...extra: string[]) =>
    spawnSync(
      process.execPath,
      [
        path.join(repoRoot, 'dist', 'cli.js'),
        'summarize',
        ...extra,
        '--mode',
        'abstractive',
        '--beam',
        '1',
        '--max-tokens',
        '8',
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
  const whole = (limit: number) => new RegExp(`read whole in \\d+ parts of at most ${limit} tokens`);
  const shipped = run(long);
  assert.equal(shipped.status, 0, shipped.stderr);
  assert.match(shipped.stderr, whole(limitOf('summarize')));
  assert.doesNotMatch(shipped.stderr, /covers the first/);
  const edited = run(long, '--models', models);
  assert.equal(edited.status, 0, edited.stderr);
  assert.match(edited.stderr, whole(200));
  const asked = run(long, '--max-input-tokens', '100');
  assert.match(asked.stderr, whole(100));
  // The same text given on the command line is read whole too: no note of a cut.
  const inline = run('--text', readFileSync(long, 'utf8'), '--models', models);
  assert.equal(inline.status, 0, inline.stderr);
  assert.doesNotMatch(inline.stderr, /covers the first/);
});
