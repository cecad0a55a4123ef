// chrF and chrF++ against sacreBLEU 2.6.0: its published test cases (mjpost/sacrebleu
// test/test_chrf.py, transcribed below) and test/fixtures/sacrebleu-options.json (written by
// sacreBLEU 2.6.0 itself: 24 corpus settings, 116 sentence cases).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chrfWords, corpusChrf, sentenceChrf, type ChrfOptions } from '../../extension/engine/metrics/chrf';
import { chrfSignature } from '../../extension/engine/metrics/signature';
import { fixture } from './helpers';

const ref: {
  chrfCorpus: { options: ChrfOptions; nrefs: number; score: number; name: string; signature: string }[];
  chrfSentence: { hyp: string; refs: string[]; options: ChrfOptions; score: number }[];
  corpusData: { hyps: string[]; refs: string[][] };
} = JSON.parse(readFileSync(fixture('sacrebleu-options.json'), 'utf8'));

test('corpus chrF / chrF++ match sacreBLEU for every option (word order, whitespace, case, eps smoothing, beta, char order, 1 and 3 references)', () => {
  const { hyps, refs } = ref.corpusData;
  for (const c of ref.chrfCorpus) {
    const s = corpusChrf(hyps, refs.slice(0, c.nrefs), c.options);
    assert.ok(
      Math.abs(s.score - c.score) < 1e-9,
      `${JSON.stringify(c.options)} × ${c.nrefs}: ${s.score} vs ${c.score}`,
    );
    assert.equal(s.name, c.name);
    assert.equal(chrfSignature(c.options, c.nrefs), c.signature);
  }
});

test('sentence chrF matches sacreBLEU, including Unicode, emoji and empty segments', () => {
  for (const c of ref.chrfSentence) {
    const s = sentenceChrf(c.hyp, c.refs, c.options).score;
    assert.ok(
      Math.abs(s - c.score) < 1e-9,
      `${JSON.stringify(c.hyp)} ${JSON.stringify(c.options)}: ${s} vs ${c.score}`,
    );
  }
});

// mjpost/sacrebleu test/test_chrf.py; EPSILON = 1e-4 there.
const E = 1e-4;
test('sacreBLEU test_chrf.py: eps smoothing, beta 3 (test_chrf)', () => {
  const cases: [string[], string[], number][] = [
    [['abcdefg'], ['hijklmnop'], 0.0],
    [['a'], ['b'], 0.0],
    [[''], ['b'], 0.0],
    [[''], ['ref'], 0.0],
    [[''], ['reference'], 0.0],
    [['aa'], ['ab'], 8.3333],
    [['a', 'b'], ['a', 'c'], 8.3333],
    [['a'], ['a'], 16.6667],
    [['a b c'], ['a b c'], 50.0],
    [['a b c'], ['abc'], 50.0],
    [
      [
        ' risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists .',
      ],
      [
        'risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists .',
      ],
      63.36173,
    ],
    [
      [' Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. '],
      ['Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.'],
      64.1302698,
    ],
    [['Niemand hat die Absicht, eine Mauer zu errichten'], ['Niemand hat die Absicht, eine Mauer zu errichten'], 100.0],
  ];
  for (const [h, r, expected] of cases) {
    const s = corpusChrf(h, [r], { charOrder: 6, wordOrder: 0, beta: 3, epsSmoothing: true }).score;
    assert.ok(Math.abs(s - expected) < E, `${JSON.stringify(h)}: ${s} vs ${expected}`);
  }
});

test('sacreBLEU test_chrf.py: effective-order averaging, the 2.x default (test_chrf_eff_order)', () => {
  const cases: [string[], string[], number][] = [
    [['a'], ['a'], 100.0],
    [[''], ['reference'], 0.0],
    [['a b c'], ['a b c'], 100.0],
    [['a b c'], ['abc'], 100.0],
    [[''], ['c'], 0.0],
    [['a', 'b'], ['a', 'c'], 50.0],
    [['aa'], ['ab'], 25.0],
  ];
  for (const [h, r, expected] of cases)
    assert.ok(Math.abs(corpusChrf(h, [r], { beta: 3 }).score - expected) < E, JSON.stringify(h));
});

test('sacreBLEU test_chrf.py: sentence level with eps smoothing (test_chrf_sentence_level)', () => {
  const cases: [string, string, number][] = [
    [
      'Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.',
      'Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.',
      39.14078509,
    ],
    [
      'Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.',
      'A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.',
      31.22557079,
    ],
    [
      'Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.',
      'Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.',
      57.15704367,
    ],
  ];
  for (const [h, r, expected] of cases)
    assert.ok(Math.abs(sentenceChrf(h, [r], { epsSmoothing: true }).score - expected) < E, h);
});

test('each chrF option changes the score it pins; chrF++ word splitting as sacreBLEU (issue #124 kept)', () => {
  const h = 'The cat, it sat (on) the mat!';
  const r = ['the cat sat on the mat.'];
  const variants: ChrfOptions[] = [
    {},
    { wordOrder: 2 },
    { whitespace: true },
    { lowercase: true },
    { epsSmoothing: true },
    { beta: 1 },
    { charOrder: 3 },
  ];
  const scores = variants.map((o) => sentenceChrf(h, r, o).score);
  assert.equal(new Set(scores).size, variants.length, scores.join(' '));
  assert.deepEqual(chrfWords('(hi) a, b. "c'), ['(hi', ')', 'a', ',', 'b', '.', '"', 'c']);
  assert.equal(sentenceChrf('a', ['a'], { wordOrder: 2 }).name, 'chrF2++');
  assert.throws(() => corpusChrf(['a'], [['a']], { charOrder: 0, wordOrder: 0 }), /character or a word order/);
});
