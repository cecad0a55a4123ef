// Fuzzing every component that reads outside input, with fast-check: the
// tokenizers, each system's pre-processing and run, each metric, the protocol's validators, the CLI's
// argument parser and text decoder, the manifest loader and the insights panel's message handlers.
// The systems, their ops and the panel's views come from the registry and the protocol, and the
// metrics from the metric list, so a new one is fuzzed without being named here (a new op needs
// its request below: a type error otherwise).
// Each must answer (or fail with a clear EngineError of the kind its caller expects) and never
// throw anything else or hang.
//
// `npm run fuzz`: FUZZ_RUNS=10000 inputs per component; the unit suite: 100 (FUZZ_RUNS unset).
// Model runs decode, so each system's run gets FUZZ_MODEL_RUNS (default FUZZ_RUNS / 20, at least
// 10) inputs with tiny generation lengths; beam search itself gets FUZZ_RUNS over toy models.
// Seeded: every run draws the same inputs (FUZZ_SEED, default 25, plus a fixed offset per
// component). A failure prints its seed and path; FUZZ_SEED=S FUZZ_PATH=P FUZZ_ONLY=component
// replays exactly that input. FUZZ_ONLY=REGEX runs only the components whose names match.
import { stubWebview } from './stubWebview';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { checkCoherence, scoreCorpus, scoreDraft } from '../../extension/engine/eval/scoreDraft';
import {
  METRIC_KEYS,
  METRICS,
  shownMetrics,
  type MetricDescriptor,
  type MetricKey,
} from '../../extension/engine/eval/metricList';
import type { FlagSpec, MetricCli, MetricCliRun } from '../../extension/engine/eval/metricFlags';
import type { MetricOptions } from '../../extension/engine/eval/scoreOptions';
import { EngineError } from '../../extension/engine/errors';
import { normalizeWhitespace } from '../../extension/engine/text/normalize';
import { paragraphSpans, sentenceSpans, splitSentences } from '../../extension/engine/text/reader';
import { checkReadable } from '../../extension/engine/text/origin';
import { semanticKeys } from '../../extension/engine/text/keys';
import { Tokenizer } from '../../extension/engine/text/tokenizer';
import { parseTopics } from '../../extension/engine/text/topics';
import { extractiveSummary } from '../../extension/engine/systems/extractive';
import { roundTripScores } from '../../extension/engine/systems/roundtrip';
import { coveredTopics } from '../../extension/engine/systems/essay';
import { silentRun } from '../../extension/engine/systems/context';
import { ENTRIES, loadSystem, modelDir, SYSTEMS, type SystemId } from '../../extension/engine/systems/registry';
import type { Op, RequestOf, System } from '../../extension/engine/systems/system';
import { modelsFolder } from '../../extension/engine/runtime/modelSource';
import { beamSearch } from '../../extension/engine/decode/beam';
import { loadModelFolder } from '../../extension/engine/runtime/manifest';
import { checkOptions, COMMAND_OPTIONS } from '../../extension/cli/options';
import { intFlag, numberFlag, parseArgs } from '../../extension/cli/args';
import { decodeText, looksLikePath } from '../../extension/cli/inputText';
import {
  EngineRequest,
  EngineResult,
  FromPanel,
  FromWorker,
  ToPanel,
  ToWorker,
  type ResultFor,
} from '../../extension/protocol';
import { tableModel } from './toyModel';
import { HUB_FIXTURES } from './loopbackHub';
import { cleanRewrite } from '../../extension/engine/systems/rewriteText';
import { applyWordChanges, wordChanges } from '../../extension/engine/text/wordDiff';
import { REWRITE_PRESETS } from '../../extension/engine/hub/rewritePresets';
import { assertAcceptingWritesWhatWasAccepted, assertMergedAsAccepted, someSubsets } from './wordMergeReference';
import { assertSpansInOrder, modelsDir, tempDir } from './helpers';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const MODEL_RUNS = Number(process.env.FUZZ_MODEL_RUNS ?? Math.max(10, Math.round(RUNS / 20)));
const SEED = Number(process.env.FUZZ_SEED ?? 25);
const ONLY = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined;
const REPLAY = process.env.FUZZ_PATH;

