// Hostile and odd input, property-based (fast-check): empty and whitespace-only text, binary bytes,
// NUL, lone surrogates, right-to-left and mixed scripts, emoji sequences, and long text. Every
// component that reads user text must return a well-formed answer (or a clear EngineError) and
// never throw anything else or hang. RUNS says how many inputs each property is given; the models
// (essay, summarize, story) run a quarter as many (each one decodes), then a fifth of that of ordinary
// English, which they must answer: bad-input is for unusable text, not a way out of every input.
// The CLI's own tests are in cli.hostile.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { corpusBleu, sentenceBleu, tokenize13a } from '../../extension/engine/metrics/bleu';
import { rougeScores } from '../../extension/engine/metrics/rouge';
import { diversity } from '../../extension/engine/metrics/diversity';
import { coherence } from '../../extension/engine/metrics/coherence';
import { substantiality } from '../../extension/engine/metrics/substantiality';
import { lead3 } from '../../extension/engine/metrics/lead';
import { scoreDraft } from '../../extension/engine/eval/scoreDraft';
import { EngineError } from '../../extension/engine/errors';
import { analyse } from '../../extension/engine/text/nlp';
import { normalizeWhitespace } from '../../extension/engine/text/normalize';
import { hasReadableText, junkRatio } from '../../extension/engine/text/reader';
import { Tokenizer } from '../../extension/engine/text/tokenizer';
import { parseTopics } from '../../extension/engine/text/topics';
import { coveredTopics, EssaySystem } from '../../extension/engine/systems/essay';
import { StorySystem } from '../../extension/engine/systems/story';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import type { RunContext } from '../../extension/engine/systems/context';
import { assertSpansInOrder, modelsDir } from './helpers';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

/** Pieces that break naive text handling, mixed with arbitrary Unicode. */
const nasty = fc.constantFrom(
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  '\u202E',
  '\u202C',
  '\u200F',
  '\u200B',
  '\uFEFF',
  '\r\n',
  '\t',
  'שלום עולם',
  'مرحبا بالعالم',
  '東京は日本の首都です。',
  'Ελληνικά',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '👍🏽',
  'é',
  'e\u0301',
  '<script>alert(1)</script>',
  '&amp;&lt;',
  '...',
  '?!',
  'Mr.',
  'U.S.',
  '-\n',
  '@-@',
  '   ',
  '\n\n\n',
);
const word = fc.stringMatching(/^[A-Za-z]{1,12}$/);
const hostileText = fc
  .tuple(
    fc.array(fc.oneof(nasty, word, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constant(' ')), {
      maxLength: 40,
    }),
    fc.constantFrom(' ', '', '. ', '\n'),
  )
  .map(([parts, separator]) => parts.join(separator));
const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1'));
const anyText = fc.oneof(hostileText, bytes, fc.constantFrom('', ' ', '\n\t '));

const finite = (x: number) => Number.isFinite(x);

test(`BLEU and its 13a tokenizer accept any text (${RUNS} pairs)`, () => {
  fc.assert(
    fc.property(anyText, anyText, (h, r) => {
      const s = sentenceBleu(h, [r]);
      assert.ok(finite(s.score) && s.score >= 0 && s.score <= 100 + 1e-9);
      // Python's str.split() whitespace, which is what sacreBLEU splits on (U+FEFF is not among it).
      assert.ok(tokenize13a(h).every((t) => t.length > 0 && !/[\t\n\v\f\r \x85\xa0\u2028\u3000]/.test(t)));
      assert.ok(finite(corpusBleu([h, r], [[r, h]]).score));
    }),
    { numRuns: RUNS },
  );
});

test(`ROUGE-1/2/L/Lsum/W give scores in [0, 1] for any text (${RUNS} pairs)`, () => {
  fc.assert(
    fc.property(anyText, anyText, (h, r) => {
      const s = rougeScores(h, r, { stem: true });
      for (const m of Object.values(s))
        for (const v of [m.precision, m.recall, m.f1]) assert.ok(finite(v) && v >= 0 && v <= 1 + 1e-9);
    }),
    { numRuns: RUNS },
  );
});

