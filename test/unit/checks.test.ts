// The prose checks (engine/checks): each family flags a known case and leaves a correct sentence
// alone; Markdown code, links and markup are never checked; the personal dictionary is honoured;
// fixes land where the text is; only changed paragraphs are checked again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedChecker, type CheckFinding, defaultCheckerConfig } from '../../extension/engine/checks/checker';
import { applyFixes, safeFixes } from '../../extension/engine/checks/fixes';
import type { DocumentFormat } from '../../extension/engine/text/markdown';

async function check(text: string, format: DocumentFormat = 'markdown', words: string[] = []): Promise<CheckFinding[]> {
  const checker = await sharedChecker();
  const config = defaultCheckerConfig();
  for (const f of Object.keys(config.rules) as (keyof typeof config.rules)[]) config.rules[f] = 'warning';
  await checker.configure({ ...config, words });
  const result = await checker.check(text, format);
  assert.ok(result);
  return result.findings;
}

const families = (fs: CheckFinding[]) => fs.map((f) => f.family);
const at = (text: string, f: CheckFinding) => text.slice(f.start, f.end);

test('a correct sentence gets no finding from any family', async () => {
  const text = 'The committee approved the proposal after a short discussion.\n\nShe writes clear, simple sentences.';
  assert.deepEqual(await check(text), []);
});

test('spelling flags an unknown word with its suggestions; a name inside a sentence is left alone', async () => {
  const text = 'Yesterday Marguerite Okonkwo recieved a letter.';
  const fs = await check(text);
  assert.deepEqual(families(fs), ['spelling']);
  assert.equal(at(text, fs[0]), 'recieved');
  assert.equal(fs[0].fixes[0].text, 'received');
  assert.equal(fs[0].word, 'recieved');
});

