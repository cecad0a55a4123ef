/**
 * Summarize Document's extractive mode (systems/extractive.ts) and the faithfulness measure
 * (metrics/faithfulness.ts): sentence choice from α without a model, then with the shipped model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { AttendedToken } from '../../extension/protocol';
import { SummarizeRequest } from '../../extension/protocol';
import {
  countWords,
  DEFAULT_EXTRACTIVE,
  extractiveSummary,
  scoreSentences,
  selectSentences,
  type ExtractiveOptions,
} from '../../extension/engine/systems/extractive';
import { corpusFaithfulness, names, numbers, unsupportedItems } from '../../extension/engine/metrics/faithfulness';
import { sentenceSpans } from '../../extension/engine/text/reader';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { int64Tensor, openSession } from '../../extension/engine/runtime/onnx';
import { EngineError } from '../../extension/engine/errors';
import { fixture, modelsDir, article } from './helpers';

/** Word tokens of `text` (as a tokenizer's spans), each weighted by `weight(word)`. */
function tokensOf(text: string, weight: (word: string, index: number) => number): AttendedToken[] {
  const out: AttendedToken[] = [];
  let i = 0;
  for (const m of text.matchAll(/\S+/gu)) {
    const start = m.index ?? 0;
    out.push({ text: m[0], start, end: start + m[0].length, weight: weight(m[0], i++) });
  }
  const z = out.reduce((s, t) => s + t.weight, 0) || 1;
  return out.map((t) => ({ ...t, weight: t.weight / z }));
}

const plain = (over: Partial<ExtractiveOptions> = {}): ExtractiveOptions => ({
  aggregation: 'sum',
  positionWeight: 0,
  ratio: 0.5,
  maxSentences: 3,
  minWords: 0,
  ...over,
});

const news =
  'The council met on Monday. Mayor Ellen Park announced a bridge over the Alder River. ' +
  'It will cost 40 million dollars. Residents asked about traffic. The bridge opens in 2027.';

test('the chosen sentences are the best-scored ones, verbatim, in document order', () => {
  // The bridge sentences get the attention; the last one most.
  const tokens = tokensOf(news, (w) => (w === 'bridge' || w === '2027.' ? 3 : 0.1));
  const ex = extractiveSummary(news, tokens, plain({ ratio: 1, maxSentences: 2 }));
  const spans = sentenceSpans(news);
  assert.deepEqual(ex.chosen, [1, 4], 'the two bridge sentences, in document order');
  assert.equal(ex.summary, `${news.slice(spans[1].start, spans[1].end)} ${news.slice(spans[4].start, spans[4].end)}`);
  assert.ok(ex.sentences[4].score > ex.sentences[1].score, 'the last sentence scored higher, yet comes second');
  for (const i of ex.chosen) assert.ok(news.includes(news.slice(ex.sentences[i].start, ex.sentences[i].end)));
});

test('sentences keep their own text: line breaks, quotes and spacing inside a sentence are not rewritten', () => {
  const text = 'First   line\nwraps here. "Second," she said.\n\nThird one!';
  const tokens = tokensOf(text, (_, i) => (i < 4 ? 1 : 0.01));
  const ex = extractiveSummary(text, tokens, plain({ ratio: 0.01, maxSentences: 1 }));
  assert.equal(ex.summary, 'First   line\nwraps here.');
});

test('the word budget and the sentence limit hold; the best sentence is taken even when it alone is over', () => {
  const sentences = [
    { score: 0.9, words: 30 },
    { score: 0.8, words: 5 },
    { score: 0.7, words: 6 },
    { score: 0.1, words: 2 },
    { score: 0.05, words: 1 },
  ];
  assert.deepEqual(selectSentences(sentences, 10, 5), [0], 'over budget: the best sentence only');
  assert.deepEqual(
    selectSentences(sentences.slice(1), 12, 5),
    [0, 1, 3],
    '5 + 6 + 1 words: the 2-word one would pass 12, the 1-word one after it fits',
  );
  assert.deepEqual(selectSentences(sentences.slice(1), 100, 2), [0, 1], 'at most 2 sentences');
  const ex = extractiveSummary(
    news,
    tokensOf(news, () => 1),
    plain({ ratio: 0.4, maxSentences: 5 }),
  );
  const used = ex.chosen.reduce((n, i) => n + ex.sentences[i].words, 0);
  assert.ok(used <= ex.budgetWords, `${used} words for a budget of ${ex.budgetWords}`);
  assert.equal(ex.budgetWords, Math.round(0.4 * countWords(news)));
});