/** A fixed seed per component (so adding one does not change the others' inputs). */
function seedOf(component: string): number {
  let h = SEED;
  for (const c of component) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/**
 * Runs `property` over `runs` seeded inputs and prints the count; on failure adds the line that
 * replays it. Returns how many inputs ran.
 */
async function fuzz<T>(
  component: string,
  arb: fc.Arbitrary<T>,
  check: (input: T) => void | Promise<void>,
  runs = RUNS,
): Promise<void> {
  if (ONLY && !ONLY.test(component)) return;
  const seed = seedOf(component);
  let count = 0;
  const started = Date.now();
  const property = fc.asyncProperty(arb, async (input) => {
    count++;
    await check(input);
  });
  try {
    await fc.assert(property, {
      numRuns: REPLAY ? 1 : runs,
      seed,
      ...(REPLAY ? { path: REPLAY } : {}),
      endOnFailure: !!REPLAY,
    });
  } catch (e) {
    const m = /seed: (-?\d+), path: "?([\d:]+)"?/.exec(String(e));
    const replay = `replay: FUZZ_SEED=${SEED} FUZZ_PATH=${m?.[2] ?? '?'} FUZZ_ONLY='^${component.replace(/[()[\]]/g, '\\$&')}$' npm run fuzz`;
    console.log(`fuzz ${component}: FAILED after ${count} inputs (seed ${seed}); ${replay}`);
    const cause = e instanceof Error && e.cause instanceof Error ? `\n${e.cause.message}` : '';
    throw new Error(`${component}: ${replay}\n${String(e instanceof Error ? e.message : e)}${cause}`, { cause: e });
  }
  console.log(`fuzz ${component}: ${count} inputs, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// ---- hostile text ----------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  '\u202E',
  '\u202C',
  '\u2067',
  '\u200F',
  '\u200B',
  '\uFEFF',
  '\r\n',
  '\r',
  '\t',
  '\v',
  '\f',
  '\u0085',
  '\u2028',
  'שלום עולם',
  'مرحبا بالعالم',
  '東京は日本の首都です。',
  'Ελληνικά',
  'Ꙭ',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '👍🏽',
  'é',
  'e\u0301',
  'ﬁ',
  'İ',
  'ß',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  'url(javascript:1)',
  '&amp;&lt;',
  '${x}',
  '%s%n',
  '...',
  '?!',
  'Mr.',
  'U.S.',
  '3.14',
  '-1e308',
  'NaN',
  '-\n',
  '@-@',
  '   ',
  '\n\n\n',
  '"',
  "'",
  '\\',
  '—',
  '…',
  '__proto__',
  'constructor',
);
const word = fc.stringMatching(/^[A-Za-z]{1,12}$/);
const hostileText = fc
  .tuple(
    fc.array(
      fc.oneof(
        nasty,
        word,
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constant(' '),
      ),
      { maxLength: 40 },
    ),
    fc.constantFrom(' ', '', '. ', '\n', '\n\n'),
  )
  .map(([parts, separator]) => parts.join(separator));
const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1'));
const englishWords = fc.constantFrom(
  'the',
  'river',
  'bridge',
  'council',
  'opened',
  'on',
  'Saturday',
  'and',
  'people',
  'cheered',
  'a',
  'small',
  'town',
  'was',
  'quiet',
  'she',
  'walked',
  'home',
);
const english = fc
  .array(
    fc.array(englishWords, { minLength: 2, maxLength: 10 }).map((ws) => `${ws.join(' ')}.`),
    { minLength: 1, maxLength: 5 },
  )
  .map((ss) => ss.join(' '));
const anyText = fc.oneof(hostileText, bytes, english, fc.constantFrom('', ' ', '\n\t ', 'a'.repeat(5000)));
const finite = (x: number) => Number.isFinite(x);

/** Runs `f`; an EngineError with one of `codes` is an answer too. */
async function answersOr<T>(codes: readonly string[], f: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (e) {
    assert.ok(e instanceof EngineError && codes.includes(e.code), `threw ${e instanceof Error ? e.stack : String(e)}`);
    assert.ok(e.message.length > 0 && !/\[object \w+\]/.test(e.message), `unclear message: ${e.message}`);
    return undefined;
  }
}

// ---- tokenizers ------------------------------------------------------------------------------------

/** The registry's systems with a model folder (and so a tokenizer). */
const MODEL_SYSTEMS: SystemId[] = ENTRIES.filter(([, e]) => e.folder).map(([id]) => id);

for (const system of MODEL_SYSTEMS) {
  test(`fuzz: the ${system} tokenizer gives in-order spans inside any text`, async () => {
    const tok = await Tokenizer.load(modelDir(modelsDir, system), 1);
    await fuzz(`tokenizer (${system})`, anyText, (t) => {
      assertSpansInOrder(tok, t);
    });
  });
}

// ---- each system's pre-processing ------------------------------------------------------------------

test("fuzz: the summarizer's pre-processing (readability, whitespace, sentences, extractive selection)", async () => {
  const tok = await Tokenizer.load(path.join(modelsDir, 'summarize'), 1);
  await fuzz(
    'pre-processing (summarize)',
    fc.tuple(anyText, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 64 })),
    async ([text, weights]) => {
      if (
        !(await answersOr(['bad-input'], () => {
          checkReadable(text, SYSTEMS.summarize.input.task, undefined);
          return true;
        }))
      )
        return;
      const n = normalizeWhitespace(text);
      assert.ok(!/\s{2,}/.test(n) && n === n.trim());
      for (const s of sentenceSpans(text)) assert.equal(text.slice(s.start, s.end).replace(/\s+/g, ' '), s.text);
      const tokens = tok
        .encodeWithSpans(text)
        .map((s, i) => ({ ...s, weight: weights[i % Math.max(1, weights.length)] ?? 0 }));
      const summary = extractiveSummary(text, tokens);
      let last = -1;
      for (const i of summary.chosen) {
        const s = summary.sentences[i];
        assert.ok(i > last && s.start >= 0 && s.end <= text.length && s.start <= s.end, JSON.stringify(s));
        assert.ok(
          summary.summary.includes(text.slice(s.start, s.end)),
          'a chosen sentence is not verbatim in the summary',
        );
        last = i;
      }
    },
  );
});

test("fuzz: the essay's pre-processing (topic words and their coverage)", async () => {
  await fuzz('pre-processing (essay)', fc.tuple(anyText, anyText), ([selection, essay]) => {
    const topics = parseTopics(selection);
    for (const t of topics)
      assert.ok(t.length > 0 && /^[\p{L}\p{N}]/u.test(t) && /[\p{L}\p{N}]$/u.test(t), JSON.stringify(t));
    assert.ok(coveredTopics(essay, topics).every((c) => topics.includes(c)));
  });
});

test("fuzz: the story's pre-processing (the prompt's tokens)", async () => {
  const tok = await Tokenizer.load(path.join(modelsDir, 'story'), 1);
  await fuzz('pre-processing (story)', anyText, async (prompt) => {
    const ids = tok.encode(prompt.slice(-2000));
    assert.ok(ids.every(Number.isInteger));
  });
});

test("fuzz: the round trip's pre-processing (paragraphs, sentences, its scores)", async () => {
  await fuzz('pre-processing (roundtrip)', fc.tuple(anyText, anyText), async ([a, b]) => {
    await answersOr(['bad-input'], () => checkReadable(a, SYSTEMS.roundtrip.input.task, undefined));
    for (const p of paragraphSpans(a)) assert.ok(p.start >= 0 && p.end <= a.length && p.start <= p.end);
    const s = roundTripScores(splitSentences(a), splitSentences(b));
    for (const v of [s.bleu, s.rouge1, s.rouge2, s.rougeW])
      assert.ok(v === null || typeof v !== 'number' || finite(v), JSON.stringify(s));
  });
});

test("fuzz: the reply's pre-processing (readability, the post's semantic keys)", async () => {
  await fuzz('pre-processing (reply)', anyText, async (post) => {
    await answersOr(['bad-input'], () => checkReadable(post, SYSTEMS.reply.input.task, undefined));
    for (const k of semanticKeys(post)) assert.ok(k.word.length > 0 && post.includes(k.word), JSON.stringify(k));
  });
});

test("fuzz: a rewrite's clean-up and word changes (any reply: none accepted is the text, all accepted the reply up to whitespace, any subset the reference merge)", async () => {
  await fuzz('pre-processing (rewrite)', fc.tuple(anyText, anyText), ([text, reply]) => {
    const rewrite = cleanRewrite(reply, text).text;
    const changes = wordChanges(text, rewrite);
    let at = 0;
    for (const c of changes) {
      assert.ok(c.start >= at && c.end >= c.start && text.slice(c.start, c.end) === c.before, JSON.stringify(c));
      at = c.end;
    }
    const none = changes.map(() => false);
    assert.equal(applyWordChanges(text, changes, none), text);
    const squash = (t: string) => t.replace(/\s+/gu, ' ');
    assert.equal(
      squash(
        applyWordChanges(
          text,
          changes,
          changes.map(() => true),
        ),
      ),
      squash(rewrite),
    );
    for (const accepted of someSubsets(changes.length, 6, 32))
      assertMergedAsAccepted(text, rewrite, changes, accepted, applyWordChanges(text, changes, accepted));
  });
});

/** A sentence of everyday words, and a reply made from it by word edits a writer or a model makes. */
const editedReply = fc
  .tuple(
    fc.array(englishWords, { minLength: 1, maxLength: 14 }),
    fc.array(
      fc.record({
        kind: fc.constantFrom('delete', 'insert', 'replace', 'swap'),
        at: fc.nat(),
        word: englishWords,
      }),
      { maxLength: 5 },
    ),
    fc.constantFrom('.', '!', '', ','),
  )
  .map(([words, edits, end]) => {
    const out = [...words];
    for (const e of edits) {
      const k = out.length === 0 ? 0 : e.at % out.length;
      if (e.kind === 'delete' && out.length > 1) out.splice(k, 1);
      else if (e.kind === 'insert') out.splice(e.at % (out.length + 1), 0, e.word);
      else if (e.kind === 'replace' && out.length > 0) out[k] = e.word;
      else if (e.kind === 'swap' && k + 1 < out.length) [out[k], out[k + 1]] = [out[k + 1], out[k]];
    }
    return { original: words.join(' ') + end, reply: out.join(' ') + end };
  });

test("fuzz: accepting any subset of a word-edited reply's changes writes exactly the reference merge; all of them the reply", async () => {
  await fuzz(
    'word changes (edited replies)',
    editedReply,
    ({ original, reply }) => {
      assertAcceptingWritesWhatWasAccepted(original, reply, wordChanges(original, reply), applyWordChanges);
    },
    Math.max(RUNS, 5000),
  ); // cheap (10,000 in half a second): CI's run reaches the rare alignments too
});

// ---- each system's run (real models, tiny lengths) and beam search (toy models, full count) --------

const opts = { device: 'cpu' as const, threads: 1, log: () => {} };

/** A request of each op from hostile text, with tiny generation lengths (a new op without one is a type error). */
const REQUESTS: { [O in Op]: fc.Arbitrary<RequestOf<O>> } = {
  summarize: fc
    .tuple(
      anyText,
      fc.constantFrom('extractive', 'abstractive', 'synopsis') as fc.Arbitrary<
        'extractive' | 'abstractive' | 'synopsis'
      >,
    )
    .map(([text, mode]) => ({ op: 'summarize', text, mode, decoding: { beamSize: 1, maxLength: 6 } })),
  essay: anyText.map((topics) => ({
    op: 'essay',
    topics,
    candidates: 1,
    decoding: { beamSize: 1, maxLength: 6, minLength: 0 },
  })),
  story: fc.tuple(anyText, fc.nat()).map(([prompt, seed]) => ({ op: 'story', prompt, words: 3, sampling: { seed } })),
  premise: fc.nat().map((seed) => ({ op: 'premise', sampling: { seed } })),
  roundtrip: anyText.map((text) => ({ op: 'roundtrip', text, maxSentences: 2 })),
  reply: fc.tuple(anyText, fc.option(fc.oneof(word, nasty), { nil: undefined })).map(([text, key]) => ({
    op: 'reply',
    text,
    key,
    maxCandidates: 1,
    decoding: { beamSize: 1, maxLength: 6 },
  })),
  score: fc.tuple(anyText, anyText).map(([hypothesis, reference]) => ({ op: 'score', hypothesis, reference })),
  coherence: fc.tuple(anyText, anyText).map(([output, source]) => ({ op: 'coherence', output, source })),
  rewrite: fc
    .tuple(anyText, fc.constantFrom(...REWRITE_PRESETS.map((p) => p.id)), fc.option(anyText, { nil: undefined }))
    .map(([text, preset, instruction]) => ({
      op: 'rewrite',
      text,
      ...(instruction === undefined ? { preset } : { instruction }),
      maxTokens: 4,
    })),
  // The tiny instruct fixture, any lengths asked: short ones measured, none refused.
  speed: fc
    .tuple(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 8 }))
    .map(([promptTokens, decodeTokens]) => ({
      op: 'speed',
      model: { kind: 'folder', dir: path.join(HUB_FIXTURES, 'fixtures', 'SmolLM2-135M-Instruct') },
      promptTokens,
      decodeTokens,
    })),
  // A few hostile segments per draft; segment counts that may disagree (then a clear bad-input).
  systems: fc
    .tuple(fc.array(anyText, { minLength: 1, maxLength: 3 }), fc.array(anyText, { minLength: 1, maxLength: 3 }))
    .map(([a, refs]) => ({
      op: 'systems',
      systems: [
        { name: 'a', segments: a },
        { name: 'b', segments: [...a].reverse() },
      ],
      references: [refs],
      referenceName: 'ref',
      samples: 20,
    })),
};

/** What an answer must hold beyond being one: the ops with properties of their own. */
const CHECKS: { [O in Op]?: (request: RequestOf<O>, result: ResultFor<RequestOf<O>>) => void } = {
  summarize: (req, r) => {
    for (const span of r.tokens) assert.equal(req.text.slice(span.start, span.end), span.text);
  },
  essay: (_, r) => assert.ok(r.candidates.length >= 1),
  story: (_, r) => assert.ok(r.wordCount <= 3),
};

test("fuzz: each system's run answers any text or refuses it as bad input", async () => {
  // Every system of the registry, loaded as the engine loads it, and every op it answers.
  for (const [id, entry] of ENTRIES) {
    // A system that runs only a model the writer chooses (Rewrite) runs the tiny instruct fixture.
    const system: System =
      !entry.folder && entry.external
        ? await entry.external(
            { kind: 'folder', dir: path.join(HUB_FIXTURES, 'fixtures', 'SmolLM2-135M-Instruct') },
            { endpoint: 'http://127.0.0.1:9/', cacheDir: tempDir('fuzz-rewrite'), offline: true, stallSeconds: 30 },
            opts,
            { progress: () => {}, isCancelled: () => false },
          )
        : await loadSystem(id, modelsFolder(modelsDir), opts);
    try {
      for (const op of entry.ops) {
        const check = CHECKS[op] as ((q: EngineRequest, r: EngineResult) => void) | undefined;
        await fuzz(
          `run (${op})`,
          REQUESTS[op] as fc.Arbitrary<EngineRequest>,
          async (request) => {
            const r = await answersOr(['bad-input'], () => system.run(request, silentRun));
            if (r) check?.(request, r);
          },
          MODEL_RUNS,
        );
      }
    } finally {
      await system.dispose();
    }
  }
});

test('fuzz: beam search over random toy models stays inside the vocabulary and the length asked', async () => {
  const V = 6;
  const table = fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: V, maxLength: V }), {
    minLength: 1,
    maxLength: 8,
  });
  const options = fc.record({
    beamSize: fc.integer({ min: 1, max: 4 }),
    maxLength: fc.integer({ min: 1, max: 8 }),
    minLength: fc.integer({ min: 0, max: 8 }),
    lengthPenalty: fc.double({ min: 0, max: 5, noNaN: true }),
    noRepeatNgramSize: fc.integer({ min: 0, max: 3 }),
  });
  await fuzz('decoding (beam search, toy models)', fc.tuple(table, options), async ([rows, o]) => {
    // Token 1 is the end; each row's probabilities are normalised, a zero row ends at once.
    const model = tableModel(V, (prefix) => {
      const row = rows[prefix.length % rows.length];
      const sum = row.reduce((a, b) => a + b, 0);
      return sum > 0 ? Object.fromEntries(row.map((p, i) => [i, p / sum])) : { 1: 1 };
    });
    const hyps = await beamSearch(
      model,
      Array.from({ length: o.beamSize }, () => []),
      { bos: 0, eos: 1, ...o },
    );
    for (const h of hyps) {
      assert.ok(
        h.tokens.length <= o.maxLength && h.tokens.every((t) => Number.isInteger(t) && t >= 0 && t < V),
        JSON.stringify(h.tokens),
      );
    }
  });
});

// ---- metrics ---------------------------------------------------------------------------------------

/** A flag's value, drawn: not given, or given with one of its choices, a number near its least, a word. */
function flagValue(f: FlagSpec): fc.Arbitrary<string | undefined> {
  const least = f.min ?? 0;
  const value =
    f.kind === 'flag'
      ? fc.constant('true')
      : f.choices
        ? fc.constantFrom(...f.choices)
        : f.kind === 'integer'
          ? fc.integer({ min: least, max: least + 8 }).map(String)
          : f.kind === 'number'
            ? fc.double({ min: least, max: least + 5, noNaN: true }).map(String)
            : word;
  return fc.option(value, { nil: undefined });
}

/** A corpus-scored metric's values over the texts, straight from its entry (no sentence analysis). */
function corpusValues<K extends MetricKey>(key: K, hyps: string[], refs: string[], options: MetricOptions) {
  const d: MetricDescriptor<K> = METRICS[key];
  return 'corpus' in d.scoring ? d.values(d.scoring.corpus(hyps, refs, options)) : undefined;
}

/** Score Draft's options from the metric's flags, with the metric named (-m): drawn flags a table refuses, none. */
function tableOptions(cli: MetricCli, run: MetricCliRun): MetricOptions {
  try {
    return run.options(true);
  } catch (e) {
    if (!(e instanceof EngineError && e.code === 'bad-request')) throw e;
    return cli.read(() => undefined).options(true);
  }
}

// Every metric of the metric list, its flags drawn (so a metric added to the list is fuzzed here
// unnamed): its values in every table, and its sentence-level statistics as -m scores them. A metric
// a model computes is the model's to test (its numbers do not come from the list).
for (const key of METRIC_KEYS.filter((k) => !('external' in METRICS[k].scoring))) {
  test(`fuzz: the metric list's ${key} gives finite scores in range for any texts and any of its flags`, async () => {
    const cli = METRICS[key].cli;
    const flags = cli?.flags ?? [];
    const given = fc.tuple(...flags.map(flagValue));
    const pairs = fc.array(fc.record({ hypothesis: anyText, reference: anyText }), { minLength: 1, maxLength: 2 });
    await fuzz(`metric (${key})`, fc.tuple(pairs, given), async ([texts, values]) => {
      const raw = (name: string) => values[flags.findIndex((f) => f.name === name)];
      const run = cli ? await answersOr(['bad-request'], () => cli.read(raw)) : undefined;
      if (cli && !run) return;
      const options = cli && run ? tableOptions(cli, run) : {};
      const hyps = texts.map((t) => t.hypothesis);
      const refs = texts.map((t) => t.reference);
      const values_ =
        corpusValues(key, hyps, refs, options) ??
        (await answersOr(['bad-input'], () => shownMetrics(scoreCorpus(texts, options))))?.find((m) => m.key === key)
          ?.values;
      for (const v of values_ ?? [])
        assert.ok(
          v.value === null || (finite(v.value) && v.value >= 0 && (!v.percent || v.value <= 1 + 1e-9)),
          `${v.key}: ${v.value}`,
        );
      if (!cli?.scoresNamed || !run) return;
      // -m: each part's statistics summed over the segments; the score 0–100 (lower-is-better ones, TER, may pass 100).
      const parts = [...new Set(Object.values(cli.names ?? {}).flat())];
      const corpus = run.stat(parts, { varyingReferences: false });
      const segment = run.stat(parts, { varyingReferences: false }, true);
      // One segment's statistics, where they differ (BLEU's effective order), as --sentence-level scores them.
      const differ = segment.some((m, k) => m.signature(1) !== corpus[k].signature(1));
      for (const [stats, one] of differ
        ? ([
            [corpus, false],
            [segment, true],
          ] as const)
        : ([[corpus, false]] as const)) {
        stats.forEach((m, k) => {
          let sum: number[] = [];
          texts.forEach((t) => {
            const st = m.segmentStats(t.hypothesis, [t.reference]);
            sum = st.map((x, i) => x + (sum[i] ?? 0));
          });
          const score = m.score(sum);
          assert.ok(
            finite(score) && score >= 0 && (m.better === 'lower' || score <= 100 + 1e-9),
            `${m.name}: ${score}`,
          );
          const details = run.details?.(parts[k], sum, one);
          if (details) assert.equal(typeof details.text, 'string');
          assert.ok(m.signature(1).length > 0);
        });
      }
    });
  });
}

