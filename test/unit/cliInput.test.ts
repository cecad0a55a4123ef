// What the CLI reads and how it says what is wrong with it (items 9-12): a word that looks
// like a file name but names no file gets "no such file"; messages speak of "the file" or "the text",
// never of the editor's selection; a Latin-1 or UTF-16 file is read as such, with a note; a file of
// emoji has "no words the model can read", which is not "empty".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { decodeText, looksLikePath } from '../../extension/cli/inputText';
import { unreadableMessage } from '../../extension/engine/text/origin';
import { SYSTEMS } from '../../extension/engine/systems/registry';
import { modelsDir, repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('cli-input');

function cli(args: string[], input?: string | Buffer): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, input, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, content: string | Buffer): string {
  const f = path.join(dir, name);
  writeFileSync(f, content);
  return f;
}

// ---- item 9: TEXT or FILE ------------------------------------------------------------------------

test('the rule: one word with a path separator or a file extension is a file name; anything else is text', () => {
  for (const w of [
    'missing-file.txt',
    'post.md',
    'notes/post',
    './post',
    '..\\post',
    'C:\\posts\\a',
    'archive.tar.gz',
    'song.mp3',
    'a.b7',
  ]) {
    assert.equal(looksLikePath(w), true, w);
  }
  for (const w of [
    'tennis',
    'Hello.',
    'Really?!',
    'v1.2',
    '3.14',
    'Do you like tennis?',
    'a post.txt with spaces',
    '...',
    'wait...what',
    '',
  ]) {
    assert.equal(looksLikePath(w), false, w);
  }
});

test('draftsmith reply missing-file.txt says "no such file" (exit 2, a bad command line) instead of replying to the file name', () => {
  for (const [cmd, word] of [
    ['reply', 'missing-file.txt'],
    ['reply', 'posts/missing'],
    ['essay', 'topics.txt'],
    ['summarize', 'article.txt'],
    ['roundtrip', 'paragraph.md'],
  ]) {
    const r = cli([cmd, word]);
    assert.equal(r.code, 2, `${cmd} ${word}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^draftsmith: no such file: ${word.replace('.', '\\.')}`, 'm'), `${cmd} ${word}`);
    assert.equal(r.stdout, '', `${cmd} ${word} wrote something`);
  }
  // For reply and essay the message says how to give such a word as text.
  assert.match(cli(['reply', 'missing-file.txt']).stderr, /give them with --text "missing-file\.txt"/);
  // A folder is not a file.
  assert.match(cli(['reply', './']).stderr, /^draftsmith: \.\/ is a folder, not a file$/m);
});

test('reply reads an existing FILE, - (standard input), --text TEXT, or the words themselves', () => {
  const post = file('post.txt', 'I love playing tennis with my old friends.');
  const keysOf = (r: { stderr: string }) => /^keys of the post: (.*)$/m.exec(r.stderr)?.[1];
  const fromFile = cli(['reply', post, '--candidates', '1', '--beam', '1']);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(keysOf(fromFile), 'tennis, old, friend');
  const fromStdin = cli(
    ['reply', '-', '--candidates', '1', '--beam', '1'],
    'I love playing tennis with my old friends.',
  );
  assert.equal(keysOf(fromStdin), 'tennis, old, friend');
  // A word that looks like a file name, given as the post itself.
  const asText = cli(['reply', '--text', 'concert.txt', '--candidates', '1', '--beam', '1']);
  assert.doesNotMatch(asText.stderr, /no such file/);
  assert.match(keysOf(asText) ?? '', /^concert/);
  // One word that is no file name is the post, as before.
  assert.match(keysOf(cli(['reply', 'tennis', '--candidates', '1', '--beam', '1'])) ?? '', /^tennis/);
});

