// A document read as Markdown (extension/engine/text/markdown.ts): sections by heading, and the
// prose a model may read, with code, tables, HTML, front matter and link targets left out, every
// offset pointing back into the document as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeSkipped, formatOf, PLAIN_SECTION_CHARS, readDocument } from '../../extension/engine/text/markdown';
import { lineIndexOf, lineSpans, sentenceSpans } from '../../extension/engine/text/reader';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

const README = `---
title: Draftsmith
tags: [writing]
---
# Install

Run \`npm install\` first. See [the guide](https://example.com/secret-target) for **more** details.

- The first item has no period
- The second item neither
  - A nested item

| Option | Meaning |
|--------|---------|
| tablecell | nothing |

\`\`\`js
const codeword = require('x');
\`\`\`

<div class="htmlblock">Raw HTML here</div>

Usage
-----
Call it from the terminal. Read <https://auto.example/linkword> too.

[ref]: https://refdef.example/target
`;

test('a README is read into sections by heading, ATX and setext alike, with their prose', () => {
  const doc = readDocument(README, 'markdown');
  assert.deepEqual(
    doc.sections.map((s) => [s.title, s.level]),
    [
      ['Install', 1],
      ['Usage', 2],
    ],
  );
  const install = doc.sections[0];
  assert.equal(README.slice(install.heading!.start, install.heading!.end), '# Install');
  assert.deepEqual(
    sentenceSpans(doc.prose.slice(install.start, install.end)).map((s) => s.text),
    [
      'Run npm install first.',
      'See the guide for more details.',
      'The first item has no period',
      'The second item neither',
      'A nested item',
    ],
  );
  assert.deepEqual(doc.skipped, { code: 1, table: 1, html: 1, frontMatter: 1 });
  assert.equal(
    describeSkipped(doc.skipped),
    '1 code block, 1 table, 1 HTML block and the front matter were not read as prose',
  );
});

test('code, tables, HTML, front matter, link targets and reference definitions are never prose', () => {
  const prose = readDocument(README, 'markdown').prose;
  for (const hidden of [
    'codeword',
    'tablecell',
    'htmlblock',
    'Raw HTML',
    'secret-target',
    'linkword',
    'refdef',
    'tags',
    'Draftsmith',
    '**',
    '`',
  ]) {
    assert.ok(!prose.includes(hidden), `${hidden} is in the prose`);
  }
});

test("the prose view has the document's length and offsets: each prose character is the document's own", () => {
  const doc = readDocument(README, 'markdown');
  assert.equal(doc.prose.length, README.length);
  for (const p of doc.paragraphs)
    assert.equal(README.slice(p.start, p.start + 3), doc.prose.slice(p.start, p.start + 3));
});

test('a document that is all code has no prose, and says so', () => {
  const doc = readDocument('```python\nprint("hi")\n```\n\n    indented code\n', 'markdown');
  assert.equal(doc.paragraphs.length, 0);
  assert.equal(describeSkipped(doc.skipped), '2 code blocks were not read as prose');
});

test('a heading with no text under it is a section with no prose', () => {
  const doc = readDocument('# Empty\n\n# Full\n\nSome words here.\n', 'markdown');
  assert.deepEqual(
    doc.sections.map((s) => [s.title, s.paragraphs.length]),
    [
      ['Empty', 0],
      ['Full', 1],
    ],
  );
});

test('an unclosed fence makes the rest code, and a note says where it starts', () => {
  const doc = readDocument('Intro text.\n\n```\nnot closed\n\nMore text.\n', 'markdown');
  assert.deepEqual(
    doc.paragraphs.map((p) => p.text),
    ['Intro text.'],
  );
  assert.match(doc.notes[0], /code fence at line 3 is never closed/);
});

test('10,000 tiny sections are 10,000 sections', () => {
  const text = Array.from({ length: 10_000 }, (_, i) => `## Part ${i}\n\nWord ${i}.\n`).join('\n');
  const doc = readDocument(text, 'markdown');
  assert.equal(doc.sections.length, 10_000);
  assert.equal(doc.sections[9_999].paragraphs[0].text, 'Word 9999.');
});

