// Every BLEU option of `draftsmith score` against sacreBLEU 2.6.0: its own published test cases
// (mjpost/sacrebleu test/test_bleu.py, transcribed below) and test/fixtures/sacrebleu-options.json,
// which sacreBLEU 2.6.0 itself wrote (test/fixtures/generators/sacrebleu_options.py): 57 corpus
// settings (every tokenizer, lowercase, max order 1-6, effective order, every smoothing, 1-3
// references) and 119 sentence cases, each with its signature string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  bleuFromStats,
  bleuTokens,
  corpusBleu,
  sentenceBleu,
  type BleuOptions,
  type BleuSmoothing,
  type BleuTokenizer,
} from '../../extension/engine/metrics/bleu';
import { bleuSignature } from '../../extension/engine/metrics/signature';
import { fixture } from './helpers';

interface SacreOptions {
  tokenize?: BleuTokenizer;
  lowercase?: boolean;
  maxNgramOrder?: number;
  effectiveOrder?: boolean;
  smooth?: BleuSmoothing;
  smoothValue?: number;
}
interface Expected {
  score: number;
  precisions: number[];
  bp: number;
  hypLength: number;
  refLength: number;
  signature: string;
}
const ref: {
  tokenize: ({ text: string } & Record<BleuTokenizer, string[]>)[];
  bleuCorpus: ({ options: SacreOptions; nrefs: number } & Expected)[];
  bleuSentence: ({ hyp: string; refs: string[]; options: SacreOptions } & Expected)[];
  corpusData: { hyps: string[]; refs: string[][] };
} = JSON.parse(readFileSync(fixture('sacrebleu-options.json'), 'utf8'));

function ours(o: SacreOptions): BleuOptions {
  const r: BleuOptions = {
    tokenize: o.tokenize,
    lowercase: o.lowercase,
    maxOrder: o.maxNgramOrder,
    effectiveOrder: o.effectiveOrder,
    smooth: o.smooth,
    smoothValue: o.smoothValue,
  };
  for (const k of Object.keys(r) as (keyof BleuOptions)[]) if (r[k] === undefined) delete r[k];
  return r;
}

function agrees(actual: ReturnType<typeof corpusBleu>, e: Expected, what: string): void {
  assert.ok(Math.abs(actual.score - e.score) < 1e-9, `${what}: BLEU ${actual.score} vs sacreBLEU ${e.score}`);
  assert.equal(actual.hypLength, e.hypLength, `${what}: hypothesis length`);
  assert.equal(actual.refLength, e.refLength, `${what}: reference length`);
  assert.ok(Math.abs(actual.brevityPenalty - e.bp) < 1e-12, `${what}: BP`);
  e.precisions.forEach((p, i) =>
    assert.ok(Math.abs(actual.precisions[i] - p) < 1e-9, `${what}: p${i + 1} ${actual.precisions[i]} vs ${p}`),
  );
}

test('tokenizers 13a, intl, char, zh and none split as sacreBLEU 2.6.0 does (punctuation, CJK, emoji, currency, Unicode spaces)', () => {
  for (const row of ref.tokenize) {
    for (const t of ['13a', 'intl', 'char', 'zh', 'none'] as const)
      assert.deepEqual(bleuTokens(row.text.replace(/\s+$/u, ''), t), row[t], `${t}: ${JSON.stringify(row.text)}`);
  }
  // zh spaces out CJK, and (sacreBLEU's range quirk) general punctuation such as “ ” — … and €.
  assert.deepEqual(bleuTokens('我们“好”—€5', 'zh'), ['我', '们', '“', '好', '”', '—', '€', '5']);
  assert.deepEqual(bleuTokens('a b', 'char'), ['a', 'b']);
  assert.throws(() => bleuTokens('x', 'spm' as BleuTokenizer), /unknown BLEU tokenizer "spm"/);
});

test('corpus BLEU matches sacreBLEU for every tokenizer, case, order, effective order, smoothing and 1-3 references, signature included', () => {
  const { hyps, refs } = ref.corpusData;
  assert.ok(ref.bleuCorpus.length >= 50);
  for (const c of ref.bleuCorpus) {
    const what = `${JSON.stringify(c.options)} × ${c.nrefs} refs`;
    agrees(corpusBleu(hyps, refs.slice(0, c.nrefs), ours(c.options)), c, what);
    assert.equal(bleuSignature(ours(c.options), c.nrefs), c.signature, what);
  }
});

test('sentence BLEU (effective order on, as sacrebleu.sentence_bleu) matches sacreBLEU per option', () => {
  for (const c of ref.bleuSentence) {
    agrees(sentenceBleu(c.hyp, c.refs, ours(c.options)), c, `${JSON.stringify(c.hyp)} ${JSON.stringify(c.options)}`);
    assert.equal(bleuSignature({ effectiveOrder: true, ...ours(c.options) }, c.refs.length), c.signature);
  }
});

// mjpost/sacrebleu test/test_bleu.py (EPSILON = 1e-8 there, kept here).
const README_REFS = [
  ['The dog bit the man.', 'It was not unexpected.', 'The man bit him first.'],
  ['The dog had bit the man.', 'No one was surprised.', 'The man had bitten the dog.'],
];
const README_HYPS = ['The dog bit the man.', "It wasn't surprising.", 'The man had just bitten him.'];
/** sacrebleu.raw_corpus_bleu: tokenize none, floor smoothing, effective order. */
const raw = (hyps: string[], refs: string[][], floor = 0.1) =>
  corpusBleu(hyps, refs, { tokenize: 'none', smooth: 'floor', smoothValue: floor, effectiveOrder: true }).score / 100;

