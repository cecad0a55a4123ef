/**
 * Summarize Document's synopsis mode (systems/synopsis.ts: one sentence, ranked by the scorer trained
 * on SciTLDR) and the extractive mode's redundancy filter (systems/extractive.ts), without a model
 * and then with the shipped one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { AttendedToken } from '../../extension/protocol';
import { SummarizeRequest } from '../../extension/protocol';
import { extractiveSummary, redundancyFilter } from '../../extension/engine/systems/extractive';
import {
  DENSE_FEATURES,
  firstSentence,
  parseSynopsisWeights,
  synopsis,
  synopsisCandidates,
  type SynopsisWeights,
} from '../../extension/engine/systems/synopsis';
import { SummarizeSystem } from '../../extension/engine/systems/summarize';
import { sentenceSpans } from '../../extension/engine/text/reader';
import { maxOverReferences } from '../../extension/engine/eval/summarizeEval';
import { rougeScores } from '../../extension/engine/metrics/rouge';
import { unsupportedItems } from '../../extension/engine/metrics/faithfulness';
import { article, badModelNaming, editManifest, modelsDir, tempDir } from './helpers';

const abstract =
  'Deep networks forget old classes when they learn new ones. ' +
  'Replay buffers help but cost memory. ' +
  'We propose FearNet, a generative memory that stores no examples. ' +
  'It reaches the best accuracy on three benchmarks.';

const uniform = (text: string): AttendedToken[] => {
  const out: AttendedToken[] = [];
  for (const m of text.matchAll(/\S+/gu))
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length, weight: 1 });
  return out.map((t) => ({ ...t, weight: 1 / out.length }));
};

const weights = (over: Partial<SynopsisWeights> = {}): SynopsisWeights => ({
  dense: [...DENSE_FEATURES],
  denseWeights: DENSE_FEATURES.map(() => 0),
  vocabulary: [],
  wordWeights: [],
  ...over,
});

test('every candidate has one value per dense feature, and the position features say where it is', () => {
  const { candidates } = synopsisCandidates(abstract, uniform(abstract));
  assert.equal(candidates.length, 4);
  for (const c of candidates) assert.equal(c.dense.length, DENSE_FEATURES.length);
  const at = (name: (typeof DENSE_FEATURES)[number]) => DENSE_FEATURES.indexOf(name);
  assert.deepEqual(
    candidates.map((c) => c.dense[at('first')]),
    [1, 0, 0, 0],
  );
  assert.deepEqual(
    candidates.map((c) => c.dense[at('last')]),
    [0, 0, 0, 1],
  );
  assert.deepEqual(
    candidates.map((c) => c.dense[at('relative position')]),
    [0, 1 / 3, 2 / 3, 1],
  );
  const mass = candidates.reduce((s, c) => s + c.dense[at('attention mass')], 0);
  assert.ok(Math.abs(mass - 1) < 1e-9, 'the attention mass features share out α (Eq. 11 sums to one)');
});

test('the synopsis is the one sentence the scorer ranks first, verbatim: a word weight moves the choice', () => {
  const tokens = uniform(abstract);
  const spans = sentenceSpans(abstract);
  const first = weights({ denseWeights: DENSE_FEATURES.map((f) => (f === 'first' ? 1 : 0)) });
  assert.equal(synopsis(abstract, tokens, first).summary, abstract.slice(spans[0].start, spans[0].end));
  const propose = weights({ ...first, vocabulary: ['propose'], wordWeights: [2] });
  const s = synopsis(abstract, tokens, propose);
  assert.equal(s.chosen, 2);
  assert.equal(s.summary, 'We propose FearNet, a generative memory that stores no examples.');
  assert.equal(firstSentence(abstract), abstract.slice(spans[0].start, spans[0].end));
});

test('a scorer trained on other features, or with mismatched lengths, is refused', () => {
  assert.throws(() => parseSynopsisWeights({ ...weights(), dense: ['position'] }, 'x.json'), /features/);
  assert.throws(() => parseSynopsisWeights({ ...weights(), vocabulary: ['a'] }, 'x.json'), /length/);
  assert.ok(parseSynopsisWeights(weights(), 'x.json'));
});

test("several references: SciTLDR's multi-max takes all three scores from the reference best in ROUGE-1", () => {
  const pred = 'we propose a generative memory';
  const refs = ['a generative memory for classes', 'we propose memory'];
  const each = refs.map((r) => rougeScores(pred, r, { stem: true }));
  const best = each[0].rouge1.f1 > each[1].rouge1.f1 ? each[0] : each[1];
  assert.deepEqual(maxOverReferences(pred, refs), { r1: best.rouge1.f1, r2: best.rouge2.f1, rl: best.rougeL.f1 });
});

test('the redundancy filter skips a sentence that repeats one already chosen', () => {
  const text =
    'Tom Daley failed to qualify for the final in Beijing. ' +
    'He scored 54 for his new dive. ' +
    'Tom Daley failed to qualify for the final of the event. ' +
    'China won the event.';
  const spans = sentenceSpans(text);
  const redundant = redundancyFilter(text, spans, 0.8);
  assert.equal(redundant(2, [0]), true, 'the caption restates the first sentence');
  assert.equal(redundant(1, [0]), false);
  assert.equal(redundancyFilter(text, spans, 1)(2, [0]), false, '1: off');
  // The attention is on the two Daley sentences: without the filter both are taken, with it one of
  // them and the next best sentence.
  const tokens = uniform(text).map((t) => ({ ...t, weight: /Daley|qualify|final|China/.test(t.text) ? 1 : 0.01 }));
  const opts = { aggregation: 'sum' as const, positionWeight: 0, ratio: 1, maxSentences: 2, minWords: 0 };
  assert.deepEqual(extractiveSummary(text, tokens, opts).chosen, [0, 2]);
  const filtered = extractiveSummary(text, tokens, { ...opts, redundancy: 0.8 }).chosen;
  assert.equal(filtered.length, 2);
  assert.equal(filtered.filter((i) => i === 0 || i === 2).length, 1, 'one of the repeats');
  assert.ok(filtered.includes(3), 'China, the next most attended');
});

// ---- with the shipped model ----------------------------------------------------------------------

const dir = path.join(modelsDir, 'summarize');
const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

test('the protocol accepts the synopsis mode', () => {
  assert.ok(SummarizeRequest.safeParse({ op: 'summarize', text: 'x', mode: 'synopsis' }).success);
});

test('synopsis mode with the shipped model: one whole source sentence, nothing invented', async () => {
  const s = await SummarizeSystem.load(dir, quiet);
  try {
    const r = await s.run({ op: 'summarize', text: article, mode: 'synopsis' }, noop);
    assert.equal(r.mode, 'synopsis');
    assert.equal(r.extracted?.length, 1);
    const [e] = r.extracted ?? [];
    assert.equal(r.summary, article.slice(e.start, e.end));
    assert.ok(sentenceSpans(article).some((sp) => sp.start === e.start && sp.end === e.end));
    assert.equal(unsupportedItems(r.summary, article).unsupported, 0);
  } finally {
    await s.dispose();
  }
});

test('a model folder without a synopsis scorer says so when the synopsis mode is asked for', async () => {
  const copy = tempDir('no-synopsis');
  cpSync(dir, copy, { recursive: true });
  await fs.rm(path.join(copy, 'synopsis.json'));
  await editManifest(copy, (m) => {
    delete m.files.synopsis;
    delete m.sha256['synopsis.json'];
  });
  const s = await SummarizeSystem.load(copy, quiet);
  try {
    await assert.rejects(
      s.run({ op: 'summarize', text: article, mode: 'synopsis' }, noop),
      badModelNaming(copy, /no synopsis scorer/),
    );
    assert.ok((await s.run({ op: 'summarize', text: article, mode: 'extractive' }, noop)).summary);
  } finally {
    await s.dispose();
  }
});