test('one 50,000-word paragraph is one paragraph, whole', () => {
  const text = Array.from({ length: 50_000 }, (_, i) => (i % 12 === 11 ? 'word.' : 'word')).join(' ');
  const doc = readDocument(text, 'markdown');
  assert.equal(doc.paragraphs.length, 1);
  assert.equal(doc.paragraphs[0].end, text.length);
});

test('deeply nested lists and mixed scripts keep their prose, however deep the nesting', () => {
  const nested = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
  const doc = readDocument(`${nested}\n\n中文的段落。English follows here. Русский текст.\n`, 'markdown');
  assert.ok(doc.prose.includes('level 0'));
  assert.ok(doc.prose.includes('level 299'));
  assert.ok(doc.prose.includes('中文的段落。English follows here. Русский текст.'));
});

test('plain text is all prose, one section without a heading', () => {
  const text = '    Indented like code, but plain text.\n\n# not a heading here\n';
  const doc = readDocument(text, 'plain');
  assert.equal(doc.prose, text);
  assert.equal(doc.sections.length, 1);
  assert.equal(doc.sections[0].paragraphs.length, 2);
});

test('long plain text is read in sections at paragraph boundaries, each named by the lines it spans', () => {
  const paragraph = (n: number) =>
    `Paragraph ${n} begins here. ${'The river ran on past the mill. '.repeat(60)}`.trim();
  const paragraphs = Array.from({ length: 40 }, (_, n) => paragraph(n));
  const text = paragraphs.join('\n\n') + '\n';
  const doc = readDocument(text, 'plain');
  assert.ok(doc.sections.length > 5, `${doc.sections.length} sections`);
  // Every paragraph whole in exactly one section, in order; no section over the limit unless one paragraph is.
  assert.deepEqual(
    doc.sections.flatMap((s) => s.paragraphs.map((p) => p.text)),
    paragraphs,
  );
  for (const s of doc.sections) {
    const chars = s.paragraphs.reduce((n, p) => n + p.end - p.start, 0);
    assert.ok(chars <= PLAIN_SECTION_CHARS || s.paragraphs.length === 1);
    assert.equal(s.level, 0);
  }
  const second = doc.sections[1];
  const firstLine = text.slice(0, second.start).split('\n').length;
  assert.match(second.title, new RegExp(`^Lines ${firstLine}–\\d+$`));
  assert.ok(text.slice(second.start).startsWith(second.paragraphs[0].text));
});

test('one paragraph longer than a section is a section of its own, never cut', () => {
  const huge = 'A sentence about the harbour and its boats. '.repeat(1_000).trim();
  const text = `A short opening.\n\n${huge}\n\nA short ending.`;
  const doc = readDocument(text, 'plain');
  assert.deepEqual(
    doc.sections.map((s) => s.paragraphs.map((p) => p.text.length)),
    [[16], [huge.length], [15]],
  );
});

test('Markdown is told by the file name or the language id', () => {
  assert.equal(formatOf('docs/README.md'), 'markdown');
  assert.equal(formatOf('markdown'), 'markdown');
  assert.equal(formatOf('notes.txt'), 'plain');
  assert.equal(formatOf('plaintext'), 'plain');
});

// --- property: any mix of blocks --------------------------------------------------------------

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'river', 'stone', 'Light', 'Über', '東京', 'mañana');
const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => `${w.join(' ')}.`);
const block = fc.oneof(
  fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => s.join(' ')),
  fc.tuple(fc.integer({ min: 1, max: 6 }), word).map(([n, w]) => `${'#'.repeat(n)} ${w}`),
  sentence.map((s) => `\`\`\`\nCODEWORD ${s}\n\`\`\``),
  word.map((w) => `| ${w} | TABLEWORD |\n|---|---|\n| TABLEWORD | x |`),
  fc.tuple(word, sentence).map(([w, s]) => `${s} [${w}](https://LINKTARGET/${w}) ${s}`),
  fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => s.map((x, i) => `${'  '.repeat(i)}- ${x}`).join('\n')),
  sentence.map((s) => `<div>HTMLWORD ${s}</div>`),
  sentence.map((s) => `> ${s}`),
);
const separator = fc.constantFrom('\n\n', '\r\n\r\n', '\n\n\n');

