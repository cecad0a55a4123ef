// The CLI given hostile arguments and files: empty, whitespace, a megabyte, binary bytes, NUL, lone
// surrogates, right-to-left and mixed scripts, emoji, nonsense options. It must end on its own with
// exit code 0, 1 or 2 and, on failure, one clear "draftsmith: ..." message, never a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
/** Each run starts a process (and some load a model): a tenth as many as the in-process properties. */
const CLI_RUNS = Math.max(10, Math.round(RUNS / 10));
const dir = tempDir('cli');
let files = 0;

function fileWith(content: string | Buffer): string {
  const f = path.join(dir, `input-${files++}.txt`);
  writeFileSync(f, content);
  return f;
}

/** Runs the CLI and checks how it ended; returns stdout and stderr for more checks. */
function cli(args: string[]): { code: number; stdout: string; stderr: string } {
  // Arguments cannot hold NUL bytes (the OS ends them there): spawn would refuse, which is not the CLI's doing.
  const r = spawnSync(process.execPath, [CLI, ...args.map((a) => a.replace(/\0/g, ''))], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  const what = `draftsmith ${JSON.stringify(args).slice(0, 200)}`;
  assert.equal(r.error, undefined, `${what}: ${String(r.error)}`);
  assert.equal(r.signal, null, `${what} was killed (${r.signal}): a hang or a crash`);
  assert.ok(r.status === 0 || r.status === 1 || r.status === 2, `${what} exited with ${r.status}`);
  assert.doesNotMatch(
    r.stderr,
    /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m,
    `${what} printed a stack trace:\n${r.stderr.slice(0, 2000)}`,
  );
  assert.doesNotMatch(
    r.stderr,
    /\b(TypeError|RangeError|ReferenceError|SyntaxError|ZodError)\b|"code": "|\[\s*\{\s*"/,
    `${what} printed an internal error:\n${r.stderr.slice(0, 2000)}`,
  );
  if (r.status !== 0)
    assert.match(r.stderr, /^draftsmith: \S/m, `${what} failed without saying why:\n${r.stderr.slice(0, 2000)}`);
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const nasty = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\u202E',
  '\uFEFF',
  'שלום עולם',
  'مرحبا',
  '東京',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '<script>alert(1)</script>',
  '--',
  '-',
  '--beam',
  '--beam=0',
  '--beam=-1',
  '--beam=1e9',
  '--max-tokens',
  '--max-tokens=99999',
  '--candidates=0',
  '--threads=999',
  '--device=gpu',
  '--json',
  '--csv',
  '--models=/nonexistent',
  '--ref',
  '--hyp',
  '--help',
  '=',
  '%s%n',
);
const arg = fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 20 }), fc.stringMatching(/^[a-z]{1,8}$/));
const command = fc.constantFrom('summarize', 'essay', 'roundtrip', 'score', 'eval', 'launch', '');