test('a one-sentence document is its own summary, and an empty one gives an empty summary', () => {
  const one = 'Only this sentence is here';
  assert.equal(
    extractiveSummary(
      one,
      tokensOf(one, () => 1),
      DEFAULT_EXTRACTIVE,
    ).summary,
    one,
  );
  assert.equal(extractiveSummary(one, [], DEFAULT_EXTRACTIVE).summary, one, 'no α at all: still the one sentence');
  for (const empty of ['', '   \n\n  ']) {
    const ex = extractiveSummary(empty, [], DEFAULT_EXTRACTIVE);
    assert.equal(ex.summary, '');
    assert.deepEqual(ex.chosen, []);
  }
});

test('any script and emoji: sentences are cut at their own boundaries and copied unchanged', () => {
  const text =
    'Der Bürgermeister eröffnet die Brücke 🙂. Москва строит новый мост. Émile a dit: «oui». 北京的新桥明天开放。 שלום עולם.';
  const tokens = tokensOf(text, (w) => (/Москва|мост/.test(w) ? 4 : 1));
  const ex = extractiveSummary(text, tokens, plain({ ratio: 0.3, maxSentences: 1 }));
  assert.equal(ex.summary, 'Москва строит новый мост.');
  const all = extractiveSummary(text, tokens, plain({ ratio: 1, maxSentences: 10 }));
  for (const i of all.chosen) assert.ok(text.includes(text.slice(all.sentences[i].start, all.sentences[i].end)));
});

test('a Markdown heading is not a summary sentence, and does not count as the first sentence', () => {
  const md =
    '# Council approves river bridge\n\nThe council voted on Tuesday. Work starts in spring. Shops fear traffic.';
  const tokens = tokensOf(md, (w) => (w === 'Council' || w === 'bridge' ? 50 : 1));
  const ex = extractiveSummary(md, tokens, plain({ aggregation: 'sum', positionWeight: 4, ratio: 0, maxSentences: 1 }));
  assert.equal(ex.summary, 'The council voted on Tuesday.');
  assert.equal(
    extractiveSummary('# Only a title', [], DEFAULT_EXTRACTIVE).summary,
    '# Only a title',
    'nothing else to choose',
  );
});

test('the rank aggregation is not decided by one peaked token; sum is', () => {
  const text = 'And so it was and and. Budget cuts hit schools, hospitals and roads across the county.';
  // One function word takes nearly all the mass (as the shipped model's α does with "and").
  const tokens = tokensOf(text, (w, i) =>
    i === 0 ? 1000 : /Budget|cuts|schools|hospitals|roads|county/.test(w) ? 2 : 1,
  );
  assert.equal(extractiveSummary(text, tokens, plain({ aggregation: 'sum', ratio: 0, maxSentences: 1 })).chosen[0], 0);
  assert.equal(extractiveSummary(text, tokens, plain({ aggregation: 'rank', ratio: 0, maxSentences: 1 })).chosen[0], 1);
});

test('the position weight pulls early sentences forward; 0 leaves the attention alone', () => {
  const tokens = tokensOf(news, (w) => (/Residents|traffic/.test(w) ? 10 : 1));
  const att = scoreSentences(news, tokens, 'sqrt', 0);
  const best = att.reduce((b, s, i) => (s.score > att[b].score ? i : b), 0);
  assert.equal(best, 3);
  const lead = scoreSentences(news, tokens, 'sqrt', 100);
  assert.deepEqual(
    lead.map((s) => s.score).map((_, i, a) => a.indexOf(Math.max(...a.slice(i)))),
    [0, 1, 2, 3, 4],
    'scores fall with position',
  );
});

test('property: any α gives sentences of the text, in order, within budget, at most maxSentences', () => {
  const sentence = fc
    .tuple(
      fc.constantFrom('The', 'A', 'Köln', '北京', 'Über', 'Émile'),
      fc.array(fc.constantFrom('cat', 'sat', '🙂', 'мост', '42', 'x'), { minLength: 0, maxLength: 8 }),
      fc.constantFrom('.', '!', '?'),
    )
    .map(([a, ws, p]) => [a, ...ws].join(' ') + p);
  fc.assert(
    fc.property(
      fc.array(sentence, { minLength: 0, maxLength: 12 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }),
      fc.constantFrom<ExtractiveOptions['aggregation']>('sum', 'mean', 'sqrt', 'rank'),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 1, max: 4 }),
      fc.constantFrom(0, 4),
      (sentences, ws, aggregation, ratio, maxSentences, positionWeight) => {
        const text = sentences.join(' ');
        const tokens = tokensOf(text, (_, i) => ws[i % ws.length] + 1e-9);
        const ex = extractiveSummary(text, tokens, { aggregation, positionWeight, ratio, maxSentences, minWords: 0 });
        assert.ok(ex.chosen.length <= maxSentences);
        assert.deepEqual(
          [...ex.chosen].sort((a, b) => a - b),
          ex.chosen,
          'document order',
        );
        assert.equal(
          ex.summary,
          ex.chosen.map((i) => text.slice(ex.sentences[i].start, ex.sentences[i].end)).join(' '),
        );
        const used = ex.chosen.reduce((n, i) => n + ex.sentences[i].words, 0);
        assert.ok(ex.chosen.length <= 1 || used <= ex.budgetWords);
        if (text.trim()) assert.ok(ex.chosen.length >= 1);
        assert.equal(unsupportedItems(ex.summary, text).unsupported, 0, 'an extract invents nothing');
      },
    ),
    { numRuns: 300 },
  );
});

