// The CLI's options: --help, -h and help print the usage and exit 0; every command refuses an
// option it does not take (exit 2, naming those it takes) instead of ignoring it; and every option
// the command table, --help and the documentation show for a command is one the command takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, spelled } from '../../extension/cli/commands';
import { commandHelp } from '../../extension/cli/help';
import { COMMAND_OPTIONS } from '../../extension/cli/options';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('cli-options');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('draftsmith --help, -h and help print the usage on standard output and exit 0; no command at all exits 2', () => {
  for (const args of [['--help'], ['-h'], ['help'], ['summarize', '--help'], ['score', '-h']]) {
    const r = cli(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^usage:\n {2}draftsmith --help \| -h \| help/, args.join(' '));
    assert.equal(r.stderr, '', args.join(' '));
  }
  const none = cli([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^draftsmith: no command given\nusage:/);
  assert.equal(none.stdout, '');
});

/** Each command, and one option it documents (the list in the message must have it). */
const TABLE: [string[], string][] = [
  [['summarize'], '--mode'],
  [['essay'], '--candidates'],
  [['story'], '--max-words'],
  [['roundtrip'], '--max-sentences'],
  [['reply'], '--mapper'],
  [['rewrite'], '--preset'],
  [['score'], '--tokenize'],
  [['eval', 'summarize'], '--aggregation'],
  [['eval', 'essay'], '--unconstrained'],
  [['eval', 'story'], '--ranking'],
  [['eval', 'roundtrip'], '--variant'],
  [['eval', 'reply'], '--examples'],
  [['check'], '--rule'],
  [['eval', 'checks'], '--limit'],
];

test('every command refuses an option it does not take: exit 2, naming the options it takes', () => {
  assert.deepEqual(
    TABLE.map(([c]) => c.join(' ')).sort(),
    Object.keys(COMMAND_OPTIONS).sort(),
    'the table covers every command',
  );
  for (const [command, documented] of TABLE) {
    const name = command.join(' ');
    for (const bad of [['--frobnicate', '1'], ['--frobnicate'], ['--frobnicate=1'], ['-x']]) {
      const r = cli([...command, ...bad]);
      assert.equal(r.code, 2, `${name} ${bad.join(' ')}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `^draftsmith: ${name} does not take ${bad[0].split('=')[0]}; its options: .*${documented}( |$)`,
          'm',
        ),
        `${name} ${bad.join(' ')}`,
      );
      assert.equal(r.stdout, '', `${name} ${bad.join(' ')} wrote output`);
    }
  }
});

test('an option of another command, or a misspelt one, is refused before any work is done', () => {
  const ref = path.join(dir, 'ref.txt');
  writeFileSync(ref, 'the cat sat on the mat\n');
  // --tokenize is score's; --tokenizer, sacreBLEU's -lc and --beam are not.
  const ok = cli(['score', '--ref', ref, '--hyp', ref, '--tokenize', 'intl', '--quiet']);
  assert.equal(ok.code, 0, ok.stderr);
  for (const bad of [['--tokenizer', 'intl'], ['-lc'], ['--beam', '4']]) {
    const r = cli(['score', '--ref', ref, '--hyp', ref, ...bad]);
    assert.equal(r.code, 2, `score ${bad.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^draftsmith: score does not take ${bad[0]}( \\(did you mean [^)]*\\))?;`, 'm'));
  }
  // A near miss names the option meant.
  assert.match(
    cli(['score', '--ref', ref, '--hyp', ref, '--tokenizer', 'intl']).stderr,
    /^draftsmith: score does not take --tokenizer \(did you mean --tokenize\?\);/m,
  );
  // Refused before the file is read or a model loads: the option, not the missing file, is the message.
  const r = cli(['story', '--text', 'Once upon a time.', '--mapper', 'all']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^draftsmith: story does not take --mapper;/m);
  assert.match(
    cli(['summarize', 'missing.txt', '--verbose']).stderr,
    /^draftsmith: summarize does not take --verbose;/m,
  );
  // Text that starts with "-" goes after "--"; an option without its value still says so.
  assert.doesNotMatch(cli(['reply', '--candidates', '1', '--', '-- not an option --']).stderr, /does not take/);
  // A word with spaces is text even when it starts with "-".
  assert.doesNotMatch(
    cli(['reply', '--candidates', '1', '-5 degrees and sunny, I love tennis']).stderr,
    /does not take/,
  );
  assert.match(cli(['score', '--ref']).stderr, /^draftsmith: --ref needs a value$/m);
});

/** The --flags (and -m) in some text, as option names. */
const flagsIn = (text: string) =>
  [...text.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-m)(?![\w-])/g)].map((m) =>
    m[1] === '-m' ? 'metrics' : m[1].slice(2),
  );

/** Usage blocks ("  draftsmith COMMAND ..." and the lines indented under it), by command. */
function usageBlocks(usage: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let current: string | undefined;
  for (const line of usage.split('\n')) {
    const head = /^ {2}draftsmith ((?:eval )?[a-z]+)\b/.exec(line);
    if (head) {
      current = COMMAND_OPTIONS[head[1]] ? head[1] : undefined;
      if (current) blocks.set(current, `${blocks.get(current) ?? ''}\n${line}`);
    } else if (/^ {2}\S/.test(line))
      current = undefined; // a note for several commands, below
    else if (current && /^ {3,}/.test(line)) blocks.set(current, `${blocks.get(current)}\n${line}`);
  }
  return blocks;
}

test('every option --help shows for a command is one it takes, and so are the notes for several commands', () => {
  const usage = cli(['--help']).stdout;
  const blocks = usageBlocks(usage);
  assert.deepEqual([...blocks.keys()].sort(), Object.keys(COMMAND_OPTIONS).sort(), 'a usage block for every command');
  for (const [command, text] of blocks) {
    for (const f of flagsIn(text))
      assert.ok(COMMAND_OPTIONS[command].includes(f), `--help shows ${command} --${f}, which it refuses`);
  }
  // The notes: --dump and --no-guards for every eval of a model (eval checks runs none); the model
  // sources and runtime for the model commands.
  for (const command of Object.keys(COMMAND_OPTIONS).filter((c) => c.startsWith('eval ') && c !== 'eval checks')) {
    for (const f of ['dump', 'no-guards', 'data', 'limit', 'variant', 'models', 'device', 'threads'])
      assert.ok(COMMAND_OPTIONS[command].includes(f), `${command} --${f}`);
  }
  for (const command of ['summarize', 'essay', 'story', 'roundtrip', 'reply']) {
    for (const f of ['no-guards', 'models', 'models-url', 'offline', 'device', 'threads'])
      assert.ok(COMMAND_OPTIONS[command].includes(f), `${command} --${f}`);
  }
  for (const command of ['summarize', 'essay', 'roundtrip', 'reply'])
    assert.ok(COMMAND_OPTIONS[command].includes('text'), `${command} --text`);
});

test('every option the command table names for a command (usage, notes, option texts, examples) is one it takes', () => {
  for (const c of COMMANDS) {
    const texts = [
      ...c.usage.flatMap((u) => [u.synopsis, u.note ?? '']),
      ...c.options.map((o) => o.description),
      ...(c.examples ?? []).flatMap((e) => [e.args, e.what]),
    ];
    for (const f of flagsIn(texts.join('\n')))
      assert.ok(COMMAND_OPTIONS[c.name].includes(f), `the table shows ${c.name} --${f}, which it refuses`);
    for (const e of c.examples ?? []) assert.ok(e.args.startsWith(`${c.name} `), `${c.name}: example ${e.args}`);
  }
});

test('an option takes the same kind of value in every command (the parser reads it before it knows the command)', () => {
  const kinds = new Map<string, Set<string>>();
  for (const c of COMMANDS)
    for (const o of c.options) {
      const kind = o.kind === 'flag' || o.kind === 'words' ? o.kind : 'one value';
      kinds.set(o.name, (kinds.get(o.name) ?? new Set()).add(kind));
    }
  for (const [name, k] of kinds) assert.equal(k.size, 1, `--${name} is ${[...k].join(' in one command, ')} in another`);
});

test('draftsmith COMMAND --help describes every option the command takes', () => {
  for (const c of COMMANDS) {
    const help = commandHelp(c);
    for (const o of c.options)
      assert.match(help, new RegExp(`^ {6}${spelled(o)}( |$)`, 'm'), `${c.name} ${spelled(o)}`);
  }
  assert.equal(
    cli(['eval', 'story', '--help']).stdout,
    `${commandHelp(COMMANDS.find((c) => c.name === 'eval story')!)}\n`,
  );
  assert.equal(cli(['help', 'score']).stdout, `${commandHelp(COMMANDS.find((c) => c.name === 'score')!)}\n`);
});

test('every draftsmith command line in the README and docs/ uses options its command takes', () => {
  const pages = [
    'README.md',
    ...readdirSync(path.join(repoRoot, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  for (const page of pages) {
    for (const line of readFileSync(path.join(repoRoot, page), 'utf8').split('\n')) {
      const m =
        /(?:npx draftsmith|node dist\/cli\.js) ((?:eval )?[a-z]+)\b(.*)$/.exec(line) ??
        /npm run eval:([a-z]+) -- (.*)$/.exec(line);
      if (!m) continue;
      const command = line.includes('npm run eval:') ? `eval ${m[1]}` : m[1];
      if (!COMMAND_OPTIONS[command]) continue;
      for (const f of flagsIn(m[2]))
        assert.ok(COMMAND_OPTIONS[command].includes(f), `${page}: ${command} --${f} (${line.trim().slice(0, 100)})`);
    }
  }
});
