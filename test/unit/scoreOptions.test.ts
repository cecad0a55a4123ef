// Score Draft's options (draftsmith.score.* settings → the 'score' request's options → scoreDraft.ts):
// each gives sacreBLEU 2.6.0's number on test/fixtures/sacrebleu-options.json (written by sacreBLEU
// itself, see bleuOptions.test.ts), with sacreBLEU's signature; with no options, or every option at
// its default, the result is exactly what Score Draft gave before the options existed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ScoreRequest, ScoreResult, type ScoreOptions } from '../../extension/protocol';
import { scoreCorpus, scoreDraft, type ScorePair } from '../../extension/engine/eval/scoreDraft';
import { corpusBleu, sentenceBleu } from '../../extension/engine/metrics/bleu';
import { rougeSignature } from '../../extension/engine/metrics/signature';
import { fixture } from './helpers';

interface SacreOptions {
  tokenize?: ScoreOptions['tokenize'];
  lowercase?: boolean;
  maxNgramOrder?: number;
  effectiveOrder?: boolean;
  smooth?: ScoreOptions['smoothMethod'];
  smoothValue?: number;
}
const ref: {
  bleuCorpus: {
    options: SacreOptions;
    nrefs: number;
    score: number;
    precisions: number[];
    bp: number;
    hypLength: number;
    refLength: number;
    signature: string;
  }[];
  chrfCorpus: {
    options: { wordOrder?: number } & Record<string, unknown>;
    nrefs: number;
    score: number;
    name: string;
    signature: string;
  }[];
  corpusData: { hyps: string[]; refs: string[][] };
} = JSON.parse(readFileSync(fixture('sacrebleu-options.json'), 'utf8'));

const pairs: ScorePair[] = ref.corpusData.hyps.map((hypothesis, i) => ({
  hypothesis,
  reference: ref.corpusData.refs[0][i],
}));

/** sacreBLEU's option names as the request's. */
function requestOptions(o: SacreOptions): ScoreOptions {
  const r: ScoreOptions = {};
  if (o.tokenize !== undefined) r.tokenize = o.tokenize;
  if (o.lowercase !== undefined) r.lowercase = o.lowercase;
  if (o.maxNgramOrder !== undefined) r.maxNgramOrder = o.maxNgramOrder;
  if (o.smooth !== undefined) r.smoothMethod = o.smooth;
  if (o.smoothValue !== undefined) r.smoothValue = o.smoothValue;
  return ScoreRequest.shape.options.unwrap().parse(r); // what the protocol lets through
}

const REF =
  'The storm closed the harbour on Monday. Fishing boats stayed in port. The mayor promised help for the families.';
const HYP = 'Fishing boats stayed in port on Monday. The storm closed the harbour. The mayor promised help.';
const DEFAULT_BLEU_SIGNATURE = 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0';

const withoutTime = (r: ScoreResult) => ({ ...r, elapsedMs: 0 });

test('a request without options, with {} or with every option at its default scores exactly as before, plus the signatures', () => {
  const old = ScoreRequest.parse({ op: 'score', hypothesis: HYP, reference: REF }); // a request from before the options
  const base = ScoreResult.parse(scoreDraft(old));
  const defaults: ScoreOptions = { tokenize: '13a', smoothMethod: 'exp', lowercase: false, maxNgramOrder: 4 };
  for (const options of [{}, defaults]) {
    assert.deepEqual(withoutTime(scoreDraft({ ...old, options })), withoutTime(base), JSON.stringify(options));
  }
  // The numbers Score Draft gave before: BLEU's defaults for the corpus and sentence scores.
  assert.equal(base.scores.bleu.score, corpusBleu([HYP], [[REF]]).score);
  assert.deepEqual(
    base.sentences.map((s) => s.bleu),
    base.sentences.map((s) => sentenceBleu(s.text, [s.referenceText]).score),
  );
  assert.equal(base.scores.chrf, undefined, 'no chrF unless asked');
  assert.ok(!('chrf' in base.scores), 'the scores have no chrf key when it is off');
  assert.deepEqual(base.signatures, { BLEU: DEFAULT_BLEU_SIGNATURE, ROUGE: rougeSignature({}) });
  assert.equal(
    base.signatures.ROUGE,
    'nrefs:1|agg:mean|tok:rouge-score|stem:no|split:nlp|w:1.2|version:rouge-score-0.1.2',
  );
});

