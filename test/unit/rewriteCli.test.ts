// `draftsmith rewrite`: the presets listed by --help from the one list, the options refused
// before anything loads, and a Markdown file rewritten block by block with the tiny instruct
// fixture read as a local folder (it writes noise: what is checked is what Draftsmith controls —
// which text is sent, what is printed as it was, the diff's shape).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REWRITE_PRESETS } from '../../extension/engine/hub/rewritePresets';
import { RewriteResult } from '../../extension/protocol';
import { repoRoot, tempDir } from './helpers';
import { HUB_FIXTURES } from './loopbackHub';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const SMOL = path.join(HUB_FIXTURES, 'fixtures', 'SmolLM2-135M-Instruct');
const work = tempDir('rewrite-cli');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'rewrite', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    cwd: work,
    env: { ...process.env, DRAFTSMITH_CACHE: path.join(work, 'cache') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const NOTES = `---
title: Notes
---

# Minutes

The committee have met on 3 May and the report was wrote by [Ana](https://example.org/ana).

- the budget was approved by the board
- the \`deploy\` script is slow

\`\`\`sh
make report --fast
\`\`\`

| year | total |
|------|-------|
| 2024 | 3     |
`;

test('rewrite --help lists every preset, by name and label, from the one list', () => {
  const r = cli(['--help']);
  assert.equal(r.code, 0, r.stderr);
  const help = r.stdout.replace(/\s+/g, ' ');
  for (const p of REWRITE_PRESETS) {
    assert.ok(help.includes(`${p.id} (${p.label})`), `${p.id} is not listed: ${r.stdout}`);
  }
});

test('rewrite refuses a missing, doubled or unknown preset before anything loads (exit 2)', () => {
  const none = cli(['--text', 'Some text.', '--model', SMOL]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--preset NAME or --instruction TEXT/);
  const both = cli(['--text', 'Some text.', '--preset', 'shorter', '--instruction', 'Be brief.', '--model', SMOL]);
  assert.equal(both.code, 2);
  const unknown = cli(['--text', 'Some text.', '--preset', 'longer', '--model', SMOL]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--preset must be one of grammar\|shorter\|/);
  const builtIn = cli(['--text', 'Some text.', '--preset', 'shorter']);
  assert.equal(builtIn.code, 2, 'the built-in models follow no instructions');
  assert.match(builtIn.stderr, /instruct model/);
});

test('a Markdown file is rewritten paragraph by paragraph and item by item; its front matter, heading, code and table are printed as they were', () => {
  const file = path.join(work, 'notes.md');
  writeFileSync(file, NOTES);
  const json = cli([file, '--preset', 'grammar', '--model', SMOL, '--max-tokens', '6', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const results = RewriteResult.array().parse(JSON.parse(json.stdout));
  assert.deepEqual(
    results.map((r) => r.source),
    [
      'The committee have met on 3 May and the report was wrote by [Ana](https://example.org/ana).',
      'the budget was approved by the board',
      'the `deploy` script is slow',
    ],
  );
  const plain = cli([file, '--preset', 'grammar', '--model', SMOL, '--max-tokens', '6']);
  assert.equal(plain.code, 0, plain.stderr);
  for (const kept of [
    '---\ntitle: Notes\n---\n\n# Minutes\n\n',
    '```sh\nmake report --fast\n```',
    '| 2024 | 3     |',
    '\n- ',
  ]) {
    assert.ok(plain.stdout.includes(kept), `${JSON.stringify(kept)} is not as it was:\n${plain.stdout}`);
  }
  const diff = cli([file, '--preset', 'grammar', '--model', SMOL, '--max-tokens', '6', '--diff']);
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(
    diff.stdout,
    new RegExp(`^--- ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n\\+\\+\\+ .*notes\\.md \\(rewritten\\)\n@@ `),
  );
  const changed = diff.stdout.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
  assert.ok(changed.length > 0);
  for (const l of changed) assert.doesNotMatch(l, /make report|title: Notes|# Minutes|\| 2024|```/, l);
  assert.match(diff.stderr, /first token after \d+ ms, [\d.]+ tokens\/s/);
});

test('the user guide names every preset the command offers', () => {
  const guide = readFileSync(path.join(repoRoot, 'docs', 'user-guide.md'), 'utf8');
  const section = guide
    .slice(guide.indexOf('### Rewrite Selection'), guide.indexOf('### Suggest Replies'))
    .replace(/\s+/g, ' ');
  for (const p of REWRITE_PRESETS)
    assert.ok(section.includes(`**${p.label}**`), `the user guide does not name ${p.label}`);
});