test(`sentence analysis, diversity, coherence and substantiality accept any text (${RUNS} pairs)`, () => {
  fc.assert(
    fc.property(anyText, anyText, (a, b) => {
      const sa = analyse(a);
      const sb = analyse(b);
      const c = coherence(sa, sb);
      assert.equal(c.alignment.length, sb.length);
      assert.ok(c.L === null || (finite(c.L) && c.L >= 0));
      const d = diversity([a, b]);
      assert.ok(d.diversity >= 0 && d.diversity <= 1 && d.distinct2 >= 0 && d.distinct2 <= 1);
      const s = substantiality([sa, sb]);
      assert.ok(finite(s.perSentence) && s.entityWords >= 0);
    }),
    { numRuns: RUNS },
  );
});

test(`Score Draft answers with scores or a clear bad-input error, never anything else (${RUNS} pairs)`, () => {
  fc.assert(
    fc.property(anyText, anyText, (h, r) => {
      try {
        const res = scoreDraft({ op: 'score', hypothesis: h, reference: r });
        assert.ok(finite(res.scores.bleu.score));
      } catch (e) {
        assert.ok(e instanceof EngineError && e.code === 'bad-input', String(e));
      }
    }),
    { numRuns: RUNS },
  );
});

test(`text pre-processing (whitespace, readability, junk ratio, Lead-3) accepts any text (${RUNS} inputs)`, () => {
  fc.assert(
    fc.property(anyText, (t) => {
      const n = normalizeWhitespace(t);
      assert.ok(!/\s{2,}/.test(n) && n === n.trim());
      const j = junkRatio(t);
      assert.ok(finite(j) && j >= 0 && j <= 1);
      assert.equal(typeof hasReadableText(t), 'boolean');
      assert.equal(typeof lead3(t), 'string');
    }),
    { numRuns: RUNS },
  );
});

test(`the model tokenizer gives spans that lie inside the text, in order, with the library's ids, for any text (${RUNS} inputs)`, async () => {
  const tok = await Tokenizer.load(path.join(modelsDir, 'summarize'), 1);
  // transformers.js' AutoTokenizer, for the ids: spans must not reorder them (an <unk> before a lone
  // "▁" once did), and the engine's @huggingface/tokenizers must tokenize as it does.
  const transformers = require('@huggingface/transformers') as typeof import('@huggingface/transformers');
  transformers.env.allowRemoteModels = false;
  transformers.env.localModelPath = modelsDir + path.sep;
  const hf = await transformers.AutoTokenizer.from_pretrained('summarize');
  fc.assert(
    fc.property(anyText, (t) => {
      const norm = normalizeWhitespace(t);
      assert.deepEqual(
        tok.encodeWithSpans(t).map((s) => s.id),
        norm ? hf.encode(norm, { add_special_tokens: false }) : [],
      );
      assertSpansInOrder(tok, t);
    }),
    { numRuns: RUNS },
  );
});

test(`topic words from any selection are trimmed words, each once, and coverage is always a subset (${RUNS} pairs)`, () => {
  fc.assert(
    fc.property(anyText, anyText, (selection, essay) => {
      const topics = parseTopics(selection);
      const seen = new Set<string>();
      for (const t of topics) {
        assert.ok(t.length > 0 && /^[\p{L}\p{N}]/u.test(t) && /[\p{L}\p{N}]$/u.test(t), JSON.stringify(t));
        assert.ok(!seen.has(t.toLowerCase()), `repeated: ${t}`);
        seen.add(t.toLowerCase());
      }
      const covered = coveredTopics(essay, topics);
      assert.ok(covered.every((c) => topics.includes(c)));
      assert.deepEqual(
        coveredTopics(topics.join(' '), topics),
        topics.filter((t) => /\p{L}/u.test(t)),
      );
    }),
    { numRuns: RUNS },
  );
});

const MODEL_RUNS = Math.max(10, Math.round(RUNS / 4));
/** Ordinary English inputs per model: each must be answered, or a model that refused everything would pass. */
const ENGLISH_RUNS = Math.max(5, Math.round(MODEL_RUNS / 5));
const quietContext: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