test('faithfulness counts the names and numbers that the source lacks, and only those', () => {
  const source = 'Gen. John Kelly said the U.S. Navy seized 1,200 tons in 2013. He spoke in Washington.';
  assert.deepEqual(names('Kelly met Elonlen in Paris. Then I left.'), ['Elonlen', 'Paris']);
  assert.deepEqual(numbers('It cost 1,200 dollars, or 3.5 million, in 2013.'), ['1,200', '3.5', '2013']);
  const c = unsupportedItems('Kelly says the Navy seized 1200 tons in 2014. Admiral Elonlen of Boston agreed.', source);
  // Items: Navy, 1200, 2014, Elonlen, Boston ("Kelly" and "Admiral" start their sentences).
  assert.equal(c.items, 5);
  assert.deepEqual(c.invented.sort(), ['2014', 'Boston', 'Elonlen'].sort());
  assert.equal(c.unsupported, 3);
  assert.equal(unsupportedItems('the budget was cut.', source).items, 0);
  const corpus = corpusFaithfulness(['Kelly met Smith in 1999.', 'The Navy went to Washington.'], [source, source]);
  assert.equal(corpus.items, 4); // Smith, 1999 | Navy, Washington
  assert.equal(corpus.unsupported, 2);
  assert.equal(corpus.rate, 0.5);
  assert.equal(corpus.summariesWithInvention, 0.5);
  assert.equal(corpusFaithfulness([], []).rate, 0);
});

// ---- with the shipped model ----------------------------------------------------------------------

const dir = path.join(modelsDir, 'summarize');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
let system: Promise<SummarizeSystem> | undefined;
const load = () => (system ??= SummarizeSystem.load(dir, quiet));

test('the protocol accepts the two modes and refuses others', () => {
  assert.ok(SummarizeRequest.safeParse({ op: 'summarize', text: 'x', mode: 'extractive' }).success);
  assert.ok(SummarizeRequest.safeParse({ op: 'summarize', text: 'x', mode: 'abstractive' }).success);
  assert.equal(SummarizeRequest.safeParse({ op: 'summarize', text: 'x', mode: 'lead' }).success, false);
});

test('extractive mode: whole source sentences, in order, nothing invented, the attended phrases still shown', async () => {
  const s = await load();
  const r = await s.run({ op: 'summarize', text: article, mode: 'extractive' }, noop);
  assert.equal(r.mode, 'extractive');
  assert.ok(r.extracted && r.extracted.length >= 1 && r.extracted.length <= DEFAULT_EXTRACTIVE.maxSentences);
  assert.equal(r.summary, r.extracted.map((e) => article.slice(e.start, e.end)).join(' '));
  for (let i = 1; i < r.extracted.length; i++) assert.ok(r.extracted[i - 1].end <= r.extracted[i].start);
  assert.ok(r.summary.length < article.length);
  assert.equal(unsupportedItems(r.summary, article).unsupported, 0);
  assert.equal(r.hitMaxLength, null);
  assert.equal(r.truncated, false);
  assert.equal(r.topPhrases.length, 5);
  const total = r.tokens.reduce((sum, t) => sum + t.weight, 0);
  assert.ok(Math.abs(total - 1) < 1e-6, `α sums to ${total}`);
});

test("one window: the α the extractive mode uses is the encoder's own topic_attention (Eq. 11)", async () => {
  const parity = JSON.parse(readFileSync(fixture('summarize-parity.json'), 'utf8')) as {
    text: string;
    input_ids: number[];
  };
  const s = await load();
  const read = await s.documentAttention(parity.text, undefined);
  assert.equal(read.windows, 1);
  const { session } = await openSession(path.join(dir, 'encoder.onnx'), quiet);
  const ids = parity.input_ids;
  const out = await session.run({
    input_ids: int64Tensor(ids, [1, ids.length]),
    attention_mask: int64Tensor(
      ids.map(() => 1),
      [1, ids.length],
    ),
  });
  const alpha = out.topic_attention.data as Float32Array;
  assert.equal(read.tokens.length, alpha.length);
  read.tokens.forEach((t, i) => assert.ok(Math.abs(t.weight - alpha[i]) < 1e-5, `α[${i}] ${t.weight} vs ${alpha[i]}`));
});

