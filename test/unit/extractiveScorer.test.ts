/**
 * Summarize Document's extractive mode: the learned scorer (systems/extractiveFeatures.ts, weights in
 * the model folder's extractive.json) and the lead's length as a soft target (length 'closest').
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_EXTRACTIVE,
  extractiveSummary,
  selectSentences,
  type ExtractiveOptions,
} from '../../extension/engine/systems/extractive';
import {
  EXTRACTIVE_FEATURES,
  extractiveFeatures,
  parseExtractiveWeights,
  type ExtractiveWeights,
} from '../../extension/engine/systems/extractiveFeatures';
import { pointsBack, quotedShare } from '../../extension/engine/text/standalone';
import { EngineError } from '../../extension/engine/errors';
import { modelsDir } from './helpers';

const weightsFile = path.join(modelsDir, 'summarize', 'extractive.json');
const shipped = (): ExtractiveWeights =>
  parseExtractiveWeights(JSON.parse(readFileSync(weightsFile, 'utf8')), weightsFile);

test('the fitted weights load, one per feature this version computes', () => {
  const w = shipped();
  assert.deepEqual(w.features, [...EXTRACTIVE_FEATURES]);
  assert.equal(w.weights.length, EXTRACTIVE_FEATURES.length);
});

test('weights fitted on other features, or with a weight missing, are refused by name', () => {
  const w = shipped();
  const refused = (json: unknown, what: RegExp) =>
    assert.throws(
      () => parseExtractiveWeights(json, 'extractive.json'),
      (e: unknown) => e instanceof EngineError && e.code === 'bad-model' && what.test(e.message),
    );
  refused({ ...w, features: [...w.features.slice(1), 'attention mass'] }, /features are not the ones/);
  refused({ ...w, weights: w.weights.slice(1) }, /features are not the ones/);
  refused({ features: w.features }, /not an extractive scorer/);
});

const story =
  'Flood barrier opens on the Alder\n\n' +
  'Pictured: the barrier at dawn, with workers on the bank. ' +
  'Riverton opened its new flood barrier on the Alder River on Tuesday after six years of work. ' +
  'It cost 40 million pounds and protects 3,000 homes. ' +
  '"We are proud of it," she said. ' +
  'Engineers will test the gates again in the spring.';

test('the learned scorer ranks a lead sentence about the title above a caption', () => {
  const ex = extractiveSummary(story, [], { ...DEFAULT_EXTRACTIVE, learned: shipped() });
  const sentence = (i: number) => story.slice(ex.sentences[i].start, ex.sentences[i].end);
  const caption = ex.sentences.findIndex((_, i) => sentence(i).startsWith('Pictured:'));
  const lead = ex.sentences.findIndex((_, i) => sentence(i).startsWith('Riverton opened'));
  assert.ok(caption >= 0 && lead === caption + 1, 'the caption comes first, the lead sentence after it');
  assert.ok(
    ex.sentences[lead].score > ex.sentences[caption].score,
    `lead ${ex.sentences[lead].score} vs caption ${ex.sentences[caption].score}`,
  );
  assert.ok(ex.chosen.includes(lead), 'the lead sentence is in the summary');
  assert.ok(!ex.summary.includes('Flood barrier opens on the Alder'), 'the title is never glued into the summary');
});

test('the learned scorer keeps the rule for sentences that point back', () => {
  for (const leadSentences of [1, 2, 3]) {
    const ex = extractiveSummary(story, [], { ...DEFAULT_EXTRACTIVE, learned: shipped(), leadSentences });
    const backs = ex.sentences.map((s) => pointsBack(story.slice(s.start, s.end)));
    assert.ok(backs.some(Boolean), 'the story has a sentence that points back');
    for (const i of ex.chosen) if (backs[i]) assert.ok(ex.chosen.includes(i - 1), `sentence ${i} comes with ${i - 1}`);
  }
});

test('features: position one-hot, quoted share, pointing back and caption are what the sentence is', () => {
  const inputs = [
    { text: 'Pictured: the barrier at dawn.', words: 5, rank: 0.2, centrality: 0.1, titleShare: 0.5 },
    { text: 'The barrier opened on Tuesday.', words: 5, rank: 1, centrality: 1, titleShare: 1 },
    { text: '"We are proud of it," she said.', words: 7, rank: 0.5, centrality: 0, titleShare: 0 },
  ];
  const x = extractiveFeatures(inputs);
  const f = (k: number, name: (typeof EXTRACTIVE_FEATURES)[number]) => x[k][EXTRACTIVE_FEATURES.indexOf(name)];
  assert.equal(f(0, 'first'), 1);
  assert.equal(f(1, 'second'), 1);
  assert.equal(f(1, 'first'), 0);
  assert.equal(f(0, 'caption'), 1);
  assert.equal(f(1, 'caption'), 0);
  assert.equal(f(2, 'points back'), 0, 'a quotation opens with its own words, not a pronoun');
  assert.ok(f(2, 'quote share') > 0.7);
  assert.equal(f(1, 'quote share'), 0);
  assert.equal(f(2, 'relative position'), 1);
  assert.equal(quotedShare('The film "Corn" is closed.'), 0.2);
});

test("the lead's length as a soft target: a sentence that would overshoot more than it fills is left out", () => {
  // Budget 20 words: 12 taken; the next best has 30 words (|42 − 20| = 22 > 8): at-least takes it, closest
  // does not, and takes the 6-word one after it (|18 − 20| = 2 < 8).
  const sentences = [
    { score: 3, words: 12 },
    { score: 2, words: 30 },
    { score: 1, words: 6 },
  ];
  assert.deepEqual(selectSentences(sentences, 20, 5, undefined, true), [0, 1]);
  assert.deepEqual(selectSentences(sentences, 20, 5, undefined, 'closest'), [0, 2]);
  const opts: ExtractiveOptions = { ...DEFAULT_EXTRACTIVE, length: 'closest' };
  assert.ok(extractiveSummary(story, [], opts).chosen.length >= 1, 'the best sentence is always taken');
});
