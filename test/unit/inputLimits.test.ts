// How much each model reads: one source of truth, maxInputTokens in each model's model.json.
// The CLI's note about a text cut short reads the limit from the manifest of the model that ran;
// the documentation's table of limits is written from the manifests (docs.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { article, editManifest, modelsDir, repoRoot, tempDir } from './helpers';

const limitOf = (folder: string): number =>
  JSON.parse(readFileSync(path.join(modelsDir, folder, 'model.json'), 'utf8')).maxInputTokens;
test("the CLI's note on a text cut short gives the limit of the model that ran, from its model.json", async () => {
  // A copy of the summarizer whose manifest reads less: the note must follow the manifest, not a constant.
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
        long,
        '--mode',
        'abstractive',
        '--beam',
        '1',
        '--max-tokens',
        '8',
        ...extra,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
  const shipped = run();
  assert.equal(shipped.status, 0, shipped.stderr);
  assert.match(
    shipped.stderr,
    new RegExp(
      `^note: the model read the first \\d+ of \\d+ characters \\(the limit: ${limitOf('summarize')} tokens\\)$`,
      'm',
    ),
  );
  const edited = run('--models', models);
  assert.equal(edited.status, 0, edited.stderr);
  assert.match(edited.stderr, /^note: the model read the first \d+ of \d+ characters \(the limit: 200 tokens\)$/m);
  const asked = run('--max-input-tokens', '100');
  assert.match(asked.stderr, /\(the limit: 100 tokens\)$/m);
});
