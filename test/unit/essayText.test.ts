// What Expand Topic Words into Essay tells the user: quick-pick rows and the message after inserting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidateDetail, candidateLabel, coverageMessage } from '../../extension/host/essayText';
import { essayView } from '../../extension/panelViews';
import { ToPanel, type EssayCandidate, type EssayResult } from '../../extension/protocol';

const TOPICS = ['bee', 'swallow', 'geese', 'flower', 'frog'];
const candidate = (text: string, covered: string[], score = -1.234): EssayCandidate => ({
  text,
  covered,
  logProb: score * 40,
  score,
  hitMaxLength: null,
});

test("a quick-pick row: the essay's start on one line, its coverage and score with a true minus sign", () => {
  const long = 'The bees\nwere busy. '.repeat(20);
  const label = candidateLabel(candidate(long, []));
  assert.equal(label.length, 80);
  assert.ok(label.endsWith('…'));
  assert.ok(!label.includes('\n'));
  assert.equal(candidateLabel(candidate('  Short.  ', [])), 'Short.');
  assert.ok(!candidateLabel(candidate('Cost $(alert) here', [])).includes('$('), 'a $(icon) in the text stays text');
  assert.equal(
    candidateDetail(candidate('x', ['bee', 'geese', 'flower', 'frog']), TOPICS),
    'covers 4/5: bee, geese, flower, frog · score −1.23',
  );
  assert.equal(candidateDetail(candidate('x', [], 0.5), TOPICS), 'covers 0/5: none · score 0.50');
});

test('the message after inserting names the topic words covered, those not, and those without a word vector', () => {
  const result = { topics: TOPICS, unknownTopics: [], skippedTopics: [] };
  assert.equal(
    coverageMessage(result, candidate('x', ['bee', 'geese', 'flower', 'frog'])),
    'Draftsmith: the essay covers 4 of 5 topic words: bee, geese, flower, frog; not: swallow.',
  );
  assert.equal(
    coverageMessage(result, candidate('x', TOPICS)),
    'Draftsmith: the essay covers all 5 topic words: bee, swallow, geese, flower, frog.',
  );
  assert.equal(
    coverageMessage(result, candidate('x', [])),
    'Draftsmith: the essay covers none of the 5 topic words (bee, swallow, geese, flower, frog).',
  );
  assert.equal(
    coverageMessage({ topics: ['bee'], unknownTopics: [], skippedTopics: [] }, candidate('x', ['bee'])),
    'Draftsmith: the essay covers the topic word: bee.',
  );
  assert.match(
    coverageMessage({ topics: TOPICS, unknownTopics: ['geese'], skippedTopics: [] }, candidate('x', TOPICS)),
    /no word vector for “geese” and knows it only by its subwords\.$/,
  );
  assert.match(
    coverageMessage({ topics: TOPICS, unknownTopics: ['bee', 'frog'], skippedTopics: [] }, candidate('x', [])),
    /no word vectors for “bee”, “frog” and knows them/,
  );
  assert.match(
    coverageMessage({ topics: ['bee'], unknownTopics: [], skippedTopics: ['燕子'] }, candidate('x', ['bee'])),
    /covers the topic word: bee\. Left out, in letters the model does not know: “燕子”\.$/,
  );
});

test("the panel accepts an essay result's view and rejects one without candidates", () => {
  const stats = {
    inputTokens: 9,
    usedInputTokens: 9,
    outputTokens: 3,
    encodeMs: 1,
    decodeMs: 2,
    tokensPerSecond: 1.5,
    device: 'cpu',
    model: 'm',
  };
  const result: EssayResult = {
    op: 'essay',
    topics: TOPICS,
    unknownTopics: [],
    skippedTopics: [],
    candidates: [candidate('The bee.', ['bee'])],
    layerWeights: [[0.25, 0.25, 0.5]],
    encoderLayers: ['embeddings', 'layer 1', 'layer 2'],
    stats,
  };
  const view = essayView(result);
  assert.ok(ToPanel.safeParse({ type: 'essay', view }).success);
  assert.equal(ToPanel.safeParse({ type: 'essay', view: { ...view, candidates: [] } }).success, false);
});
