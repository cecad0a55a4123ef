// Score Draft, Check Coherence and Round-Trip Paragraph read Markdown through the one reader (issue
// 22, item 4): a README's code, tables, HTML, front matter, link targets and markup characters never
// reach a metric or the model, each result says what was skipped, and plain text is read as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CoherenceResult, RoundTripResult, ScoreResult } from '../../extension/protocol';
import { checkCoherence, scoreCorpus, scoreDraft } from '../../extension/engine/eval/scoreDraft';
import { EngineError } from '../../extension/engine/errors';
import { analyse } from '../../extension/engine/text/nlp';
import { compactSpan, documentSpan, holdsMarkup, proseBlockAt, proseOf } from '../../extension/engine/text/proseText';
import { repoRoot, tempDir } from './helpers';

const README = `---
title: frontword
---
# Install the tool

Run \`npm install\` first. See [the guide](https://example.com/targetword) for **more** details.

- The first item has no period
- The second item neither

| Option | Meaning |
|--------|---------|
| tablecell | nothing |

\`\`\`js
const codeword = require('x');
\`\`\`

<div>htmlword</div>

## Usage

Call it from the terminal. It writes a summary.
`;

/** Words of the README that are not prose: none may reach a metric or a model. */
const HIDDEN = [
  'frontword',
  'targetword',
  'tablecell',
  'codeword',
  'htmlword',
  'require',
  '**',
  '`',
  '|',
  '#',
  'https',
];

const REFERENCE = `# Installing

Run npm install before anything else. The guide has more details.

\`\`\`sh
npm run build --codeword
\`\`\`

## Usage

Call it from a terminal. It writes a short summary.
`;

const noneHidden = (texts: readonly string[], what: string) => {
  for (const t of texts) for (const h of HIDDEN) assert.ok(!t.includes(h), `${what}: "${h}" in ${JSON.stringify(t)}`);
};

test("a README's prose: headings' text, paragraphs and list items, each its own sentence; nothing else", () => {
  const p = proseOf(README, 'markdown');
  assert.deepEqual(
    analyse(p.text).map((s) => s.text),
    [
      'Install the tool',
      'Run npm install first.',
      'See the guide for more details.',
      'The first item has no period',
      'The second item neither',
      'Usage',
      'Call it from the terminal.',
      'It writes a summary.',
    ],
  );
  noneHidden([p.text], 'the prose');
  assert.deepEqual(p.skipped, { code: 1, table: 1, html: 1, frontMatter: 1 });
});

test('plain text is read as it is', () => {
  const plain = 'A line with `backticks` and | pipes.\n\n    indented = code?\n';
  assert.equal(proseOf(plain, 'plain').text, plain);
  assert.deepEqual(proseOf(plain, 'plain').skipped, { code: 0, table: 0, html: 0, frontMatter: 0 });
});

test('Score Draft on a README compares prose with prose and says what it skipped', () => {
  const r = ScoreResult.parse(
    scoreDraft({
      op: 'score',
      hypothesis: README,
      reference: REFERENCE,
      hypothesisName: 'README.md',
      referenceName: 'OLD.md',
      hypothesisFormat: 'markdown',
      referenceFormat: 'markdown',
    }),
  );
  noneHidden(
    r.sentences.map((s) => s.text),
    'a draft sentence',
  );
  noneHidden(
    r.sentences.map((s) => s.referenceText),
    'a reference sentence',
  );
  // The numbers are those of the two texts' prose, scored as plain text.
  const prose = scoreDraft({
    op: 'score',
    hypothesis: proseOf(README, 'markdown').text,
    reference: proseOf(REFERENCE, 'markdown').text,
  });
  assert.deepEqual(r.scores, prose.scores);
  assert.notDeepEqual(r.scores, scoreDraft({ op: 'score', hypothesis: README, reference: REFERENCE }).scores);
  assert.equal(r.readNotes?.length, 2);
  assert.match(
    r.readNotes![0],
    /^README\.md \(the draft\) was read as Markdown, prose only: skipped 1 code block, 1 table, 1 HTML block and the front matter;/,
  );
  assert.match(r.readNotes![1], /^OLD\.md \(the reference\) was read as Markdown, prose only: skipped 1 code block;/);
});