test('fixed hostile cases: every command ends with a clear message or an answer', () => {
  const binary = fileWith(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 97) % 256)));
  const empty = fileWith('');
  const blank = fileWith(' \n\t\n ');
  const nul = fileWith('The council met.\u0000\u0000 It voted.');
  const megabyte = fileWith(
    'The council met on Tuesday. Café owners — and 東京 visitors 👍🏽 — asked for longer hours! '.repeat(11_000),
  );
  const mixed = fileWith('שלום The bridge opened. مرحبا \uD800 lone \u202Eevil\u202C 👩‍👩‍👧‍👦 done.');

  assert.match(cli(['summarize', empty]).stderr, /^draftsmith: .*empty/m);
  assert.match(cli(['summarize', blank]).stderr, /^draftsmith: .*empty/m);
  assert.match(cli(['summarize', binary]).stderr, /^draftsmith: .*binary/m);
  assert.match(cli(['summarize', path.join(dir, 'missing.txt')]).stderr, /^draftsmith: no such file: .*missing\.txt$/m);
  // A folder is summarized file by file (summarizeDocuments.test.ts); one without documents is said so.
  const bare = path.join(dir, 'no-documents');
  mkdirSync(bare, { recursive: true });
  assert.match(cli(['summarize', bare]).stderr, /^draftsmith: .*no-documents holds no Markdown or text file/m);
  assert.equal(cli(['summarize', nul, '--max-tokens', '8']).code, 0);
  // Long text is read whole, in parts of the model's window: nothing is cut (100 KB here: a megabyte
  // read whole takes half a minute of CPU, too long for this test).
  const long = fileWith(
    'The council met on Tuesday. Café owners — and 東京 visitors 👍🏽 — asked for longer hours! '.repeat(1_100),
  );
  const whole = cli(['summarize', long, '--beam', '1', '--max-tokens', '8']);
  assert.equal(whole.code, 0);
  assert.match(whole.stderr, /read whole in \d+ parts/);
  assert.doesNotMatch(whole.stderr, /covers the first/);
  // The synopsis reads it whole too, window by window (past the 32 windows of 320 tokens it once stopped at).
  const synopsis = cli(['summarize', long, '--mode', 'synopsis']);
  assert.equal(synopsis.code, 0, synopsis.stderr);
  const read = Number(/^(\d+) tokens read in/m.exec(synopsis.stderr)?.[1]);
  assert.ok(read > 32 * 320, `${read} tokens read`);
  assert.doesNotMatch(synopsis.stderr, /covers the first/);
  assert.equal(cli(['summarize', mixed, '--max-tokens', '8']).code, 0);
  assert.match(cli(['summarize', empty, '--beam', '0']).stderr, /^draftsmith: (--beam|.*empty)/m);
  assert.match(cli(['summarize', nul, '--beam', '0']).stderr, /^draftsmith: --beam must be between 1 and 16, not 0$/m);
  assert.match(
    cli(['summarize', nul, '--max-tokens', '99999']).stderr,
    /^draftsmith: --max-tokens must be \d+ or less, not 99999$/m,
  );
  assert.match(cli(['summarize', nul, '--threads', '999']).stderr, /^draftsmith: --threads must be between 0 and 64/m);
  assert.match(
    cli(['summarize', nul, '--beam', 'many']).stderr,
    /^draftsmith: --beam must be a whole number, not "many"$/m,
  );

  assert.match(cli(['essay', '']).stderr, /^draftsmith: essay needs topic words/m);
  assert.match(cli(['essay', ', ; . !']).stderr, /^draftsmith: .*no words/m);
  assert.match(cli(['essay', 'a'.repeat(1_000)]).stderr, /^draftsmith: A topic word is too long/m);
  // onnxruntime would crash reading a command line this long: refused before it starts.
  assert.match(
    cli(['essay', 'a'.repeat(100_000)]).stderr,
    /^draftsmith: the command line is \d+ characters long.*\n?.*in a file/m,
  );
  assert.match(
    cli(['story', '--text', 'Once upon a time. '.repeat(3_000)]).stderr,
    /^draftsmith: the command line is \d+ characters long/m,
  );
  assert.match(
    cli(['essay', 'bee, frog', '--candidates', '9']).stderr,
    /^draftsmith: --candidates must be between 1 and 5, not 9$/m,
  );
  assert.equal(cli(['essay', 'bee, 🐝, \u202Efrog, 東京', '--beam', '1', '--max-tokens', '8']).code, 0);

  assert.match(cli(['score', '--ref', binary, '--hyp', empty]).stderr, /^draftsmith: /m);
  assert.match(cli(['score', '--ref', megabyte, '--hyp', megabyte, '--document']).stderr, /^draftsmith: .*too long/m);
  assert.match(cli(['score', '--ref']).stderr, /^draftsmith: --ref needs a value/m);
  assert.match(cli(['frobnicate']).stderr, /^draftsmith: unknown command/m);
  assert.match(cli([]).stderr, /^draftsmith: no command given/m);
});

test(`any hostile command line ends with a clear message or an answer (${CLI_RUNS} command lines)`, () => {
  fc.assert(
    fc.property(command, fc.array(arg, { maxLength: 6 }), (cmd, rest) => {
      cli([cmd, ...rest].filter((a, i) => i > 0 || a !== ''));
    }),
    { numRuns: CLI_RUNS },
  );
});

test(`score and summarize on hostile files end with scores, a summary or a clear message (${CLI_RUNS} files)`, () => {
  const content = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
    fc
      .array(fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 20 })), { maxLength: 30 })
      .map((p) => p.join(' ')),
  );
  fc.assert(
    fc.property(content, content, fc.boolean(), (ref, hyp, summarize) => {
      const r = fileWith(ref);
      const h = fileWith(hyp);
      if (summarize) cli(['summarize', h, '--beam', '1', '--max-tokens', '8']);
      else cli(['score', '--ref', r, '--hyp', h, '--document']);
    }),
    { numRuns: CLI_RUNS },
  );
});