test("property: every prose character is the document's own, and no code, table, HTML or link target is prose", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(block, separator), { maxLength: 12 }), (parts) => {
      const text = parts.map(([b, s]) => b + s).join('');
      const doc = readDocument(text, 'markdown');
      assert.equal(doc.prose.length, text.length);
      for (let i = 0; i < text.length; i++) {
        const c = doc.prose[i];
        if (c !== ' ' && c !== '\n' && c !== '\r') assert.equal(c, text[i]);
        if (text[i] === '\n' || text[i] === '\r') assert.equal(c, text[i]);
      }
      for (const hidden of ['CODEWORD', 'TABLEWORD', 'LINKTARGET', 'HTMLWORD', '](', '```'])
        assert.ok(!doc.prose.includes(hidden), hidden);
      for (const s of sentenceSpans(doc.prose)) assert.ok(s.start >= 0 && s.end <= text.length && s.start < s.end);
      // Every section's prose lies inside the section.
      for (const sec of doc.sections)
        for (const p of sec.paragraphs) assert.ok(p.start >= sec.start && p.end <= sec.end);
    }),
    { numRuns: RUNS },
  );
});

// --- property: plain text in sections by paragraphs loses nothing -----------------------------

/** Any Unicode: astral characters, combining marks, right-to-left and caseless scripts, odd spaces. */
const anyText = fc.string({ unit: 'grapheme', maxLength: 400 });
const plainParagraph = fc.oneof(
  anyText,
  fc.array(sentence, { minLength: 1, maxLength: 40 }).map((s) => s.join(' ')),
  fc.array(anyText, { minLength: 1, maxLength: 3 }).map((l) => l.join('\n')),
);
const plainBreak = fc.constantFrom('\n\n', '\r\n\r\n', '\n \t\n', '\r\r', '\n\n\n\n');

test('property: plain text in sections loses nothing — the sections tile the text and every non-space character is in one paragraph', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(plainParagraph, plainBreak), { maxLength: 60 }),
      fc.integer({ min: 1, max: 40 }),
      (parts, repeat) => {
        // Repeating the paragraphs makes texts past a few sections.
        const once = parts.map(([p, b]) => p + b).join('');
        const text = once.repeat(once.length > 0 ? Math.max(1, Math.floor((repeat * 500) / once.length)) : 1);
        const doc = readDocument(text, 'plain');
        // Tiling: from 0 to the end, each section where the last one ended.
        assert.equal(doc.sections[0].start, 0);
        assert.equal(doc.sections[doc.sections.length - 1].end, text.length);
        for (let k = 1; k < doc.sections.length; k++) assert.equal(doc.sections[k].start, doc.sections[k - 1].end);
        const inParagraph = new Uint8Array(text.length);
        for (const sec of doc.sections) {
          for (const p of sec.paragraphs) {
            // Offsets exact: a paragraph is its text's own span, inside its section.
            assert.equal(text.slice(p.start, p.end), p.text);
            assert.ok(p.start >= sec.start && p.end <= sec.end);
            inParagraph.fill(1, p.start, p.end);
          }
          // A section starts at a paragraph: the first one's text, after nothing but white space.
          if (sec.paragraphs.length > 0) assert.equal(text.slice(sec.start, sec.paragraphs[0].start).trim(), '');
        }
        // Nothing lost: every character that is not white space lies in a paragraph of some section.
        for (let i = 0; i < text.length; i++) if (/\S/.test(text[i])) assert.equal(inParagraph[i], 1, `offset ${i}`);
        // Each section is named by the lines it spans, as the editor numbers them (\r\n, \r and \n alike).
        if (doc.sections.length > 1) {
          const lines = lineSpans(text);
          for (const sec of doc.sections) {
            const from = lineIndexOf(lines, sec.paragraphs[0].start) + 1;
            const to = lineIndexOf(lines, sec.paragraphs[sec.paragraphs.length - 1].end) + 1;
            assert.equal(sec.title, from === to ? `Line ${from}` : `Lines ${from}–${to}`);
          }
        }
        // And the sections' paragraphs are the text's, in order, each once.
        assert.deepEqual(
          doc.sections.flatMap((s) => s.paragraphs),
          doc.paragraphs,
        );
      },
    ),
    { numRuns: RUNS },
  );
});
