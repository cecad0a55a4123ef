// The reader of text (extension/engine/text/reader.ts): what a writer would call a paragraph and a
// sentence, whether a selection is prose, and whether it is readable at all. Every span points back
// into the text as written, in the UTF-16 offsets VS Code uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  blocks,
  hasLetter,
  looksLikeMarkup,
  mostlyUnknownScript,
  noKnownLetter,
  notProse,
  paragraphAt,
  paragraphSpans,
  readability,
  scriptShare,
  sentenceSpans,
  splitSentences,
} from '../../extension/engine/text/reader';
import { analyse } from '../../extension/engine/text/nlp';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

// --- sentences ---------------------------------------------------------------------------------

test('splits on . ! ? followed by a capital letter', () => {
  assert.deepEqual(splitSentences('It rained all day. Was it cold? Yes! The end.'), [
    'It rained all day.',
    'Was it cold?',
    'Yes!',
    'The end.',
  ]);
});

test('"Dr. Smith arrived." is one sentence: titles, initialisms and initials do not end one', () => {
  assert.deepEqual(splitSentences('Dr. Smith arrived. He was late.'), ['Dr. Smith arrived.', 'He was late.']);
  assert.deepEqual(splitSentences('Mr. Smith met Dr. Jones in the U.S. Congress. J. K. Rowling was there.'), [
    'Mr. Smith met Dr. Jones in the U.S. Congress.',
    'J. K. Rowling was there.',
  ]);
  assert.deepEqual(splitSentences('We met on Jan. 5 at 9 a.m. in the hall.'), [
    'We met on Jan. 5 at 9 a.m. in the hall.',
  ]);
});

test('does not split inside numbers or before a lowercase word', () => {
  assert.deepEqual(splitSentences('Prices rose 3.5 percent. analysts said so. Markets fell.'), [
    'Prices rose 3.5 percent. analysts said so.',
    'Markets fell.',
  ]);
});

test('text written without capitals (chat) still has sentences; technical names keep their dots', () => {
  assert.deepEqual(splitSentences("that's nice. what is your favorite movie? mine is old."), [
    "that's nice.",
    'what is your favorite movie?',
    'mine is old.',
  ]);
  assert.deepEqual(splitSentences('Import Data.Monoid and use http.Handler here. Then build it.'), [
    'Import Data.Monoid and use http.Handler here.',
    'Then build it.',
  ]);
});

test('keeps closing quotes with their sentence and splits before an opening quote', () => {
  assert.deepEqual(splitSentences('He said "Stop." Then he left. "Why?" she asked.'), [
    'He said "Stop."',
    'Then he left.',
    '"Why?" she asked.',
  ]);
  assert.deepEqual(splitSentences('She wrote “Done.” Nobody answered. (It was late.) Then sleep.'), [
    'She wrote “Done.”',
    'Nobody answered.',
    '(It was late.)',
    'Then sleep.',
  ]);
  assert.deepEqual(splitSentences('Émile a dit : «Non.» Puis il est parti.'), [
    'Émile a dit : «Non.»',
    'Puis il est parti.',
  ]);
});

test('a blank line ends a sentence; a single line break is a soft wrap', () => {
  assert.deepEqual(splitSentences('Title without a period\n\nThe first line\nwraps here. Next one.\r\n\r\nLast'), [
    'Title without a period',
    'The first line wraps here.',
    'Next one.',
    'Last',
  ]);
});

test('Cyrillic, Greek and accented Latin split like English', () => {
  assert.deepEqual(splitSentences('Москва строит новый мост. Работы начнутся весной!'), [
    'Москва строит новый мост.',
    'Работы начнутся весной!',
  ]);
  assert.deepEqual(splitSentences('Η γέφυρα άνοιξε. Όλοι ήρθαν.'), ['Η γέφυρα άνοιξε.', 'Όλοι ήρθαν.']);
  assert.deepEqual(splitSentences('Der Bürgermeister kam. Über hundert Leute warteten.'), [
    'Der Bürgermeister kam.',
    'Über hundert Leute warteten.',
  ]);
});

