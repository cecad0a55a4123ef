// The panel's views (extension/panelViews.ts): one per ToPanel type but 'empty', the empty panel's
// text, built from them, naming each view's command, and the converters from the engine's results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EMPTY_INSIGHTS, PANEL_VIEWS, folderPanel, toPanel, type PanelResult } from '../../extension/panelViews';
import { ToPanel, type FolderScores } from '../../extension/protocol';

test('every panel view but the empty one has its command, and the empty text names them all', () => {
  const types = ToPanel.options.map((o) => o.shape.type.value).filter((t) => t !== 'empty' && t !== 'folder'); // folder: assembled by the host
  assert.deepEqual(Object.keys(PANEL_VIEWS).sort(), [...types].sort());
  assert.equal(
    EMPTY_INSIGHTS,
    'Run Draftsmith: Summarize Document, Expand Topic Words into Essay, Continue Story, Round-Trip Paragraph, Score Draft, Check Coherence or Compare Drafts against a Baseline to see the results here.',
  );
});

const fixtures = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'panel', name), 'utf8')) as Record<
    string,
    unknown
  >;

test("the converters make of each real result (test/fixtures/panel/results.json) the fixture's view, all of which the page's schema keeps", () => {
  const results = fixtures('results.json');
  const views = fixtures('views.json');
  const types = ToPanel.options.map((o) => o.shape.type.value).filter((t) => t !== 'empty');
  assert.deepEqual(Object.keys(results).sort(), [...types].sort(), 'a view without a real result');
  for (const type of types) {
    const result = results[type] as PanelResult | FolderScores;
    const message = 'op' in result ? toPanel(result) : folderPanel(result);
    assert.equal(message.type, type);
    // Nothing the converter writes is dropped by the page's schema, and nothing it needs is missing.
    assert.deepEqual(ToPanel.parse(message), message, `${type}: the view and its schema differ`);
    assert.ok('view' in message);
    assert.deepEqual(
      message.view,
      views[type],
      `${type}: views.json is not what the converter makes of results.json: run npm run fixtures:panel`,
    );
  }
});

test('a view holds what its page shows, not the whole result: the parts only the engine, the CLI or the commands read stay behind', () => {
  const results = fixtures('results.json');
  const summarize = toPanel(results.summarize as PanelResult);
  assert.ok(summarize.type === 'summarize');
  // inputLimit goes with it: the page names the window when a summary read only one (windowNotes.ts).
  assert.ok(!('op' in summarize.view) && !('hitMaxLength' in summarize.view));
  assert.ok(summarize.view.topPhrases.length <= 5, 'the view holds the five the panel shows');
  const weights = summarize.view.topPhrases.map((p) => p.weight);
  assert.deepEqual(
    weights,
    [...weights].sort((a, b) => b - a),
    'the most attended first',
  );
  const roundtrip = toPanel(results.roundtrip as PanelResult);
  assert.ok(roundtrip.type === 'roundtrip');
  assert.ok(
    !('reconstruction' in roundtrip.view) && !('usedStart' in roundtrip.view),
    "what Apply needs is the host's",
  );
  assert.equal(roundtrip.view.attention?.length, roundtrip.view.outputSentences);
  type Premise = Extract<import('../../extension/protocol').EngineResult, { op: 'premise' }>;
  // @ts-expect-error: a premise has no view; the converter does not take it.
  void (() => toPanel({ op: 'premise' } as unknown as Premise));
});