test('fuzz: Score Draft and Check Coherence answer any texts', async () => {
  await fuzz('metric (Score Draft and Check Coherence)', fc.tuple(anyText, anyText), async ([h, r]) => {
    const s = await answersOr(['bad-input'], () => scoreDraft({ op: 'score', hypothesis: h, reference: r }));
    if (s) assert.ok(finite(s.scores.bleu.score));
    await answersOr(['bad-input'], () => checkCoherence({ op: 'coherence', output: h, source: r }));
  });
});

// ---- the protocol's validators ---------------------------------------------------------------------

const panelFixtures = require('../fixtures/panel/hostile.js') as {
  FIXTURES: Record<string, unknown>;
  RESULTS: Record<string, unknown>;
  hostileCopy(value: unknown, text: string): unknown;
};

/** A copy of `value` with the leaf at a random path replaced by `junk` (near-misses of valid messages). */
function mutate(value: unknown, choose: number, junk: unknown): unknown {
  const leaves: string[][] = [];
  const walk = (v: unknown, at: string[]) => {
    if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) walk(c, [...at, k]);
    else leaves.push(at);
  };
  walk(value, []);
  if (leaves.length === 0) return junk;
  const target = leaves[choose % leaves.length];
  const copy = structuredClone(value) as Record<string, unknown>;
  let node = copy as Record<string, unknown>;
  for (const k of target.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[target[target.length - 1]] = junk;
  return copy;
}

