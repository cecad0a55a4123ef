// Bad input is never worked on: every command that reads a text is given a binary file, an empty
// one, one too large to hold, one that is not there and UTF-8 with a stray byte, and each ends with
// its message and exit code (1: the input cannot be used; 2: a name that is not there) before any
// model loads or any score is computed; the stray byte is read with a warning that gives its offset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';
import { HUB_FIXTURES } from './loopbackHub';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('cli-bad-input');
const SMOL = path.join(HUB_FIXTURES, 'fixtures', 'SmolLM2-135M-Instruct');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, DRAFTSMITH_CACHE: path.join(dir, 'cache') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const file = (name: string, content: string | Buffer) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};

const good = file('good.txt', 'The cat sat on the mat. It slept in the sun.\n');
// An executable's bytes: NULs, controls and bytes that are not UTF-8.
const binary = file(
  'program.bin',
  Buffer.from(Array.from({ length: 8192 }, (_, i) => (i % 7 === 0 ? 0 : (i * 131) % 256))),
);
const empty = file('empty.txt', '');
// 300 MiB of nothing on disk (a sparse file): refused by its size, before it is read.
const huge = path.join(dir, 'huge.txt');
const fd = openSync(huge, 'w');
ftruncateSync(fd, 300 * 2 ** 20);
closeSync(fd);
const missing = path.join(dir, 'missing.txt');
// UTF-8 ("café") with one stray byte (0xFF) at offset 22.
const stray = file(
  'stray.txt',
  Buffer.concat([Buffer.from('The café on the corner '), Buffer.from([0xff]), Buffer.from(' opened today.\n')]),
);

/** Every command that reads a text, as a command line around the FILE it reads. */
const COMMANDS: Record<string, (f: string) => string[]> = {
  summarize: (f) => ['summarize', f],
  essay: (f) => ['essay', f, '--beam', '1', '--max-tokens', '8'],
  story: (f) => ['story', f, '--max-words', '8', '--seed', '1'],
  roundtrip: (f) => ['roundtrip', f],
  reply: (f) => ['reply', f, '--candidates', '1'],
  rewrite: (f) => ['rewrite', f, '--preset', 'shorter', '--model', SMOL, '--max-tokens', '4'],
  'score --hyp': (f) => ['score', '--ref', good, '--hyp', f, '--quiet'],
  'score --ref': (f) => ['score', '--ref', f, '--hyp', good, '--quiet'],
};

test('every command refuses a binary file (exit 1) with one line, and nothing on standard output', () => {
  for (const [name, line] of Object.entries(COMMANDS)) {
    const r = cli(line(binary));
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.equal(
      r.stderr,
      `draftsmith: ${binary} looks like binary data, not text (more than a tenth of it NUL, control or undecodable bytes); nothing was done with it\n`,
      name,
    );
    assert.equal(r.stdout, '', `${name} scored or wrote something`);
  }
});

test('every command refuses an empty file (exit 1), saying there is nothing to work on', () => {
  const said: Record<string, RegExp> = {
    summarize: /the file is empty/,
    essay: /the file has no words/,
    story: /There is no prompt to continue/,
    roundtrip: /the file is empty/,
    reply: /the file is empty/,
    rewrite: /There is no text to rewrite: the file is empty/,
    'score --hyp': /no pairs to score|segments/,
    'score --ref': /no pairs to score|segments/,
  };
  for (const [name, line] of Object.entries(COMMANDS)) {
    const r = cli(line(empty));
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^draftsmith: .*${said[name].source}`, 'm'), name);
    assert.equal(r.stdout, '', name);
  }
});

test('every command refuses a file too large to hold (exit 1) before reading it, and says the limit', () => {
  for (const [name, line] of Object.entries(COMMANDS)) {
    const r = cli(line(huge));
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.equal(r.stderr, `draftsmith: ${huge} is 300 MiB; the largest file Draftsmith reads is 256 MiB (split it)\n`);
  }
});

test('a file that is not there is a bad command line for every command (exit 2), check included', () => {
  for (const [name, line] of Object.entries({ ...COMMANDS, check: (f: string) => ['check', f] })) {
    const r = cli(line(missing));
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^draftsmith: no such file( or folder)?: ${missing}( |$)`, 'm'), name);
  }
});

test('UTF-8 with a stray byte is read with "\uFFFD" for it and a warning with its byte offset, by every command', () => {
  for (const [name, line] of Object.entries(COMMANDS)) {
    const r = cli(line(stray));
    assert.equal(
      r.stderr.split('\n')[0],
      `warning: ${stray} is not valid UTF-8 at byte 24; that byte is read as "\uFFFD"`,
      `${name}: ${r.stderr}`,
    );
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.notEqual(r.stdout, '', name);
  }
});
