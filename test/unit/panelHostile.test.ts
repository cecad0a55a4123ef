// The insights panel's protocol against hostile input. Every view's real fixture
// (test/fixtures/panel/views.json) with each class of hostile text in every string the view gets is
// a message the page accepts, so the UI test (workbench.ui.js) renders them all in the real webview
// and checks they stay inert; forged messages are refused by the page's schema and by the host's
// message handler (InsightsPanels, here with a stub webview).
import { stubWebview } from './stubWebview';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToPanel } from '../../extension/protocol';

const hostile = require('../fixtures/panel/hostile.js') as {
  HOSTILE_CLASSES: Record<string, string>;
  KEEP: Set<string>;
  FIXTURES: Record<string, unknown>;
  VIEWS: string[];
  hostileCopy(value: unknown, text: string): unknown;
  hostileMessages(): { view: string; cls: string; message: { type: string; view: unknown } }[];
  forgedMessages(): unknown[];
};

/** Every string leaf of `value` with its key. */
function strings(value: unknown, key = ''): { key: string; text: string }[] {
  if (typeof value === 'string') return [{ key, text: value }];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, k));
  return [];
}

test('every panel view has a real view in the fixtures, and the page accepts it', () => {
  const views = ToPanel.options.map((o) => o.shape.type.value).filter((t) => t !== 'empty');
  assert.deepEqual([...hostile.VIEWS].sort(), [...views].sort());
  for (const view of hostile.VIEWS) {
    const parsed = ToPanel.safeParse({ type: view, view: hostile.FIXTURES[view] });
    assert.ok(parsed.success, `${view}: ${parsed.success || parsed.error.message}`);
  }
});

test('each view with each hostile class in every free-text field is a message the page accepts (so the UI test renders it)', () => {
  const messages = hostile.hostileMessages();
  assert.equal(messages.length, hostile.VIEWS.length * Object.keys(hostile.HOSTILE_CLASSES).length);
  for (const { view, cls, message } of messages) {
    const parsed = ToPanel.safeParse(message);
    assert.ok(parsed.success, `${view}/${cls}: ${parsed.success || parsed.error.message}`);
    const leaves = strings(message.view);
    const replaced = leaves.filter((l) => l.text.startsWith(hostile.HOSTILE_CLASSES[cls]));
    assert.ok(replaced.length > 0, `${view}/${cls}: no hostile string`);
    assert.deepEqual(
      leaves
        .filter((l) => !l.text.startsWith(hostile.HOSTILE_CLASSES[cls]))
        .map((l) => l.key)
        .filter((k) => !hostile.KEEP.has(k)),
      [],
      `${view}/${cls}: strings left as they were`,
    );
  }
});

test("the fields left alone are the protocol's enums: a hostile value there is refused, so it never reaches a view", () => {
  let checked = 0;
  for (const view of hostile.VIEWS) {
    const shown = hostile.FIXTURES[view] as Record<string, unknown>;
    for (const key of Object.keys(shown).filter((k) => hostile.KEEP.has(k) && typeof shown[k] === 'string')) {
      const forged = { type: view, view: { ...shown, [key]: hostile.HOSTILE_CLASSES.script } };
      assert.equal(ToPanel.safeParse(forged).success, false, `${view}.${key} takes any text`);
      checked++;
    }
  }
  // mode (summarize), endedBy (story), architecture and stopped (round trip) at least.
  assert.ok(checked >= 4, `only ${checked} enum fields checked`);
});

test("forged messages are refused by the page's schema", () => {
  for (const forged of hostile.forgedMessages()) {
    assert.equal(ToPanel.safeParse(forged).success, false, JSON.stringify(forged));
  }
});

// ---- the host's side: InsightsPanels with a stub webview -----------------------------------------

/** The host's InsightsPanels on a stub webview, showing `current`, with the warnings it logs. */
function stubPanels(current: ToPanel | undefined) {
  const webview = stubWebview();
  // Loaded after the stub has its window and Uri (esbuild copies the module's keys when it is required).
  const { InsightsPanels } =
    require('../../extension/host/insightsPanel') as typeof import('../../extension/host/insightsPanel');
  const warnings: string[] = [];
  const log = {
    warn: (m: string) => warnings.push(m),
    info: () => undefined,
    error: () => undefined,
  } as unknown as import('vscode').LogOutputChannel;
  const panels = new InsightsPanels({ path: '/ext' } as import('vscode').Uri, () => current, log);
  return { webview, warnings, panels };
}

test('the host\'s panel handler answers the protocol\'s "ready" and refuses every forged message with a log line, posting nothing', () => {
  const current = { type: 'summarize', view: hostile.FIXTURES.summarize } as ToPanel;
  const { webview, warnings, panels } = stubPanels(current);
  panels.show();
  assert.ok(panels.isOpen);

  const forged: unknown[] = [
    // The page's forged messages but { type: 'ready' }, which is the host's protocol.
    ...hostile.forgedMessages().filter((m) => JSON.stringify(m) !== '{"type":"ready"}'),
    { type: 'ready', extra: '<script>alert(1)</script>' }, // a declared type with an undeclared field
    { type: 'copy', text: 'x' },
    { type: 'openFile', path: '/etc/passwd' },
    { type: 'runCommand', command: 'workbench.action.terminal.new' },
    { type: 'READY' },
  ];
  for (const data of forged) webview.receive(data);
  assert.deepEqual(webview.posted, [], 'a forged message made the host post');
  assert.equal(warnings.length, forged.length, `one warning per forged message: ${warnings.join('\n')}`);
  assert.ok(warnings.every((w) => /ignoring a malformed message from the panel/.test(w)));

  webview.receive({ type: 'ready' });
  assert.deepEqual(webview.posted, [current], 'the protocol\'s "ready" gets the current result');
  panels.dispose();
});

test("the page's requests go to the handler the owner registered, and only while it is registered", () => {
  const { webview, warnings, panels } = stubPanels(undefined);
  panels.show();
  const request = { type: 'export-folder', format: 'csv', sort: { column: 'BLEU', descending: true } } as const;
  const answered: unknown[] = [];
  const registration = panels.handle('export-folder', (m) => answered.push(m));
  assert.throws(() => panels.handle('export-folder', () => undefined), /a second handler/);
  webview.receive(request);
  assert.deepEqual(answered, [request]);
  registration.dispose();
  webview.receive(request);
  assert.equal(answered.length, 1, 'a disposed handler still answered');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /nothing answers the panel's 'export-folder'/);
  assert.deepEqual(webview.posted, [], 'a request made the host post');
  panels.dispose();
});