test('grammar (Harper) flags an agreement error and offers the fix', async () => {
  const text = 'He go to school every day.';
  const fs = await check(text);
  assert.equal(fs.length, 1);
  assert.equal(fs[0].family, 'grammar');
  assert.match(fs[0].rule, /^grammar\//);
  assert.equal(at(text, fs[0]), 'go');
  assert.deepEqual(
    fs[0].fixes.map((x) => x.text),
    ['goes'],
  );
});

test('a doubled word is flagged with one safe fix; spacing too in plain text, not in Markdown (rendered, spaces collapse)', async () => {
  const text = 'This is is fine.  It works.';
  assert.deepEqual(families(await check(text)), ['repeated-word']);
  const fs = await check(text, 'plain');
  const repeated = fs.find((f) => f.family === 'repeated-word');
  const spacing = fs.find((f) => f.family === 'spacing');
  assert.ok(repeated && spacing, JSON.stringify(fs));
  assert.equal(repeated.safe, true);
  assert.equal(spacing.safe, true);
  assert.equal(applyFixes(text, safeFixes(fs)), 'This is fine. It works.');
});

test('passive voice, wordy phrases and a long sentence are flagged', async () => {
  const text =
    'The ball was thrown by the boy.\n\nIn order to succeed, work hard.\n\n' +
    'This sentence goes on and on with one clause after another and another, because the writer never stops to let the reader breathe, and it keeps adding more words and more ideas until nobody can remember how it began or what it was meant to say at all.';
  const fs = await check(text);
  const passive = fs.find((f) => f.family === 'passive-voice');
  const wordy = fs.find((f) => f.family === 'wordy-phrase');
  const long = fs.find((f) => f.family === 'long-sentence');
  assert.ok(passive && wordy && long, JSON.stringify(fs.map((f) => f.rule)));
  assert.equal(at(text, passive), 'was thrown');
  assert.equal(at(text, wordy), 'In order to');
});

test('Markdown code blocks, inline code, links, HTML and front matter are never checked', async () => {
  const text = [
    '---',
    'titel: Teh draft',
    '---',
    '',
    'Run `npm instal teh` first, then see https://exmaple.com/teh or <span title="teh">this page</span> [the guide](http://teh.example/recieve).',
    '',
    '```js',
    'const teh = recieve(x) x;',
    '```',
    '',
    '<div>teh teh recieve</div>',
    '',
    '    indented teh code',
  ].join('\n');
  assert.deepEqual(
    (await check(text)).map((f) => `${f.rule}:${at(text, f)}`),
    [],
  );
});

test('markup inside a finding keeps it, with its place in the document, but no fix that would break the markup', async () => {
  const text = 'This is **is** fine.';
  const fs = await check(text);
  const repeated = fs.find((f) => f.family === 'repeated-word');
  assert.ok(repeated);
  assert.equal(at(text, repeated), 'is **is');
  assert.deepEqual(repeated.fixes, []);
  assert.equal(repeated.safe, false);
});

test('the personal dictionary’s words are not misspellings, in any case', async () => {
  const text = 'Our frobnicator handles it. Frobnicator works.';
  assert.deepEqual(families(await check(text, 'plain')), ['spelling', 'spelling']);
  assert.deepEqual(await check(text, 'plain', ['frobnicator']), []);
});

test('offsets are UTF-16 offsets into the document, after emoji and accents', async () => {
  const text = '😀😀 A naïve café owner. 😀 He go home.';
  const fs = await check(text, 'plain');
  assert.deepEqual(
    fs.map((f) => at(text, f)),
    ['go'],
  );
});

test('after a one-word edit only the changed paragraph is checked again', async () => {
  const checker = await sharedChecker();
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph number ${i} says something plain.`);
  const first = await checker.check(paragraphs.join('\n\n'), 'markdown');
  assert.ok(first);
  paragraphs[7] = 'Paragraph number 7 says somthing plain.';
  const second = await checker.check(paragraphs.join('\n\n'), 'markdown');
  assert.ok(second);
  assert.equal(second.units, 30);
  assert.equal(second.checked, 1);
  assert.equal(second.findings.length, 1);
  assert.equal(second.findings[0].word, 'somthing');
});

test('a paragraph gets the same findings checked alone as beside others (what is shown never depends on the cache)', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  // Harper reads a paragraph's last characters differently when more text follows them.
  const paragraphs = ['A| a | b |', '# Title', 'He go to school .', 'Its a nice day , said she', 'the end'];
  const text = paragraphs.join('\n\n');
  checker.clear();
  const together = await checker.check(text, 'plain');
  assert.ok(together);
  const alone: string[] = [];
  let offset = 0;
  for (const p of paragraphs) {
    checker.clear();
    const r = await checker.check(p, 'plain');
    assert.ok(r);
    alone.push(...r.findings.map((f) => `${f.start + offset}-${f.end + offset} ${f.rule}`));
    offset += p.length + 2;
  }
  assert.deepEqual(
    together.findings.map((f) => `${f.start}-${f.end} ${f.rule}`),
    alone,
  );
  assert.ok(alone.length >= 3, alone.join('; '));
});

test('a family set to off reports nothing; severities follow the settings', async () => {
  const checker = await sharedChecker();
  const config = defaultCheckerConfig();
  config.rules.spelling = 'off';
  config.rules.grammar = 'error';
  await checker.configure(config);
  const r = await checker.check('He go to scool.', 'plain');
  assert.ok(r);
  assert.deepEqual(
    r.findings.map((f) => [f.family, f.severity]),
    [['grammar', 'error']],
  );
});

test('an aborted check resolves to undefined and leaves nothing half-cached', async () => {
  const checker = await sharedChecker();
  const controller = new AbortController();
  controller.abort();
  const text = Array.from({ length: 60 }, (_, i) => `Sentence ${i} has a mispeled word.`).join('\n\n');
  assert.equal(await checker.check(text, 'plain', controller.signal), undefined);
  const r = await checker.check(text, 'plain');
  assert.ok(r);
  assert.equal(r.checked, 60);
});

test('a megabyte line, binary data and mixed scripts are read without a crash or a hang', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const line = 'The quick brown fox jumps over the lazy dog and keeps running. '.repeat(16_000);
  const started = Date.now();
  const big = await checker.check(line, 'plain');
  assert.ok(big && big.units > 100, 'the line is checked in pieces');
  assert.ok(Date.now() - started < 120_000);
  const binary = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)).toString('latin1');
  assert.deepEqual((await checker.check(binary, 'plain'))?.findings, []);
  const mixed = '東京は日本の首都です。 שלום עולם. مرحبا بالعالم. He go home. 👩‍👩‍👧‍👦 Ελληνικά.';
  const fs = (await checker.check(mixed, 'plain'))?.findings ?? [];
  assert.ok(fs.some((f) => mixed.slice(f.start, f.end) === 'go'));
  assert.ok(
    fs.every((f) => /^[\x20-\x7e]*$/.test(mixed.slice(f.start, f.end))),
    'no finding inside another script',
  );
});

test('after a small edit the read is derived from the previous one, and equals reading the document again', async () => {
  const { readProse, rereadAfterEdit } = await import('../../extension/engine/checks/reread');
  const doc = [
    '---',
    'title: x',
    '---',
    '',
    '# Heading',
    '',
    'A paragraph with *emphasis*, `code`, a [link](http://x.y) and foo_bar words.',
    'Its second line goes on here.',
    '',
    '- a list item with text',
    '- another item',
    '',
    '> a quote of a few words',
    '',
    '```',
    'code here',
    '```',
    '',
    'The last paragraph ends it.',
  ].join('\n');
  const prev = readProse(doc, 'markdown');
  let derived = 0;
  const edits = ['x', 'word ', ' ', '', '1. ', '*', '_', '`', '\n', 'é', '&amp;', 'www.a.com '];
  for (let at = 0; at <= doc.length; at++)
    for (const [k, insert] of edits.entries()) {
      for (const cut of [0, 1]) {
        const next = doc.slice(0, at) + insert + doc.slice(Math.min(doc.length, at + cut));
        const quick = rereadAfterEdit(doc, prev, next);
        if (!quick) continue;
        derived++;
        assert.deepEqual(quick, readProse(next, 'markdown'), `edit ${k} at ${at}, cut ${cut}`);
      }
    }
  assert.ok(derived > 200, `only ${derived} edits were derived`);
});