test('Chinese and Japanese sentences end at 。！？ without a space; a quote that goes on does not end one', () => {
  assert.deepEqual(splitSentences('東京は日本の首都です。大阪も大きい！本当？'), [
    '東京は日本の首都です。',
    '大阪も大きい！',
    '本当？',
  ]);
  assert.deepEqual(splitSentences('北京的新桥明天开放。人们很高兴。'), ['北京的新桥明天开放。', '人们很高兴。']);
  assert.deepEqual(splitSentences('彼は「行こう！」と言った。皆が来た。'), [
    '彼は「行こう！」と言った。',
    '皆が来た。',
  ]);
  // After Latin punctuation, a caseless script's letter starts a sentence as a capital does.
  assert.deepEqual(splitSentences('The bridge opened. 北京的新桥明天开放。 שלום עולם.'), [
    'The bridge opened.',
    '北京的新桥明天开放。',
    'שלום עולם.',
  ]);
});

test('emoji stay in their sentence and the offsets count UTF-16 code units, as VS Code does', () => {
  const text = 'Great news 👍🏽. The 👩‍👩‍👧‍👦 bridge opens today! Всё хорошо.';
  const spans = sentenceSpans(text);
  assert.deepEqual(
    spans.map((s) => s.text),
    ['Great news 👍🏽.', 'The 👩‍👩‍👧‍👦 bridge opens today!', 'Всё хорошо.'],
  );
  for (const s of spans) assert.equal(text.slice(s.start, s.end), s.text);
  assert.equal(spans[1].start, 'Great news 👍🏽. '.length);
});

test('CRLF line ends read as LF ones: the same sentences, spans that slice the CRLF text', () => {
  const lf = 'First line\nwraps here. Second one!\n\nA heading\n\n  Last (really) one?\n';
  const crlf = lf.replace(/\n/g, '\r\n');
  assert.deepEqual(splitSentences(crlf), splitSentences(lf));
  for (const s of sentenceSpans(crlf)) assert.equal(crlf.slice(s.start, s.end).replace(/\s+/g, ' '), s.text);
  assert.equal(crlf.slice(sentenceSpans(crlf)[0].start, sentenceSpans(crlf)[0].end), 'First line\r\nwraps here.');
});

test('empty and whitespace-only text has no sentences', () => {
  for (const t of ['', ' ', '\n\n', '\r\n \t\r\n', '\u00a0\u3000'])
    assert.deepEqual(sentenceSpans(t), [], JSON.stringify(t));
});

// --- paragraphs --------------------------------------------------------------------------------

test('paragraphs are separated by blank lines, whitespace-only lines included', () => {
  const text = 'One.\n   \nTwo\nlines.\n\t\n\nThree.\r\n \r\nFour\u00a0\n\u00a0\nFive.';
  const ps = paragraphSpans(text);
  assert.deepEqual(
    ps.map((p) => p.text),
    ['One.', 'Two\nlines.', 'Three.', 'Four', 'Five.'],
  );
  for (const p of ps) assert.equal(text.slice(p.start, p.end), p.text);
  assert.deepEqual(paragraphSpans('\n\n  Indented start\n\n'), [{ start: 4, end: 18, text: 'Indented start' }]);
});

test('the paragraph at the cursor: its lines up to the blank lines around it, none on a blank line', () => {
  const text = '# Title\n\nFirst line\n  second line\n \nOther.';
  const at = (needle: string, plus = 0) => paragraphAt(text, text.indexOf(needle) + plus)?.text;
  assert.equal(at('Title'), '# Title');
  assert.equal(at('second'), 'First line\n  second line');
  assert.equal(at('First'), 'First line\n  second line');
  assert.equal(at('second line', 'second line'.length), 'First line\n  second line', 'at the end of the last line');
  assert.equal(paragraphAt(text, text.indexOf('\n\n') + 1), undefined, 'on the empty line');
  assert.equal(paragraphAt(text, text.indexOf(' \nOther') + 1), undefined, 'on the whitespace-only line');
  assert.equal(at('Other', 6), 'Other.', 'at the end of the text');
  assert.equal(paragraphAt('', 0), undefined);
  assert.equal(paragraphAt('A\r\nB', 2)?.text, 'A\r\nB', 'inside a CRLF is the end of its line');
});