test('sacreBLEU test_bleu.py: corpus cases (README example, tokenizers, empty hypotheses, no smoothing)', () => {
  const cases: [string[], BleuOptions, number][] = [
    [README_HYPS, {}, 48.530827],
    [['', '', ''], {}, 0.0],
    [README_HYPS, { tokenize: 'none' }, 49.1919566],
    [README_HYPS, { tokenize: '13a' }, 48.530827],
    [README_HYPS, { tokenize: 'intl' }, 43.91623493],
    [README_HYPS, { smooth: 'none' }, 48.530827],
  ];
  for (const [h, o, expected] of cases)
    assert.ok(
      Math.abs(corpusBleu(h, README_REFS, o).score - expected) < 1e-6,
      `${JSON.stringify(o)}: ${corpusBleu(h, README_REFS, o).score}`,
    );
});

test('sacreBLEU test_bleu.py: raw BLEU, effective order, offsets and degenerate statistics', () => {
  const E = 1e-8;
  // test_raw_bleu. Its first case expects 0.003799178428257963, but sacreBLEU 2.6.0 itself gives 0.0
  // (no n-gram matches at all: compute_bleu's early stop, sacreBLEU issue #141); we match 2.6.0.
  assert.equal(raw(['this is a test', 'another test'], [['ref1', 'ref2']], 0.01), 0);
  assert.ok(Math.abs(raw(['this is a test'], [['this is a test']], 0.01) - 1.0) < E);
  assert.ok(Math.abs(raw(['this is a fest'], [['this is a test']], 0.01) - 0.223606797749979) < E);
  // test_effective_order
  assert.ok(Math.abs(raw(['test'], [['a test']], 0.01) - 0.3678794411714425) < E);
  assert.ok(Math.abs(raw(['a test'], [['a test']], 0.01) - 1.0) < E);
  assert.ok(Math.abs(raw(['a little test'], [['a test']], 0.01) - 0.03218297948685433) < E);
  // test_statistics and test_offset pass bare strings, which Python iterates character by character
  // (sacreBLEU 2.6.0 prints counts [1, 0, 0, 0] for them, not the file's [4, 2, 1, 0]); the same
  // sentences as real one-segment corpora:
  const s = corpusBleu(['am I am a character sequence'], [['I am a symbol string sequence a a']], {
    tokenize: 'none',
    smooth: 'floor',
    smoothValue: 0.01,
    effectiveOrder: true,
  });
  assert.deepEqual(s.counts, [4, 2, 1, 0]);
  assert.deepEqual(s.totals, [6, 5, 4, 3]);
  // test_scoring: compute_bleu([9,7,5,3], [10,8,6,4], 11, 11) (smooth 'none' is compute_bleu's default)
  assert.ok(
    Math.abs(
      bleuFromStats({ hypLength: 11, refLength: 11, correct: [9, 7, 5, 3], total: [10, 8, 6, 4] }, { smooth: 'none' })
        .score /
        100 -
        0.8375922397,
    ) < E,
  );
  // test_degenerate_statistics (floor smoothing with the given offset): all 0
  const degenerate: [number[], number[], number, number, number][] = [
    [[0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0],
    [[0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0],
    [[0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0],
    [[6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0],
    [[0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.1],
    [[0, 0, 0, 0], [0, 0, 0, 0], 1, 5, 0.01],
  ];
  for (const [correct, total, hypLength, refLength, offset] of degenerate) {
    assert.equal(
      bleuFromStats({ hypLength, refLength, correct, total }, { smooth: 'floor', smoothValue: offset }).score,
      0,
    );
  }
});

test('each option changes the number it pins (a wrong option would fail the fixtures above)', () => {
  const { hyps, refs } = ref.corpusData;
  const seen = new Map<number, string>();
  const opts: BleuOptions[] = [
    {},
    { tokenize: 'intl' },
    { tokenize: 'char' },
    { tokenize: 'none' },
    { lowercase: true },
    { maxOrder: 3 },
    { smooth: 'add-k' },
    { smooth: 'add-k', smoothValue: 3 },
  ];
  for (const o of opts) {
    const s = corpusBleu(
      hyps.slice(0, 40),
      refs.slice(0, 1).map((r) => r.slice(0, 40)),
      o,
    ).score;
    assert.ok(!seen.has(s), `${JSON.stringify(o)} gives the same BLEU as ${seen.get(s)}`);
    seen.set(s, JSON.stringify(o));
  }
  // zh differs from 13a on Chinese text (English: only at a line's edges).
  assert.notEqual(
    sentenceBleu('我们在开会。', ['我们今天开会。'], { tokenize: 'zh' }).score,
    sentenceBleu('我们在开会。', ['我们今天开会。']).score,
  );
  // Smoothing only matters where a precision is 0: a short sentence shows all four apart.
  const four = (['exp', 'floor', 'add-k', 'none'] as const).map(
    (m) => sentenceBleu('the cat sat', ['the cat lay on the mat'], { smooth: m }).score,
  );
  assert.equal(new Set(four).size, 4, four.join(' '));
  assert.notEqual(
    sentenceBleu('a b', ['a b c'], { effectiveOrder: false }).score,
    sentenceBleu('a b', ['a b c']).score,
  );
});

test('signatures name every option as sacreBLEU does', () => {
  assert.equal(bleuSignature({}, 1), 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0');
  assert.equal(
    bleuSignature({ smooth: 'floor' }, 2),
    'nrefs:2|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:2.6.0',
  );
  assert.equal(
    bleuSignature(
      { smooth: 'add-k', smoothValue: 0.125, lowercase: true, tokenize: 'zh', effectiveOrder: true },
      'var',
      { bs: 1000, seed: 12345 },
    ),
    'nrefs:var|bs:1000|seed:12345|case:lc|eff:yes|tok:zh|smooth:add-k[0.12]|version:2.6.0',
  );
});
