// `draftsmith check` as a CI step: what fails the build (--fail-on), what is not checked (binary
// files) or is a mistake (nothing to check), and the regression gate (--baseline) that reports only
// the findings a change brought in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const cli = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', ...args], { encoding: 'utf8', cwd });

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
};

test('the build fails on errors only, unless --fail-on says warnings (or never)', () => {
  const dir = tempDir('check-fail-on');
  writeFileSync(path.join(dir, 'notes.md'), 'He go home.\n');
  const plain = cli(['notes.md'], dir);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /^notes\.md:1:4: warning grammar\/PronounVerbAgreement/);
  assert.equal(cli(['notes.md', '--fail-on', 'warning'], dir).status, 1);
  writeFileSync(path.join(dir, 'twice.md'), 'This is is wrong.\n');
  assert.equal(cli(['twice.md'], dir).status, 1);
  assert.equal(cli(['twice.md', '--fail-on', 'never'], dir).status, 0);
  const bad = cli(['twice.md', '--fail-on', 'sometimes'], dir);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--fail-on: "sometimes" is not one of error, warning, information, hint, never/);
});

test('a binary file is skipped with a note; an empty folder or a pattern that matches nothing is an error', () => {
  const dir = tempDir('check-nothing');
  copyFileSync(process.execPath, path.join(dir, 'node-binary'));
  const binary = cli(['node-binary'], dir);
  assert.equal(binary.status, 2);
  assert.match(binary.stderr, /skipped node-binary: a binary file/);
  assert.equal(binary.stdout, '');
  mkdirSync(path.join(dir, 'empty'));
  writeFileSync(path.join(dir, 'empty', 'image.png'), 'not prose');
  const empty = cli(['empty'], dir);
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /empty has no Markdown or text file to check/);
  const pattern = cli(['docs/*.md'], dir);
  assert.equal(pattern.status, 2);
  assert.match(pattern.stderr, /docs\/\*\.md matches no file/);
});

test('--baseline with an earlier --json output reports only new findings, matched by text around them, not by line', () => {
  const dir = tempDir('check-baseline-json');
  writeFileSync(path.join(dir, 'a.md'), 'This is is old.\n\nHe go home.\n');
  const before = cli(['a.md', '--json', '--fail-on', 'warning'], dir);
  assert.equal(before.status, 1, before.stderr);
  const earlier = JSON.parse(before.stdout) as { rule: string; severity: string; context: string }[];
  assert.deepEqual(
    earlier.map((f) => [f.rule, f.severity]),
    [
      ['repeated-word', 'error'],
      ['grammar/PronounVerbAgreement', 'warning'],
    ],
  );
  writeFileSync(path.join(dir, 'baseline.json'), before.stdout);
  // Lines added above move the old findings; one new doubled word.
  writeFileSync(
    path.join(dir, 'a.md'),
    '# Notes\n\nA new line.\n\nThis is is old.\n\nHe go home.\n\nAnd and this is new.\n',
  );
  const after = cli(['a.md', '--baseline', 'baseline.json'], dir);
  assert.equal(after.status, 1, after.stderr);
  assert.deepEqual(after.stdout.trim().split('\n'), [
    'a.md:9:1: error repeated-word: Did you mean to repeat this word?',
  ]);
  assert.match(after.stderr, /1 new finding in 1 file \(2 already in baseline\.json\)/);
  const notJson = cli(['a.md', '--baseline', 'a.md'], dir);
  assert.equal(notJson.status, 2);
  assert.match(notJson.stderr, /--baseline: a\.md is not JSON/);
});

test('--baseline with a git revision checks each file as it was there; a file new since then is all new', () => {
  const dir = tempDir('check-baseline-git');
  git(dir, 'init', '-q');
  writeFileSync(path.join(dir, 'a.md'), 'This is is old.\n');
  git(dir, 'add', 'a.md');
  git(dir, 'commit', '-qm', 'first');
  writeFileSync(path.join(dir, 'a.md'), 'Intro.\n\nThis is is old.\n');
  writeFileSync(path.join(dir, 'b.md'), 'The the start.\n');
  const r = cli(['a.md', 'b.md', '--baseline', 'HEAD'], dir);
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['b.md:1:1: error repeated-word: Did you mean to repeat this word?']);
  const clean = cli(['a.md', '--baseline', 'HEAD'], dir);
  assert.equal(clean.status, 0, clean.stderr);
  assert.equal(clean.stdout, '');
  const bad = cli(['a.md', '--baseline', 'no-such-branch'], dir);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /"no-such-branch" is neither a file nor a git revision/);
});

test('hints are left out unless --hints asks for them, and the JSON carries each finding’s severity', () => {
  const dir = tempDir('check-hints');
  writeFileSync(path.join(dir, 'notes.md'), 'The behaviour of the servername option is odd. We recieve it.\n');
  const plain = cli(['notes.md', '--json'], dir);
  assert.equal(plain.status, 0, plain.stderr);
  const found = (r: typeof plain) =>
    (JSON.parse(r.stdout) as { family: string; word?: string; severity: string }[])
      .filter((f) => f.family === 'spelling')
      .map((f) => [f.word, f.severity]);
  assert.deepEqual(found(plain), [['recieve', 'warning']]);
  assert.deepEqual(found(cli(['notes.md', '--json', '--hints'], dir)), [
    ['behaviour', 'hint'],
    ['servername', 'hint'],
    ['recieve', 'warning'],
  ]);
  assert.equal(cli(['notes.md', '--hints', '--fail-on', 'hint'], dir).status, 1);
});

test('the names a project’s package.json gives are known words: its own, its commands’ and its dependencies’', () => {
  const dir = tempDir('check-manifest');
  mkdirSync(path.join(dir, '.git'));
  mkdirSync(path.join(dir, 'docs'));
  const text = 'Undici depends on yauzl.\n\nWe recieve it with undici and undicictl.\n';
  writeFileSync(path.join(dir, 'docs', 'intro.md'), text);
  const words = () =>
    (JSON.parse(cli(['docs/intro.md', '--json'], dir).stdout) as { word?: string }[]).map((f) => f.word);
  assert.deepEqual(words(), ['Undici', 'yauzl', 'recieve', 'undici', 'undicictl']);
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'undici', bin: { undicictl: 'cli.js' }, devDependencies: { '@types/yauzl': '^3' } }),
  );
  assert.deepEqual(words(), ['recieve']);
});