test('blocks: one paragraph block each until Markdown is parsed', () => {
  const text = 'A.\n\nB.';
  assert.deepEqual(
    blocks(text),
    paragraphSpans(text).map((p) => ({ ...p, kind: 'paragraph' })),
  );
  assert.ok(looksLikeMarkup('# Title') && looksLikeMarkup('| a | b |') && looksLikeMarkup('```ts'));
  assert.ok(!looksLikeMarkup('#hashtag is prose') && !looksLikeMarkup('The council met.'));
});

// --- offsets, for any text ---------------------------------------------------------------------

/** Pieces that break naive readers, mixed with words and arbitrary Unicode. */
const piece = fc.oneof(
  fc.constantFrom(
    'Dr.',
    'Mr.',
    'U.S.',
    'e.g.',
    '...',
    '?!',
    '. ',
    '.\n',
    '\n',
    '\r\n',
    '\n\n',
    ' \n \n',
    '\u00a0',
    '\t',
    '\r',
    '"',
    '“',
    '”',
    '«',
    '»',
    '(',
    ')',
    '。',
    '！',
    '「',
    '」',
    '東京',
    'Москва',
    'שלום',
    '👍🏽',
    '👩‍👩‍👧‍👦',
    'e\u0301',
    '\u0000',
    '\uD800',
  ),
  fc.stringMatching(/^[A-Za-z]{1,8}$/),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);
const anyText = fc
  .array(piece, { maxLength: 40 })
  .chain((parts) => fc.constantFrom(' ', '', '. ').map((sep) => parts.join(sep)));

test(`every sentence span slices its sentence out of the text, in order, within one paragraph (${RUNS} texts)`, () => {
  fc.assert(
    fc.property(anyText, (text) => {
      const paragraphs = paragraphSpans(text);
      let previous = 0;
      for (const s of sentenceSpans(text)) {
        assert.ok(s.start >= previous && s.start < s.end && s.end <= text.length);
        assert.equal(text.slice(s.start, s.end).replace(/\s+/g, ' '), s.text);
        assert.equal(s.text, s.text.trim());
        assert.ok(
          paragraphs.some((p) => p.start <= s.start && s.end <= p.end),
          'a sentence never crosses a blank line',
        );
        previous = s.end;
      }
    }),
    { numRuns: RUNS },
  );
});