test('the Harper rules off by default stay silent until the settings turn them back on', async () => {
  const checker = await sharedChecker();
  const text = 'We bought apples, pears and plums.';
  await checker.configure(defaultCheckerConfig());
  assert.deepEqual((await checker.check(text, 'plain'))?.findings, []);
  await checker.configure({ ...defaultCheckerConfig(), grammarRulesOff: [] });
  assert.deepEqual(
    (await checker.check(text, 'plain'))?.findings.map((f) => f.rule),
    ['grammar/OxfordComma'],
  );
});

test('technical Markdown: file names and paths, a list item in lower case, indented continuation lines and a code span over a line break raise nothing', async () => {
  const text = [
    'See settings.md and dist/cli.js, or the files under docs/ ending in .md or .txt for more.',
    '',
    '- the engine, which runs the models',
    '  on the second line of the item.',
    '- **host ↔ engine**: messages only.',
    '',
    'Run `npx draftsmith check',
    'docs/` and read the output.',
  ].join('\n');
  assert.deepEqual(
    (await check(text)).map((f) => `${f.rule}:${at(text, f)}`),
    [],
  );
});

test('technical prose is not an error: identifiers, flags, versions, handles, enumerators and names outside backticks', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const quiet = [
    'The tool can (i) parse the output and (ii) score it.',
    'We control Type-I errors here.',
    'Set SACREBLEU_DIR to a folder first.',
    'Pass --echo to print it, or -m to pick one.',
    'The client moves to the processing.running state when the needDrain event fires.',
    'Thanks to @martinpopel for the fix in v2.0.0 and 1.4.3.',
    'Calling it again throws an `InvalidArgumentError` from an `undici.Dispatcher` instance.',
    'Query params go in the URL, and the timeout is 10ms with a 16KiB buffer.',
    'undici is fast and small.',
  ];
  for (const text of quiet) {
    const r = await checker.check(text, 'markdown');
    assert.ok(r);
    assert.deepEqual(
      r.findings.filter((f) => f.family !== 'spelling').map((f) => `${f.rule}: ${text.slice(f.start, f.end)}`),
      [],
      text,
    );
  }
  // Still found: the same mistakes in plain words.
  const r = await checker.check('He go to school.\n\nThis allows to retry a request.', 'markdown');
  assert.ok(r);
  assert.deepEqual(
    r.findings.filter((f) => f.family === 'grammar').map((f) => f.rule),
    ['grammar/PronounVerbAgreement', 'grammar/AllowTo'],
  );
});