test('Score Draft and Check Coherence without a format: plain text as before, no notes', () => {
  const score = scoreDraft({ op: 'score', hypothesis: README, reference: REFERENCE });
  assert.equal(score.readNotes, undefined);
  assert.ok(
    score.sentences.some((s) => s.text.includes('codeword')),
    'plain text is read whole',
  );
  const coherence = checkCoherence({ op: 'coherence', output: README, source: REFERENCE });
  assert.equal(coherence.readNotes, undefined);
  assert.ok(coherence.coherence.outputSentences.some((s) => s.includes('codeword')));
});

test('two drafts: the second one is read as Markdown too', () => {
  const r = scoreDraft({
    op: 'score',
    hypothesis: README,
    reference: REFERENCE,
    hypothesisFormat: 'markdown',
    referenceFormat: 'markdown',
    second: { hypothesis: README.replace('a summary', 'an outline'), name: 'B.md', format: 'markdown' },
  });
  assert.ok(r.comparison);
  assert.ok(
    r.readNotes?.some((n) => /^B\.md \(the second draft\) was read as Markdown/.test(n)),
    r.readNotes?.join('\n'),
  );
});

test('Check Coherence takes its sentences from prose blocks only and says what it skipped', () => {
  const r = CoherenceResult.parse(
    checkCoherence({
      op: 'coherence',
      output: REFERENCE,
      source: README,
      outputName: 'draft.md',
      sourceName: 'README.md',
      outputFormat: 'markdown',
      sourceFormat: 'markdown',
    }),
  );
  noneHidden([...r.coherence.inputSentences, ...r.coherence.outputSentences], 'a sentence');
  assert.deepEqual(r.coherence.outputSentences, [
    'Installing',
    'Run npm install before anything else.',
    'The guide has more details.',
    'Usage',
    'Call it from a terminal.',
    'It writes a short summary.',
  ]);
  assert.ok(
    r.readNotes?.some((n) =>
      /^README\.md \(the source\) .*skipped 1 code block, 1 table, 1 HTML block and the front matter/.test(n),
    ),
  );
});

test('a Markdown text that is all code has no prose to compare: a clear message', () => {
  const code = '```\nconst x = 1;\n```\n';
  assert.throws(
    () => scoreDraft({ op: 'score', hypothesis: code, reference: REFERENCE, hypothesisFormat: 'markdown' }),
    (e: unknown) =>
      e instanceof EngineError && e.code === 'bad-input' && /draft has no prose to compare/.test(e.message),
  );
  assert.throws(
    () => checkCoherence({ op: 'coherence', output: REFERENCE, source: code, sourceFormat: 'markdown' }),
    (e: unknown) => e instanceof EngineError && /source has no prose/.test(e.message),
  );
});

// ---- Round-Trip Paragraph in an editor: one prose block, mapped back into the document

const at = (needle: string) => README.indexOf(needle);

test("the cursor in a list item: the model reads the item's words, and Apply's span leaves its marker", () => {
  const b = proseBlockAt(README, at('second item') + 3, at('second item') + 3);
  assert.equal(b.kind, 'prose');
  if (b.kind !== 'prose') return;
  assert.equal(b.compact.text, 'The second item neither');
  assert.equal(README.slice(b.span.start, b.span.end), 'The second item neither');
  assert.equal(README.slice(b.span.start - 2, b.span.start), '- ');
  // The cursor on the marker itself is in the item too.
  const onMarker = proseBlockAt(README, at('- The first'), at('- The first'));
  assert.equal(onMarker.kind === 'prose' && onMarker.compact.text, 'The first item has no period');
});

test("a paragraph with markup: its words only; the sentences' span in the document, and the markup inside it is reported", () => {
  const b = proseBlockAt(README, at('Run `npm'), at('Run `npm'));
  assert.equal(b.kind, 'prose');
  if (b.kind !== 'prose') return;
  assert.equal(b.compact.text, 'Run npm install first. See the guide for more details.');
  noneHidden([b.compact.text], "the round trip's input");
  const second = b.compact.text.indexOf('See');
  const span = documentSpan(b.compact, second, b.compact.text.length);
  assert.equal(
    README.slice(span.start, span.end),
    'See [the guide](https://example.com/targetword) for **more** details.',
  );
  assert.ok(holdsMarkup(README.slice(span.start, span.end), b.compact.text.slice(second)));
  const first = documentSpan(b.compact, 0, second - 1);
  assert.equal(README.slice(first.start, first.end), 'Run `npm install` first.');
  assert.ok(!holdsMarkup('Call it from the terminal.', 'Call it from the terminal.'));
});