test(`single-spaced sentences come back exactly as written: text.slice(start, end) === sentence (${RUNS} texts)`, () => {
  const word = fc.stringMatching(/^[A-Za-z]{1,8}$/);
  const sentence = fc
    .tuple(word, fc.array(word, { maxLength: 6 }), fc.constantFrom('.', '!', '?', '."', '?)'))
    .map(
      ([first, rest, end]) =>
        `${first[0].toUpperCase()}${first.slice(1)}${rest.map((w) => ` ${w.toLowerCase()}`).join('')}${end}`,
    );
  fc.assert(
    fc.property(fc.array(sentence, { minLength: 1, maxLength: 8 }), (sentences) => {
      // Single letters and abbreviations before the period are the exceptions the rules name.
      fc.pre(
        sentences.every(
          (s) =>
            !/(?:^|\s)(?:\p{L}|mr|mrs|ms|dr|prof|st|jr|sr|rev|hon|gen|sen|rep|gov|pres|lt|col|capt|sgt|mt|fr|no|nos|vs|cf|al|fig|approx|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[.!?]/iu.test(
              s,
            ),
        ),
      );
      const text = sentences.join(' ');
      const spans = sentenceSpans(text);
      assert.deepEqual(
        spans.map((s) => s.text),
        sentences,
      );
      for (const s of spans) assert.equal(text.slice(s.start, s.end), s.text);
    }),
    { numRuns: RUNS },
  );
});

test(`paragraphs cover every non-blank character once, and the cursor finds the paragraph it is in (${RUNS} texts)`, () => {
  fc.assert(
    fc.property(anyText, fc.nat(), (text, n) => {
      const ps = paragraphSpans(text);
      for (const p of ps) assert.equal(text.slice(p.start, p.end), p.text);
      assert.equal(
        ps
          .map((p) => p.text)
          .join('')
          .replace(/\s+/g, ''),
        text.replace(/\s+/g, ''),
      );
      const offset = text.length === 0 ? 0 : n % (text.length + 1);
      const found = paragraphAt(text, offset);
      if (found)
        assert.ok(
          ps.some((p) => p.start === found.start && p.end === found.end),
          JSON.stringify({ text, offset }),
        );
      const inside = ps.find((p) => p.start <= offset && offset <= p.end);
      if (inside) assert.deepEqual(paragraphAt(text, offset), inside);
    }),
    { numRuns: RUNS },
  );
});

test(`CRLF and LF line ends give the same sentences (${RUNS} texts)`, () => {
  fc.assert(
    fc.property(anyText, (text) => {
      const lf = text.replace(/\r/g, '');
      assert.deepEqual(splitSentences(lf.replace(/\n/g, '\r\n')), splitSentences(lf));
    }),
    { numRuns: RUNS },
  );
});

// --- prose, readability, script ----------------------------------------------------------------

test('is this prose: a paragraph is; a code block, a list or code is not', () => {
  assert.equal(notProse('The river rose overnight. By morning the bridge was closed.'), undefined);
  assert.equal(notProse('There are two reasons. 1. It rained. The river rose.'), undefined);
  assert.match(notProse('```js\nconst x = 1;\n```') ?? '', /code block/);
  assert.match(notProse('- apples\r\n- bread\r\n- milk') ?? '', /list \(3 of its 3 lines/);
  assert.match(notProse('if (x) {\n  go();\n}') ?? '', /looks like code/);
});

test('readable text: empty, no words (emoji, symbols, punctuation), binary, or something a model can read in any script', () => {
  for (const t of ['', '  \n\t', '\uFEFF', ' \u200D\u202E ']) assert.equal(readability(t), 'empty', JSON.stringify(t));
  // Characters, but not one letter or number: no words a model can read, which is not "empty".
  for (const t of ['?!…', '—', '🎉🎉 👍🏽', '👩‍👩‍👧‍👦 🏳️‍🌈\n', '★ → ♥'])
    assert.equal(readability(t), 'no-words', JSON.stringify(t));
  assert.equal(readability('\u0000\u0001\u0002\u0003 binary \u0004\u0005\u0006'), 'binary');
  for (const t of ['Hello.', 'Привет.', '東京', '42', 'مرحبا']) assert.equal(readability(t), 'readable', t);
  assert.ok(hasLetter('Ω') && !hasLetter('42 👍'));
});

test('script: judged by the letters the unknown pieces hide, not by how many pieces there are', () => {
  const unk = 3;
  const chinese = scriptShare('东京是首都', [{ id: 3, text: '东京是首都' }], unk);
  assert.deepEqual(chinese, { letters: 5, unknownLetters: 5 });
  assert.ok(mostlyUnknownScript(chinese) && noKnownLetter(chinese));
  // A few foreign words in an English sentence: read, with the unknown pieces counted.
  const mixed = scriptShare(
    'We visited 東京 in May',
    [
      { id: 10, text: 'We' },
      { id: 11, text: 'visited' },
      { id: 3, text: '東京' },
      { id: 12, text: 'in' },
      { id: 13, text: 'May' },
    ],
    unk,
  );
  assert.ok(!mostlyUnknownScript(mixed) && !noKnownLetter(mixed));
  // Emoji hide no letters: many unknown pieces, none of them writing.
  const emoji = scriptShare(
    '🙂 🙂 🙂 hi',
    [
      { id: 3, text: '🙂' },
      { id: 3, text: '🙂' },
      { id: 3, text: '🙂' },
      { id: 14, text: 'hi' },
    ],
    unk,
  );
  assert.ok(!mostlyUnknownScript(emoji));
  const digits = scriptShare('123', [{ id: 15, text: '123' }], unk);
  assert.ok(noKnownLetter(digits) && !mostlyUnknownScript(digits));
});

test("wink-nlp tags the reader's sentences, so linguistic metrics count sentences the same way", () => {
  const text = 'Dr. Smith arrived. He was late! "Why?" she asked.';
  assert.deepEqual(
    analyse(text).map((s) => s.text),
    splitSentences(text),
  );
  const [first] = analyse('Dr. Smith met Mr. Jones in Paris.');
  assert.ok(first.tokens.some((t) => t.text === 'Paris' && t.pos === 'PROPN'));
});
