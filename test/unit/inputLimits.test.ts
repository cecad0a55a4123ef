// How much each model reads: one source of truth, maxInputTokens in each model's
// model.json. The README states each model's number as its manifest has it, and the CLI's note about
// a text cut short reads the limit from the manifest of the model that ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { article, editManifest, modelsDir, repoRoot, tempDir } from './helpers';

const limitOf = (folder: string): number =>
  JSON.parse(readFileSync(path.join(modelsDir, folder, 'model.json'), 'utf8')).maxInputTokens;
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

test("the README's table of what each model reads has each model.json's maxInputTokens", () => {
  const rows = [...readme.matchAll(/^\| [^|]+ \| `([a-z]+)\/` \| (\d+) \|/gm)];
  assert.deepEqual(
    rows.map((r) => r[1]).sort(),
    ['essay', 'reply', 'roundtrip', 'story', 'summarize'],
    'a row per built-in model',
  );
  for (const [, folder, n] of rows)
    assert.equal(Number(n), limitOf(folder), `README: ${folder} reads ${n}, its model.json says ${limitOf(folder)}`);
});

test('the README says the same numbers where it names a limit in passing, and no longer 512 tokens', () => {
  const number = (re: RegExp) => Number(re.exec(readme)?.[1] ?? NaN);
  assert.equal(number(/at most the built-in summarizer's (\d+) tokens/), limitOf('summarize'));
  assert.equal(number(/\(the built-in summarizer: (\d+), see/), limitOf('summarize'));
  assert.equal(number(/at most the model's\s+(\d+) subwords; a longer paragraph/), limitOf('roundtrip'));
  // The story's source is its last maxInputTokens - 1 pieces and the end mark.
  assert.equal(number(/than the\s+model reads, (\d+) pieces,/), limitOf('story') - 1);
  assert.equal(number(/\((\d+) pieces of it and the end mark\)/), limitOf('story') - 1);
  assert.doesNotMatch(readme, /512 tokens/);
});

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
        '--max-length',
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