test('the cursor in code, a table, a heading or front matter: nothing to round-trip, named', () => {
  assert.deepEqual(proseBlockAt(README, at('codeword'), at('codeword')), { kind: 'none', what: 'a code block' });
  assert.deepEqual(proseBlockAt(README, at('tablecell'), at('tablecell')), { kind: 'none', what: 'a table' });
  assert.deepEqual(proseBlockAt(README, at('Usage'), at('Usage')), { kind: 'none', what: 'a heading' });
  assert.deepEqual(proseBlockAt(README, at('frontword'), at('frontword')), { kind: 'none', what: 'the front matter' });
  assert.deepEqual(proseBlockAt(README, at('htmlword'), at('htmlword')), { kind: 'none', what: 'an HTML block' });
  const code = at('```js');
  assert.deepEqual(proseBlockAt(README, code, code + 20), { kind: 'none', what: 'a code block' });
});

test('a selection over a list, a table and code: the first item is read, the rest counted', () => {
  const b = proseBlockAt(README, at('- The first'), at('<div>'));
  assert.equal(b.kind, 'prose');
  if (b.kind !== 'prose') return;
  assert.equal(b.compact.text, 'The first item has no period');
  assert.equal(b.otherBlocks, 1);
  assert.deepEqual(b.skipped, { code: 1, table: 1, html: 0, frontMatter: 0 });
  // A selection inside a paragraph is clipped to it.
  const part = proseBlockAt(README, at('Call it'), at(' It writes'));
  assert.equal(part.kind === 'prose' && part.compact.text, 'Call it from the terminal.');
});

test('compactSpan maps every character back to the document', () => {
  const text = 'a  b\n   c';
  const c = compactSpan(text, 0, text.length);
  assert.equal(c.text, 'a b c');
  assert.deepEqual(c.offsets.map((o, i) => (c.text[i] === ' ' ? ' ' : text[o])).join(''), 'a b c');
});

// ---- the CLI

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('markdown-commands');
const file = (name: string, content: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, content);
  return f;
};
const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 });

test('draftsmith score with .md files: one document each, prose only, the skips on standard error', () => {
  const hyp = file('README.md', README);
  const ref = file('OLD.md', REFERENCE);
  const r = cli(['score', '--hyp', hyp, '--ref', ref, '--json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const expected = scoreCorpus([
    { hypothesis: proseOf(README, 'markdown').text, reference: proseOf(REFERENCE, 'markdown').text },
  ]);
  assert.deepEqual(JSON.parse(r.stdout).bleu, expected.bleu);
  assert.deepEqual(JSON.parse(r.stdout).rouge, expected.rouge);
  assert.match(
    r.stderr,
    /^note: .*README\.md was read as Markdown, prose only: skipped 1 code block, 1 table, 1 HTML block and the front matter;/m,
  );
  assert.match(r.stderr, /^note: .*OLD\.md was read as Markdown, prose only: skipped 1 code block;/m);
  // The same README as a .txt file is scored line by line, as before.
  const txt = cli(['score', '--hyp', file('README.txt', README), '--ref', file('OLD.txt', REFERENCE), '--quiet']);
  assert.notEqual(txt.status, 0, 'a .txt file is still read line by line (these two do not pair up)');
  assert.doesNotMatch(txt.stderr, /read as Markdown/);
});

test('draftsmith roundtrip FILE.md: the model reads the prose only, and the output says what was skipped', () => {
  const model = path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', 'standard');
  const md = file(
    'para.md',
    '# Flood\n\nThe river rose after **three** days of rain. See [news](https://example.com/targetword).\n\n```\ncodeword = 1\n```\n',
  );
  const json = cli(['roundtrip', md, '--json', '--model', model]);
  assert.equal(json.status, 0, json.stderr);
  const r = RoundTripResult.parse(JSON.parse(json.stdout));
  noneHidden([r.source, ...r.input.map((s) => s.text)], "the round trip's input");
  assert.equal(r.source, 'Flood\n\nThe river rose after three days of rain. See news.');
  assert.match(r.readNotes?.[0] ?? '', /^para\.md was read as Markdown, prose only: skipped 1 code block;/);
  const plain = cli(['roundtrip', md, '--model', model]);
  assert.match(plain.stderr, /^note: para\.md was read as Markdown, prose only: skipped 1 code block;/m);
});