test("a document longer than the encoder's window is read in windows, to its end", async () => {
  const s = await load();
  const long = Array.from({ length: 12 }, (_, i) => article.replace('Riverton', `Town${i}`)).join('\n\n');
  const r = await s.run({ op: 'summarize', text: long, mode: 'extractive', maxInputTokens: 64 }, noop);
  assert.equal(r.truncated, false);
  assert.equal(r.usedChars, long.length);
  assert.ok(r.stats.usedInputTokens > 64);
  assert.equal(r.summary, (r.extracted ?? []).map((e) => long.slice(e.start, e.end)).join(' '));
  const total = r.tokens.reduce((sum, t) => sum + t.weight, 0);
  assert.ok(Math.abs(total - 1) < 1e-6);
});

test('a text past 32 windows is read to its last sentence in the extractive and synopsis modes, nothing cut', async () => {
  const s = await load();
  // 32 windows of 64 tokens once ended the reading (about 40,000 characters at the model's own window).
  const paragraphs = Array.from({ length: 24 }, (_, i) => article.replace('Riverton', `Town${i}`));
  paragraphs.push('The last paragraph names Lastford, whose bridge opens in June.');
  const huge = paragraphs.join('\n\n');
  for (const mode of ['extractive', 'synopsis'] as const) {
    const h = await s.run({ op: 'summarize', text: huge, mode, maxInputTokens: 64 }, noop);
    assert.ok(h.stats.usedInputTokens > 32 * 64, `${mode}: ${h.stats.usedInputTokens} tokens: make the text longer`);
    assert.equal(h.truncated, false, mode);
    assert.equal(h.usedChars, huge.length, mode);
    assert.equal(h.stats.inputTokens, h.stats.usedInputTokens, mode);
    // The last sentence was read: its words carry attention.
    const last = huge.indexOf('Lastford');
    assert.ok(
      h.tokens.some((t) => t.start >= last && t.weight > 0),
      `${mode}: the last paragraph has no α`,
    );
  }
});

test('extractive mode refuses empty and binary input as the abstractive one does', async () => {
  const s = await load();
  await assert.rejects(s.run({ op: 'summarize', text: ' \n ', mode: 'extractive' }, noop), /no text to summarize/);
  const binary = String.fromCharCode(...Array.from({ length: 400 }, (_, i) => (i * 37) % 256));
  await assert.rejects(s.run({ op: 'summarize', text: binary, mode: 'extractive' }, noop), /binary data/);
  const r = await s.run(
    { op: 'summarize', text: 'Der Bürgermeister 北京 Москва 🙂 said the bridge opens in May.', mode: 'extractive' },
    noop,
  );
  assert.equal(r.summary, 'Der Bürgermeister 北京 Москва 🙂 said the bridge opens in May.');
});

test('property: any text, hostile or not, gets an extract of itself or a clear bad-input error', async () => {
  const s = await load();
  const nasty = fc.constantFrom(
    '\u0000',
    '\uD800',
    '\uDFFF',
    '\u202E',
    '\u200B',
    '\uFEFF',
    '\r\n',
    'שלום עולם.',
    '東京は日本の首都です。',
    '👩‍👩‍👧‍👦',
    'e\u0301',
    'Mr.',
    'U.S.',
    '\n\n',
    '# Title\n\n',
    '| a | b |\n',
  );
  const word = fc.stringMatching(/^[A-Za-z]{1,12}$/);
  const text = fc
    .tuple(
      fc.array(
        fc.oneof(nasty, word, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constant(' ')),
        { maxLength: 40 },
      ),
      fc.constantFrom(' ', '. ', '\n'),
    )
    .map(([parts, sep]) => parts.join(sep));
  await fc.assert(
    fc.asyncProperty(text, async (t) => {
      try {
        const r = await s.run({ op: 'summarize', text: t, mode: 'extractive', maxInputTokens: 16 }, noop);
        assert.ok(r.summary.length > 0 && r.source === t);
        assert.equal(r.summary, (r.extracted ?? []).map((e) => t.slice(e.start, e.end)).join(' '));
        for (const span of [...r.tokens, ...r.topPhrases]) assert.equal(t.slice(span.start, span.end), span.text);
        assert.ok(r.tokens.every((x) => Number.isFinite(x.weight)));
      } catch (e) {
        assert.ok(
          e instanceof EngineError && e.code === 'bad-input',
          `${JSON.stringify(t).slice(0, 200)}: ${String(e)}`,
        );
      }
    }),
    { numRuns: 40 },
  );
});