// Ordinary English: sentences of common words, and topic words that are common nouns.
const commonNouns = [
  'house',
  'river',
  'teacher',
  'garden',
  'city',
  'dog',
  'morning',
  'family',
  'school',
  'road',
  'friend',
  'letter',
  'market',
  'winter',
  'book',
  'water',
  'child',
  'village',
  'music',
  'boat',
];
const commonWords = fc.constantFrom(
  ...commonNouns,
  'the',
  'a',
  'and',
  'of',
  'to',
  'in',
  'on',
  'was',
  'is',
  'went',
  'saw',
  'made',
  'old',
  'new',
  'small',
  'big',
  'happy',
  'quiet',
  'every',
  'after',
  'with',
  'near',
  'long',
  'good',
  'walked',
  'found',
  'opened',
  'read',
  'played',
  'night',
  'she',
  'he',
  'they',
  'we',
);
const englishSentence = fc
  .array(commonWords, { minLength: 3, maxLength: 12 })
  .map((ws) => `${ws[0].charAt(0).toUpperCase()}${ws[0].slice(1)} ${ws.slice(1).join(' ')}.`);
const englishText = fc.array(englishSentence, { minLength: 1, maxLength: 4 }).map((ss) => ss.join(' '));
const englishTopics = fc
  .uniqueArray(fc.constantFrom(...commonNouns), { minLength: 1, maxLength: 5 })
  .map((ws) => ws.join(', '));

test(`the essay model answers any selection with essays or a clear bad-input error, and ordinary topic words always with essays (${MODEL_RUNS} + ${ENGLISH_RUNS} selections)`, async () => {
  const system = await EssaySystem.load(path.join(modelsDir, 'essay'), { device: 'cpu', threads: 1, log: () => {} });
  const essays = async (selection: string) => {
    const r = await system.run(
      { op: 'essay', topics: selection, candidates: 2, decoding: { beamSize: 1, maxLength: 8, minLength: 0 } },
      quietContext,
    );
    assert.ok(
      r.candidates.length >= 1 &&
        r.candidates.every((c) => typeof c.text === 'string' && c.covered.every((t) => r.topics.includes(t))),
    );
    assert.ok(r.topics.length >= 1 && r.topics.length <= 10);
    assert.ok(r.topics.every((t) => !r.skippedTopics.includes(t)));
  };
  // Topic-word selections: a few words (sometimes hostile ones) or any text at all.
  const fewWords = fc
    .array(fc.oneof(word, nasty, fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 12 })
    .chain((ws) => fc.constantFrom(', ', ' ', '\n', '；').map((sep) => ws.join(sep)));
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(fc.oneof(fewWords, anyText), async (selection) => {
      try {
        await essays(selection);
        answered++;
      } catch (e) {
        assert.ok(e instanceof EngineError && e.code === 'bad-input', `${JSON.stringify(selection)}: ${String(e)}`);
      }
    }),
    { numRuns: MODEL_RUNS },
  );
  console.log(`essay: ${answered} of ${MODEL_RUNS} hostile selections gave essays, the rest a bad-input error`);
  // No error allowed here: a bad-input for common English nouns fails the property.
  await fc.assert(fc.asyncProperty(englishTopics, essays), { numRuns: ENGLISH_RUNS });
});

test(`the summarizer answers any text with a summary whose spans lie in that text, or a clear bad-input error, and ordinary English always with a summary (${MODEL_RUNS} + ${ENGLISH_RUNS} texts)`, async () => {
  const system = await SummarizeSystem.load(path.join(modelsDir, 'summarize'), {
    device: 'cpu',
    threads: 1,
    log: () => {},
  });
  const summary = async (text: string) => {
    // The extension's own decoding (the manifest's minimum length), kept short.
    const r = await system.run({ op: 'summarize', text, decoding: { beamSize: 1, maxLength: 8 } }, quietContext);
    assert.ok(r.summary.length > 0 && r.source === text && r.usedChars >= 0 && r.usedChars <= text.length);
    for (const span of [...r.tokens, ...r.topPhrases])
      assert.equal(text.slice(span.start, span.end), span.text, JSON.stringify(span));
    assert.ok(r.tokens.every((t) => finite(t.weight)));
  };
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(anyText, async (text) => {
      try {
        await summary(text);
        answered++;
      } catch (e) {
        assert.ok(
          e instanceof EngineError && e.code === 'bad-input',
          `${JSON.stringify(text).slice(0, 200)}: ${String(e)}`,
        );
      }
    }),
    { numRuns: MODEL_RUNS },
  );
  console.log(`summarize: ${answered} of ${MODEL_RUNS} hostile texts gave summaries, the rest a bad-input error`);
  // No error allowed here: a bad-input for plain English sentences fails the property.
  await fc.assert(fc.asyncProperty(englishText, summary), { numRuns: ENGLISH_RUNS });
});

