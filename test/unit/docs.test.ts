// The generated documentation is what the sources make now: docs/settings.md (package.json),
// docs/cli.md (the CLI's command table) and the table of built-in models in docs/models.md (each
// model.json). A change to a source without `npm run docs` fails here, naming the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { generatedDocs } from '../../scripts/docs';
import { repoRoot } from './helpers';

for (const { file, text } of generatedDocs(repoRoot)) {
  test(`${file} is what npm run docs writes from its sources`, () => {
    const committed = readFileSync(path.join(repoRoot, file), 'utf8');
    if (committed === text) return;
    const lines = committed.split('\n');
    const line = text.split('\n').findIndex((l, i) => l !== lines[i]);
    assert.fail(`${file} is stale (first difference at line ${line + 1}): run npm run docs`);
  });
}