test("each BLEU option of the request gives sacreBLEU 2.6.0's corpus BLEU and signature (tokenizers, smoothing with and without a value, order, lowercase)", () => {
  const cases = ref.bleuCorpus.filter((c) => c.nrefs === 1 && !c.options.effectiveOrder);
  assert.ok(cases.length >= 15, `${cases.length} cases`);
  const seen = new Set<string>();
  for (const c of cases) {
    const options = requestOptions(c.options);
    for (const k of Object.keys(options)) seen.add(k);
    const what = JSON.stringify(options);
    const s = scoreCorpus(pairs, options).bleu;
    assert.ok(Math.abs(s.score - c.score) < 1e-9, `${what}: BLEU ${s.score} vs sacreBLEU ${c.score}`);
    assert.equal(s.hypLength, c.hypLength, what);
    assert.equal(s.refLength, c.refLength, what);
    assert.ok(Math.abs(s.brevityPenalty - c.bp) < 1e-12, `${what}: BP`);
    c.precisions.forEach((p, i) => assert.ok(Math.abs(s.precisions[i] - p) < 1e-9, `${what}: p${i + 1}`));
    // The signature Score Draft shows for these options is sacreBLEU's.
    const one = scoreDraft({ op: 'score', hypothesis: HYP, reference: REF, options });
    assert.equal(one.signatures.BLEU, c.signature, what);
    assert.equal(
      one.scores.bleu.score,
      scoreCorpus([{ hypothesis: HYP, reference: REF }], options).bleu.score,
      `${what}: Score Draft's BLEU is scoreCorpus's`,
    );
  }
  assert.deepEqual([...seen].sort(), ['lowercase', 'maxNgramOrder', 'smoothMethod', 'smoothValue', 'tokenize']);
});

test("chrF and chrF++ on: sacreBLEU 2.6.0's corpus chrF2 / chrF2++ and signature beside BLEU, which is unchanged", () => {
  const base = scoreCorpus(pairs);
  for (const [variant, wordOrder] of [
    ['chrF', undefined],
    ['chrF++', 2],
  ] as const) {
    const c = ref.chrfCorpus.find(
      (x) =>
        x.nrefs === 1 &&
        Object.keys(x.options).length === (wordOrder === undefined ? 0 : 1) &&
        x.options.wordOrder === wordOrder,
    );
    assert.ok(c, variant);
    const s = scoreCorpus(pairs, { chrf: variant });
    assert.ok(
      s.chrf && Math.abs(s.chrf.score - c.score) < 1e-9,
      `${variant}: ${s.chrf?.score} vs sacreBLEU ${c.score}`,
    );
    assert.equal(s.chrf.name, c.name);
    assert.deepEqual({ ...s, chrf: undefined }, { ...base, chrf: undefined });
    const r = ScoreResult.parse(
      scoreDraft({ op: 'score', hypothesis: HYP, reference: REF, options: { chrf: variant } }),
    );
    assert.equal(r.signatures.chrF, c.signature, variant);
    assert.equal(r.signatures.BLEU, DEFAULT_BLEU_SIGNATURE);
  }
});

test('stemming changes the ROUGE signature; a smoothing value is ignored by exp, as sacreBLEU ignores it', () => {
  const r = scoreDraft({ op: 'score', hypothesis: HYP, reference: REF, options: { stem: true } });
  assert.match(r.signatures.ROUGE, /\|stem:yes\|/);
  const plain = scoreDraft({ op: 'score', hypothesis: HYP, reference: REF });
  const ignored = scoreDraft({ op: 'score', hypothesis: HYP, reference: REF, options: { smoothValue: 7 } });
  assert.deepEqual(withoutTime(ignored), withoutTime(plain));
});

test('the protocol refuses options sacreBLEU does not have or values out of range, and accepts old requests', () => {
  const req = { op: 'score', hypothesis: HYP, reference: REF };
  assert.ok(ScoreRequest.safeParse(req).success);
  assert.ok(ScoreRequest.safeParse({ ...req, options: { stem: true, lowercase: true } }).success);
  assert.ok(
    ScoreRequest.safeParse({
      ...req,
      options: { tokenize: 'intl', smoothMethod: 'add-k', smoothValue: 3, maxNgramOrder: 6, chrf: 'chrF++' },
    }).success,
  );
  for (const options of [
    { tokenize: 'spm' },
    { tokenize: 'ja-mecab' },
    { smoothMethod: 'method3' },
    { smoothValue: -1 },
    { smoothValue: Number.NaN },
    { maxNgramOrder: 0 },
    { maxNgramOrder: 2.5 },
    { maxNgramOrder: 11 },
    { chrf: 'off' },
    { chrf: 'chrf' },
    { lowercase: 'yes' },
  ]) {
    assert.equal(ScoreRequest.safeParse({ ...req, options }).success, false, JSON.stringify(options));
  }
});