const validMessages: unknown[] = [
  ...Object.entries(panelFixtures.FIXTURES).map(([type, view]) => ({ type, view })),
  ...Object.values(panelFixtures.RESULTS).map((result, id) => ({ type: 'result', id, result })),
  { type: 'request', id: 1, request: { op: 'summarize', text: 'x', decoding: { beamSize: 2 } } },
  { type: 'request', id: 2, request: { op: 'score', hypothesis: 'a', reference: 'b' } },
  { type: 'progress', id: 1, message: 'm', fraction: 0.5 },
  { type: 'error', id: 1, code: 'bad-input', message: 'm' },
  { type: 'cancel', id: 3 },
  { type: 'ready' },
  { type: 'empty', message: 'm' },
];
const message = fc.oneof(
  fc.anything({
    withObjectString: true,
    withNullPrototype: true,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withSparseArray: true,
  }),
  fc.tuple(fc.constantFrom(...validMessages), fc.nat(), fc.anything()).map(([m, at, junk]) => mutate(m, at, junk)),
  fc.tuple(fc.constantFrom(...validMessages), hostileText).map(([m, text]) => panelFixtures.hostileCopy(m, text)),
);

test("fuzz: the protocol's validators answer every value, and what they accept survives a JSON round trip", async () => {
  const schemas = { ToWorker, FromWorker, ToPanel, FromPanel, EngineRequest, EngineResult } as const;
  for (const [name, schema] of Object.entries(schemas)) {
    await fuzz(`protocol (${name})`, message, (m) => {
      const parsed = (schema as { safeParse(v: unknown): { success: boolean; data?: unknown } }).safeParse(m);
      if (parsed.success)
        assert.ok(
          (schema as { safeParse(v: unknown): { success: boolean } }).safeParse(JSON.parse(JSON.stringify(parsed.data)))
            .success,
        );
    });
  }
});

