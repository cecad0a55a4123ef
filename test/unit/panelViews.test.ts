// The panel's views (extension/panelViews.ts): one per ToPanel type but 'empty', and the empty
// panel's text, built from them, names each view's command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_INSIGHTS, PANEL_VIEWS, toPanel, type PanelResult } from '../../extension/panelViews';
import { ToPanel } from '../../extension/protocol';

test('every panel view but the empty one has its command, and the empty text names them all', () => {
  const types = ToPanel.options.map((o) => o.shape.type.value).filter((t) => t !== 'empty' && t !== 'folder'); // folder: assembled by the host
  assert.deepEqual(Object.keys(PANEL_VIEWS).sort(), [...types].sort());
  assert.equal(
    EMPTY_INSIGHTS,
    'Run Draftsmith: Summarize Document, Expand Topic Words into Essay, Continue Story, Round-Trip Paragraph, Score Draft or Check Coherence to see the results here.',
  );
});

test("toPanel converts each viewed result to its view's message, and only those results", () => {
  for (const op of Object.keys(PANEL_VIEWS) as PanelResult['op'][]) {
    const result = { op } as PanelResult; // the converter does not read the fields today
    const message = toPanel(result);
    assert.equal(message.type, op);
    assert.ok('result' in message && message.result === result, `${op}: the result is carried as the engine gave it`);
  }
  type Premise = Extract<import('../../extension/protocol').EngineResult, { op: 'premise' }>;
  // @ts-expect-error: a premise has no view; the converter does not take it.
  void (() => toPanel({ op: 'premise' } as unknown as Premise));
});