test(`the story model answers any prompt with a continuation read from the prompt's end, or a clear bad-input error, and ordinary English always with a continuation (${MODEL_RUNS} + ${ENGLISH_RUNS} prompts)`, async () => {
  const system = await StorySystem.load(path.join(modelsDir, 'story'), { device: 'cpu', threads: 1, log: () => {} });
  const continuation = async (prompt: string) => {
    const r = await system.run({ op: 'story', prompt, words: 4, sampling: { seed: 1 } }, quietContext);
    assert.ok(
      r.usedFrom >= 0 &&
        r.usedFrom <= prompt.length &&
        r.usedPrompt === prompt.slice(r.usedFrom) &&
        r.promptChars === prompt.length,
    );
    assert.ok(r.wordCount <= 4);
    for (const t of r.tokens) assert.equal(r.continuation.slice(t.start, t.end), t.text, JSON.stringify(t));
  };
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(anyText, async (prompt) => {
      try {
        await continuation(prompt);
        answered++;
      } catch (e) {
        assert.ok(
          e instanceof EngineError && e.code === 'bad-input',
          `${JSON.stringify(prompt).slice(0, 200)}: ${String(e)}`,
        );
      }
    }),
    { numRuns: MODEL_RUNS },
  );
  console.log(`story: ${answered} of ${MODEL_RUNS} hostile prompts gave stories, the rest a bad-input error`);
  // No error allowed here: a bad-input for plain English sentences fails the property.
  await fc.assert(fc.asyncProperty(englishText, continuation), { numRuns: ENGLISH_RUNS });
});

test('a megabyte story so far is continued from its end without tokenizing the rest, with or without spaces in it', async () => {
  const story = await StorySystem.load(path.join(modelsDir, 'story'), { device: 'cpu', threads: 1, log: () => {} });
  const para = 'The keeper climbed the stairs again and looked at the sea. ';
  const big = para.repeat(Math.ceil(1_000_000 / para.length)) + 'Then the boat came.';
  const r = await story.run({ op: 'story', prompt: big, words: 3, sampling: { seed: 1 } }, quietContext);
  assert.equal(r.truncated, true);
  assert.equal(r.stats.inputTokens, null, 'the whole megabyte was not counted');
  assert.ok(r.usedPrompt.endsWith('Then the boat came.') && r.usedPrompt.length < 2000);
  const run = await story.run(
    { op: 'story', prompt: 'a'.repeat(1_000_000), words: 3, sampling: { seed: 1 } },
    quietContext,
  );
  assert.equal(run.truncated, true);
  assert.ok(run.usedPrompt.length < 1_000_000 && /^a+$/.test(run.usedPrompt));
});

test('a megabyte of text goes through the tokenizer, BLEU, diversity and sentence analysis, and the essay model refuses it clearly', async () => {
  const para = 'The council met on Tuesday. Café owners — and 東京 visitors 👍🏽 — asked for longer hours! ';
  const big = para.repeat(Math.ceil(1_000_000 / para.length));
  assert.ok(big.length >= 1_000_000);
  const tok = await Tokenizer.load(path.join(modelsDir, 'summarize'), 1);
  assert.ok(tok.encodeWithSpans(big).length > 100_000);
  assert.ok(finite(corpusBleu([big], [[para]]).score));
  assert.ok(diversity([big]).tokens > 100_000);
  assert.ok(analyse(big).length > 10_000);
  assert.throws(() => scoreDraft({ op: 'score', hypothesis: big, reference: big }), /too long/);
  assert.ok(parseTopics(big).length > 10);
  const essay = await EssaySystem.load(path.join(modelsDir, 'essay'), { device: 'cpu', threads: 1, log: () => {} });
  await assert.rejects(
    essay.run({ op: 'essay', topics: big, decoding: { beamSize: 1, maxLength: 8 } }, quietContext),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && /at most 10 topic words/.test(e.message),
  );
  // One megabyte-long "word": too long for the model's input, said so.
  await assert.rejects(
    essay.run({ op: 'essay', topics: 'a'.repeat(1_000_000), decoding: { beamSize: 1, maxLength: 8 } }, quietContext),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && /too long/.test(e.message),
  );
});