// ---- the CLI's argument parser and text decoder ----------------------------------------------------

const knownFlags = [...new Set(Object.values(COMMAND_OPTIONS).flat())];
const argument = fc.oneof(
  fc
    .constantFrom(...knownFlags)
    .chain((f) => fc.constantFrom(`--${f}`, `--${f}=`, `--${f}=x`, `--${f}=-1`, `--${f}=1e999`)),
  fc.constantFrom(
    '--',
    '-',
    '-m',
    '--=',
    '---',
    '--no-such',
    '-x',
    '--help',
    'bleu',
    'chrf',
    'summarize',
    '5',
    '-5',
    'NaN',
    'Infinity',
  ),
  hostileText,
  word,
);

test('fuzz: the CLI parses any arguments or refuses them with one clear bad-request message', async () => {
  await fuzz(
    'CLI argument parser',
    fc.tuple(fc.constantFrom(...Object.keys(COMMAND_OPTIONS)), fc.array(argument, { maxLength: 12 })),
    async ([command, argv]) => {
      await answersOr(['bad-request'], () => {
        const a = parseArgs(argv);
        checkOptions(a, command);
        for (const f of knownFlags) {
          intFlag(a, f);
          numberFlag(a, f);
        }
      });
    },
  );
  await fuzz(
    'CLI text decoder',
    fc.oneof(
      fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
      anyText.map((t) => Buffer.from(t)),
    ),
    (buf) => {
      const d = decodeText(buf, 'input.txt');
      assert.equal(typeof d.text, 'string');
      assert.equal(typeof looksLikePath(d.text.slice(0, 200)), 'boolean');
    },
  );
});