test('a word the document writes three times that no dictionary word is one edit from is its own name; a repeated typo is still flagged', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const spelled = async (text: string) =>
    ((await checker.check(text, 'markdown'))?.findings ?? []).filter((f) => f.family === 'spelling').map((f) => f.word);
  const name = 'We use yauzl to read the file.\n\nThen yauzl checks it.\n\nAt last yauzl closes it.\n';
  assert.deepEqual(await spelled(name), [], 'the tool the document is about');
  assert.deepEqual(
    await spelled(name.replace('At last yauzl closes it.\n', '')),
    ['yauzl', 'yauzl'],
    'twice: not yet a name',
  );
  const typo = 'We recieve it.\n\nThey recieve it.\n\nYou recieve it.\n';
  assert.deepEqual(await spelled(typo), ['recieve', 'recieve', 'recieve'], 'a typo has a suggestion');
});

test('a word or error quoted to talk about it is mentioned, not used; dialogue with its punctuation is still checked', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const found = async (text: string) => ((await checker.check(text, 'markdown'))?.findings ?? []).map((f) => f.rule);
  assert.deepEqual(await found('Harper flags "the the" and the speller flags "wich" and “an boolean”.\n'), []);
  assert.ok((await found('"I saw wich one," she said.\n')).includes('spelling'), 'dialogue is checked');
  assert.ok((await found('She saw the the cat.\n')).includes('repeated-word'));
});

test('a typo is a warning; a coined term and another English’s spelling are hints that Fix All leaves alone', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const text = 'It is preferrable to set the servername.\n\nThe behaviour is set.\n';
  const fs = ((await checker.check(text, 'markdown'))?.findings ?? []).filter((f) => f.family === 'spelling');
  assert.deepEqual(
    fs.map((f) => [f.word, f.severity]),
    [
      ['preferrable', 'warning'],
      ['servername', 'hint'],
      ['behaviour', 'hint'],
    ],
  );
  assert.match(fs[1].message, /made of “server” and “name”/);
  assert.match(fs[2].message, /^British spelling “behaviour”: American English writes “behavior”\./);
  assert.equal(fs[2].fixes[0].text, 'behavior');
  assert.deepEqual(
    safeFixes(fs).map((f) => f.text),
    ['preferable'],
  );
  await checker.configure({ ...defaultCheckerConfig(), dialect: 'British' });
  const british = ((await checker.check(text, 'markdown'))?.findings ?? []).filter((f) => f.family === 'spelling');
  assert.deepEqual(
    british.map((f) => f.word),
    ['preferrable', 'servername'],
    'behaviour is right in British',
  );
  await checker.configure(defaultCheckerConfig());
});

test('a word the document writes as code or in a link address is that code’s name; a typo in prose is not', async () => {
  const checker = await sharedChecker();
  await checker.configure(defaultCheckerConfig());
  const spelled = async (text: string, format: DocumentFormat = 'markdown') =>
    ((await checker.check(text, format))?.findings ?? []).filter((f) => f.family === 'spelling').map((f) => f.word);
  const text =
    'Call `path.realpath()` to get the realpath.\n\n```js\nconst yauzl = require("yauzl");\n```\n\n' +
    'Read it with yauzl, or with [yazl](https://github.com/thejoshwolfe/yazl), and set `maxRedirections` ' +
    'to limit the redirections. We recieve it.\n';
  assert.deepEqual(await spelled(text), ['recieve']);
  // A link to a heading is made from the heading's prose, so it names nothing.
  assert.deepEqual(await spelled('See the nettopp list in [nettopp](#nettopp).\n'), ['nettopp', 'nettopp']);
  assert.deepEqual(await spelled('Call `realpath()` to get the realpath.\n', 'plain'), ['realpath']);
});