test('the text is given once, and roundtrip reads one FILE (exit 2 otherwise; summarize reads several: summarizeDocuments.test.ts)', () => {
  const a = file('a.txt', 'The river rose. The farmers moved.');
  const twice = cli(['reply', a, '--text', 'Hello there.']);
  assert.equal(twice.code, 2);
  assert.match(
    twice.stderr,
    /^draftsmith: reply: give the text once: --text TEXT, or TEXT, FILE, or - for standard input$/m,
  );
  const two = cli(['roundtrip', a, a]);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /^draftsmith: roundtrip reads one FILE, not 2 /m);
  assert.match(
    cli(['summarize']).stderr,
    /^draftsmith: summarize needs a FILE \(use - for standard input, or --text "\.\.\."\)$/m,
  );
});

// ---- item 10: "the file" / "the text", not "the selection" ----------------------------------------

test('CLI messages speak of the file or the text, never of the selection', () => {
  const empty = file('empty.txt', ' \n\t\n');
  for (const cmd of ['summarize', 'roundtrip', 'reply']) {
    const r = cli([cmd, empty]);
    assert.equal(r.code, 1, `${cmd}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /^draftsmith: There is no (text to summarize|paragraph to round-trip|post to reply to): the file is empty\.$/m,
      cmd,
    );
    const stdin = cli([cmd, '-'], '   \n');
    assert.match(stdin.stderr, /: the text is empty\.$/m, `${cmd} -`);
  }
  const binary = file('binary.txt', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 97) % 256)));
  assert.match(
    cli(['summarize', binary]).stderr,
    /^draftsmith: .*binary\.txt looks like binary data, not text \(.*\); nothing was done with it$/m,
  );
  assert.match(
    cli(['roundtrip', '--text', 'x = 1;\ny = 2;\nz = 3;']).stderr,
    /not a paragraph of prose: .* Give a paragraph\.$/m,
  );
  assert.match(
    cli(['essay', '--text', ', ; .']).stderr,
    /^draftsmith: Give a few topic words .*: the text has no words\.$/m,
  );
  for (const args of [
    ['summarize', empty],
    ['roundtrip', binary],
    ['essay', file('topics.txt', '...')],
    ['reply', '--text', '🎉'],
  ]) {
    assert.doesNotMatch(cli(args).stderr, /selection|Select /, args.join(' '));
  }
});

test('the editor keeps its wording: no origin in the request means the selection', async () => {
  const engine = new Engine({ modelsDir, device: 'cpu', threads: 1 }, () => {});
  const message = async (request: Parameters<Engine['run']>[0]) => {
    const e = await engine.run(request).then(
      () => undefined,
      (x: unknown) => x,
    );
    assert.ok(e instanceof EngineError && e.code === 'bad-input', String(e));
    return e.message;
  };
  // The exact messages the extension showed before (its tests and users know them).
  assert.equal(
    await message({ op: 'summarize', text: '' }),
    'There is no text to summarize: the selection (or document) is empty.',
  );
  assert.equal(
    await message({ op: 'reply', text: ' \n' }),
    'There is no post to reply to: the selection (or document) is empty.',
  );
  assert.equal(
    await message({ op: 'roundtrip', text: '\t' }),
    'There is no paragraph to round-trip: the selection (or paragraph) is empty.',
  );
  assert.equal(
    await message({ op: 'summarize', text: '\u0000\u0001\u0002 x \u0003\u0004' }),
    'The selection looks like binary data, not prose; nothing was summarized.',
  );
  assert.equal(
    await message({ op: 'reply', text: '\u0000\u0001\u0002 x \u0003\u0004' }),
    'The selection looks like binary data, not a message; no replies were written.',
  );
  // The CLI's.
  assert.equal(
    await message({ op: 'summarize', text: '', origin: 'file' }),
    'There is no text to summarize: the file is empty.',
  );
  assert.equal(
    await message({ op: 'roundtrip', text: '', origin: 'text' }),
    'There is no paragraph to round-trip: the text is empty.',
  );
  assert.equal(
    unreadableMessage('binary', SYSTEMS.roundtrip.input.task, 'file'),
    'The file looks like binary data, not prose; nothing was round-tripped.',
  );
});

// ---- item 11: Latin-1 and UTF-16 files -------------------------------------------------------------

const FRENCH =
  "Le café était fermé à l'été. Les élèves sont rentrés à la maison après l'école. Ça a été une journée très agréable.";

test('a Latin-1 file is read as ISO-8859-1/Windows-1252 with a note, not taken for binary data', () => {
  const latin1 = file('latin1.txt', Buffer.from(FRENCH, 'latin1'));
  const utf8 = file('utf8.txt', FRENCH);
  // The same text in two encodings scores as identical.
  const score = cli(['score', '--document', '--ref', utf8, '--hyp', latin1, '--json', '--quiet']);
  assert.equal(score.code, 0, score.stderr);
  assert.ok(Math.abs(JSON.parse(score.stdout).bleu.score - 100) < 1e-9, score.stdout);
  assert.match(score.stderr, /^note: .*latin1\.txt is not UTF-8; read as ISO-8859-1\/Windows-1252/m);
  // Summarize reads its accented letters: the extractive summary is a sentence of the source, verbatim.
  const summary = cli(['summarize', latin1]);
  assert.equal(summary.code, 0, summary.stderr);
  assert.doesNotMatch(summary.stderr, /binary/);
  assert.match(summary.stderr, /^note: .*is not UTF-8; read as ISO-8859-1\/Windows-1252/m);
  assert.ok(
    summary.stdout.trim().length > 0 && FRENCH.includes(summary.stdout.trim().split(/(?<=\.) /)[0]),
    summary.stdout,
  );
  assert.match(summary.stdout, /[éèàç]/);
});

test('bytes are decoded as UTF-8, UTF-16 (by its byte-order mark) or Windows-1252, and binary stays binary', () => {
  assert.deepEqual(decodeText(Buffer.from('\uFEFFcafé', 'utf8'), 'f'), { text: 'café' });
  const utf16 = decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('café 東京', 'utf16le')]), 'f');
  assert.equal(utf16.text, 'café 東京');
  assert.match(utf16.note ?? '', /UTF-16/);
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
  const cp1252 = decodeText(bytes('The ', [0x93], 'Caf', [0xe9, 0x94], ' costs ', [0x80], '5 today.'), 'f');
  assert.equal(cp1252.text, 'The \u201cCafé\u201d costs €5 today.');
  assert.match(cp1252.note ?? '', /ISO-8859-1\/Windows-1252/);
  // Not text in any of them: NUL bytes, or mostly high bytes (another encoding), are left to the engine.
  for (const bytes of [
    [0x00, 0xe9, 0x41, 0x42],
    [0x82, 0xa0, 0x82, 0xa2, 0x82, 0xa4, 0x41],
  ]) {
    assert.equal(decodeText(Buffer.from(bytes), 'f').note, undefined, JSON.stringify(bytes));
  }
  // A UTF-16 file scores as its UTF-8 twin.
  const ref = file('ref16.txt', 'The council met on Tuesday.');
  const hyp = file(
    'hyp16.txt',
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('The council met on Tuesday.', 'utf16le')]),
  );
  const r = cli(['score', '--document', '--ref', ref, '--hyp', hyp, '--json', '--quiet']);
  assert.ok(Math.abs(JSON.parse(r.stdout).bleu.score - 100) < 1e-9, r.stderr);
});

// ---- item 12: emoji only -------------------------------------------------------------------------

test('a file of emoji has no words the model can read; it is not reported as empty', () => {
  const emoji = file('emoji.txt', '🎉🎉 👍🏽 🚀\n👩‍👩‍👧‍👦\n');
  for (const cmd of ['summarize', 'roundtrip', 'reply']) {
    const r = cli([cmd, emoji]);
    assert.equal(r.code, 1, `${cmd}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /^draftsmith: There is no .*: the file has no words the model can read \(only emoji, symbols or punctuation\)\.$/m,
      cmd,
    );
    assert.doesNotMatch(r.stderr, /empty/, cmd);
  }
  assert.equal(readFileSync(emoji, 'utf8').trim().length > 0, true);
});