// ---- the manifest loader ---------------------------------------------------------------------------

test('fuzz: the manifest loader reads any model.json into a checked folder or refuses it as a bad model', async () => {
  const real = JSON.parse(
    require('node:fs').readFileSync(path.join(modelsDir, 'reply', 'model.json'), 'utf8'),
  ) as Record<string, unknown>;
  const root = tempDir('fuzz-manifest');
  let n = 0;
  const manifest = fc.oneof(
    fc.tuple(fc.nat(), fc.anything()).map(([at, junk]) => JSON.stringify(mutate(real, at, junk)) ?? 'null'),
    fc
      .tuple(fc.nat(), fc.constantFrom('../../etc/passwd', '/etc/passwd', '', 'model.json', '\u0000', 'a/../../b'))
      .map(([at, junk]) => JSON.stringify(mutate(real, at, junk))),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom('', '{', 'null', '[]', '{"system":"reply"}', JSON.stringify(real).slice(0, 100)),
  );
  await fuzz('manifest loader', manifest, async (text) => {
    const dir = path.join(root, String(n++ % 50));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'model.json'), text);
    await answersOr(['bad-model'], () => loadModelFolder(dir, 'reply'));
  });
});

// ---- the insights panel's message handlers ---------------------------------------------------------

/** The panel's views (and the empty text), from the protocol: each type with its own message schema. */
const VIEWS = new Map(ToPanel.options.map((o) => [o.shape.type.value as string, o]));

