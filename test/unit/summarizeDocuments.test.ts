// `draftsmith summarize` on whole documents (extension/cli/summarizeDocuments.ts), with the shipped
// summarizer: a Markdown file's outline by heading with code left out, several files or a folder as
// one JSON line each, and a file with no prose said so while the others go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('summarize-documents');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const GUIDE = `# Installing the tool

The tool installs from the package registry in one step. It needs a recent runtime on the machine. Older runtimes are refused with a clear message.

\`\`\`sh
npm install secretcodeword
\`\`\`

## Configuring it

Settings live in one file beside the project. Each setting has a default that suits most projects. A wrong value is reported when the tool starts.

## Empty heading

# Using it

Run the tool from the terminal in the project folder. It reads every document and writes a report. The report lists each problem with its line.
`;

test('summarize FILE.md --sections prints each heading with its summary line, and never the code', () => {
  writeFileSync(path.join(dir, 'guide.md'), GUIDE);
  const r = cli(['summarize', 'guide.md', '--sections']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  for (const h of ['# Installing the tool', '## Configuring it', '## Empty heading', '# Using it'])
    assert.ok(lines.includes(h), h);
  assert.equal(lines[lines.indexOf('## Empty heading') + 1], '(no prose under this heading)');
  assert.match(lines[lines.indexOf('## Configuring it') + 1], /setting/i);
  assert.match(r.stdout, /^Summary of the whole: \S/m);
  assert.ok(!r.stdout.includes('secretcodeword'));
  assert.match(r.stderr, /1 code block was not read as prose/);
});

test('summarize FOLDER --jsonl: one JSON line per file, a file without prose said so, exit 1', () => {
  const docs = path.join(dir, 'docs');
  mkdirSync(path.join(docs, 'sub'), { recursive: true });
  writeFileSync(path.join(docs, 'a.md'), GUIDE);
  writeFileSync(
    path.join(docs, 'sub', 'b.txt'),
    'The river rose in the night. The farmers moved their herds to the hills. By morning the valley was a lake.\n',
  );
  writeFileSync(path.join(docs, 'code.md'), '```\nonly(code);\n```\n');
  writeFileSync(path.join(docs, 'image.png'), 'not a document');
  const r = cli(['summarize', 'docs', '--jsonl']);
  assert.equal(r.code, 1, r.stderr);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { file: string; summary?: string; error?: string });
  assert.deepEqual(
    rows.map((x) => x.file),
    [path.join('docs', 'a.md'), path.join('docs', 'code.md'), path.join('docs', 'sub', 'b.txt')],
  );
  assert.ok(rows[0].summary && rows[2].summary);
  assert.match(rows[1].error ?? '', /no prose to summarize: 1 code block was not read as prose/);
});
