// One command-line grammar: --version, "did you mean" for a near-miss command or option, options
// that cannot go together or are given twice refused (exit 2) before any work, numbers out of range
// said in plain English, and the former option names still taken with a note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { nearest } from '../../extension/cli/suggest';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('cli-grammar');
const ref = path.join(dir, 'ref.txt');
writeFileSync(ref, 'the cat sat on the mat\n');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('draftsmith --version prints the version of package.json and exits 0', () => {
  const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  for (const args of [['--version'], ['summarize', '--version']]) {
    const r = cli(args);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `draftsmith ${version}\n`);
  }
});

test('a near-miss command gets "did you mean" and the list of commands, not the whole usage (exit 2)', () => {
  const r = cli(['summarise', 'notes.txt']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^draftsmith: unknown command "summarise"; did you mean summarize\? The commands: summarize, /,
  );
  assert.equal(r.stderr.split('\n').length, 2, 'one line');
  assert.match(cli(['eval', 'sumarize']).stderr, /did you mean eval summarize\?/);
  assert.match(cli(['frobnicate']).stderr, /^draftsmith: unknown command "frobnicate"\. The commands:/);
});

test('a near-miss option gets "did you mean" (exit 2)', () => {
  const r = cli(['summarize', 'notes.txt', '--mdoe', 'abstractive']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^draftsmith: summarize does not take --mdoe \(did you mean --mode\?\); its options: /);
  assert.equal(nearest('frobnicate', ['mode', 'json']), undefined, 'no guess far from every option');
});

test('options that cannot go together, or one given twice with two values, are refused before any work (exit 2)', () => {
  for (const [args, message] of [
    [['summarize', 'missing.txt', '--json', '--jsonl'], '--json and --jsonl cannot go together: give one of them'],
    [['score', '--ref', ref, '--hyp', ref, '--json', '--csv'], '--json and --csv cannot go together: give one of them'],
    [
      ['score', '--ref', ref, '--hyp', ref, '--hyp', ref, '--paired-bs', '--paired-ar'],
      '--paired-bs and --paired-ar cannot go together: give one of them',
    ],
    [
      ['summarize', 'missing.txt', '--mode', 'extractive', '--mode', 'abstractive'],
      '--mode was given twice ("extractive", "abstractive"): give it once',
    ],
    [['story', '--text', 'Once.', '--premise'], '--text and --premise cannot go together: give one of them'],
  ] as const) {
    const r = cli([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `draftsmith: ${message}\n`, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test("a number out of range is said in plain English, not in the validator's words (exit 2)", () => {
  for (const [args, message] of [
    [['score', '--ref', ref, '--hyp', ref, '--limit', '-3'], '--limit must be 1 or more, not -3'],
    [['essay', 'bee, frog', '--beam', '0'], '--beam must be between 1 and 16, not 0'],
    [['summarize', ref, '--max-tokens', '99999'], /^--max-tokens must be \d+ or less, not 99999$/],
    [['story', '--text', 'Once.', '--max-words', '2.5'], '--max-words must be a whole number, not "2.5"'],
  ] as const) {
    const r = cli([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const said = r.stderr.replace(/^draftsmith: /, '').trimEnd();
    if (typeof message === 'string') assert.equal(said, message);
    else assert.match(said, message);
    assert.doesNotMatch(r.stderr, /Too small|Too big|expected number/);
  }
});

test('the former names --max-length, --words and --prompt still work, each with a note on standard error', () => {
  const story = cli(['story', '--prompt', 'The cat sat by the door.', '--words', '6', '--seed', '3']);
  assert.equal(story.code, 0, story.stderr);
  assert.match(story.stderr, /^note: --prompt is now --text; the old name will go in a future release$/m);
  assert.match(story.stderr, /^note: --words is now --max-words; the old name will go in a future release$/m);
  const renamed = cli(['story', '--text', 'The cat sat by the door.', '--max-words', '6', '--seed', '3']);
  assert.equal(story.stdout, renamed.stdout, 'the same story under either name');
  const essay = cli(['essay', 'bee, frog', '--beam', '1', '--max-length', '6']);
  assert.equal(essay.code, 0, essay.stderr);
  assert.match(essay.stderr, /^note: --max-length is now --max-tokens; /m);
  // --prompt - was the text "-"; now, as everywhere, it is standard input.
  const stdin = spawnSync(process.execPath, [CLI, 'story', '--prompt', '-', '--max-words', '6', '--seed', '3'], {
    cwd: dir,
    encoding: 'utf8',
    input: 'The cat sat by the door.',
  });
  assert.equal(stdin.stdout, renamed.stdout);
});

test('--model takes the same values for every command; reply and roundtrip say why a Hub id cannot serve them', () => {
  for (const command of ['reply', 'roundtrip']) {
    const r = cli([command, '--text', 'The cat sat. It slept.', '--model', 'Xenova/gpt2']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^draftsmith: --model Xenova/gpt2: .* no Hub model is one$`, 'm'));
  }
  const builtIn = cli(['rewrite', '--text', 'Some text.', '--preset', 'shorter', '--model', 'built-in']);
  assert.equal(builtIn.code, 2);
  assert.match(builtIn.stderr, /--model built-in names Draftsmith's own models, which follow no instructions/);
});