test('fuzz: the host\'s panel handler obeys only { type: "ready" }, and the page\'s schema refuses what is not a view', async () => {
  const webview = stubWebview();

  const { InsightsPanels } =
    require('../../extension/host/insightsPanel') as typeof import('../../extension/host/insightsPanel');
  const log = {
    warn: () => undefined,
    info: () => undefined,
    error: () => undefined,
  } as unknown as import('vscode').LogOutputChannel;
  const panels = new InsightsPanels(
    { path: '/ext' } as import('vscode').Uri,
    () => ({ type: 'empty', message: 'm' }),
    log,
  );
  panels.show();
  await fuzz('panel message handler (host)', message, (m) => {
    webview.posted.length = 0;
    webview.receive(m);
    const ready =
      m !== null &&
      typeof m === 'object' &&
      !Array.isArray(m) &&
      Object.keys(m).length === 1 &&
      (m as { type?: unknown }).type === 'ready';
    assert.equal(webview.posted.length, ready ? 1 : 0, fc.stringify(m));
  });
  panels.dispose();
  await fuzz('panel message handler (page)', message, (m) => {
    // The page (webview/panel.ts) renders only what ToPanel accepts: a view's result or the empty text.
    const parsed = ToPanel.safeParse(m);
    if (parsed.success) {
      const view = VIEWS.get(parsed.data.type);
      assert.ok(view, `${parsed.data.type} is not a view`);
      // The message is the view's own: its schema alone accepts it, and it survives a JSON round trip.
      assert.ok(view.safeParse(JSON.parse(JSON.stringify(parsed.data))).success, fc.stringify(m));
    }
  });
});

// ---- prose checks ----------------------------------------------------------------------------------

test('fuzz: the prose checker answers any document and any personal dictionary, its findings inside the text, and a re-check after an edit finds what a fresh check finds', async () => {
  const { sharedChecker, defaultCheckerConfig } = await import('../../extension/engine/checks/checker');
  const { parseDictionary } = await import('../../extension/engine/checks/dictionary');
  const { applyFixes, safeFixes } = await import('../../extension/engine/checks/fixes');
  const checker = await sharedChecker();
  const markdownish = fc
    .array(
      fc.oneof(
        english,
        hostileText,
        fc.constantFrom('# Title', '```', '~~~', '---', '- item', '> quote', '<div>', '`code`', '[a](b)', '| a | b |'),
      ),
      { maxLength: 12 },
    )
    .map((ps) => ps.join('\n'));
  const junkDictionary = fc
    .array(fc.oneof(word, nasty, fc.string({ unit: 'binary', maxLength: 30 })), { maxLength: 20 })
    .map((ls) => ls.join('\n'));
  const check = async (text: string, format: 'markdown' | 'plain', document?: string) => {
    const r = await checker.check(text, format, undefined, document);
    assert.ok(r);
    for (const f of r.findings) {
      assert.ok(0 <= f.start && f.start <= f.end && f.end <= text.length, JSON.stringify(f));
      assert.ok(f.message.length > 0);
      for (const x of f.fixes) assert.ok(0 <= x.start && x.start <= x.end && x.end <= text.length, JSON.stringify(x));
    }
    assert.equal(typeof applyFixes(text, safeFixes(r.findings)), 'string');
    return r.findings;
  };
  await fuzz(
    'prose checks',
    fc.record({
      text: fc.oneof(anyText, markdownish),
      format: fc.constantFrom('markdown' as const, 'plain' as const),
      dictionary: junkDictionary,
      edit: fc.tuple(fc.nat(), fc.oneof(word, nasty, fc.constant(''))),
    }),
    async ({ text, format, dictionary, edit }) => {
      const words = parseDictionary(dictionary);
      for (const w of words) assert.ok(!/\s/.test(w) && w.length <= 64, w);
      await checker.configure({ ...defaultCheckerConfig(), words });
      await check(text, format, 'fuzz');
      // An edit while the cache and the last read hold the old text: the re-check equals a check from nothing.
      const at = text.length === 0 ? 0 : edit[0] % text.length;
      const edited = text.slice(0, at) + edit[1] + text.slice(at);
      const again = await check(edited, format, 'fuzz');
      checker.clear();
      assert.deepEqual(await check(edited, format), again);
    },
    Math.max(20, Math.round(RUNS / 5)),
  );
});
