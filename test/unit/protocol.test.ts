import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeView } from '../../extension/panelViews';
import { FromWorker, ToPanel, ToWorker, type SummarizeResult } from '../../extension/protocol';

test('a well-formed summarize request is accepted', () => {
  const m = ToWorker.safeParse({
    type: 'request',
    id: 1,
    request: { op: 'summarize', text: 'Hello.', decoding: { beamSize: 4 } },
  });
  assert.ok(m.success);
});

/**
 * `bad` is refused, and only for the field `at` names: `good`, the same message with that one value
 * valid, is accepted, and every issue zod reports lies on that path.
 */
function refusedOnlyFor(good: Record<string, unknown>, bad: Record<string, unknown>, at: readonly PropertyKey[]): void {
  assert.ok(ToWorker.safeParse(good).success, `the message with a valid ${at.join('.')} is accepted`);
  const parsed = ToWorker.safeParse(bad);
  assert.equal(parsed.success, false, `the message with a silly ${at.join('.')} is refused`);
  for (const issue of parsed.error?.issues ?? [])
    assert.deepEqual(issue.path.slice(0, at.length), [...at], `refused for ${issue.path.join('.')}: ${issue.message}`);
}

test('requests with unknown operations, missing ids or silly options are rejected', () => {
  const summarize = { op: 'summarize', text: 'x' };
  refusedOnlyFor(
    { type: 'request', id: 1, request: summarize },
    { type: 'request', id: 1, request: { ...summarize, op: 'launch-rockets' } },
    ['request', 'op'],
  );
  refusedOnlyFor({ type: 'request', id: 1, request: summarize }, { type: 'request', request: summarize }, ['id']);
  refusedOnlyFor(
    { type: 'request', id: 1, request: { ...summarize, decoding: { beamSize: 1 } } },
    { type: 'request', id: 1, request: { ...summarize, decoding: { beamSize: 0 } } },
    ['request', 'decoding', 'beamSize'],
  );
  // A valid models folder, so that the device alone is what the protocol refuses.
  refusedOnlyFor(
    { type: 'configure', config: { modelsDir: '/models', device: 'cuda' } },
    { type: 'configure', config: { modelsDir: '/models', device: 'gpu' } },
    ['config', 'device'],
  );
  assert.equal(ToWorker.safeParse('cancel everything').success, false);
});

test('the worker can only send the messages the host knows', () => {
  assert.ok(FromWorker.safeParse({ type: 'error', id: 3, code: 'cancelled', message: 'Cancelled.' }).success);
  assert.equal(FromWorker.safeParse({ type: 'error', id: 3, code: 'oops', message: '' }).success, false);
  assert.equal(FromWorker.safeParse({ type: 'progress', id: 3, message: 'x', fraction: 2 }).success, false);
});

test("the panel rejects a summarize result's view with missing token weights", () => {
  // A complete result that the panel accepts, so that the one missing field is what rejects the broken copies.
  const result: SummarizeResult = {
    op: 'summarize',
    summary: 's',
    source: 'x',
    truncated: false,
    usedChars: 1,
    hitMaxLength: null,
    tokens: [{ text: 'x', start: 0, end: 1, weight: 0.5 }],
    topPhrases: [{ text: 'x', start: 0, end: 1, weight: 0.5 }],
    topics: [{ id: 0, words: ['x'] }],
    stats: {
      inputTokens: 1,
      usedInputTokens: 1,
      outputTokens: 1,
      encodeMs: 1,
      decodeMs: 1,
      tokensPerSecond: 1,
      device: 'cpu',
      model: 'summarize',
    },
  };
  const view = summarizeView(result);
  assert.ok(ToPanel.safeParse({ type: 'summarize', view }).success, 'the complete view is accepted');
  for (const list of ['tokens', 'topPhrases'] as const) {
    const [{ weight: _, ...unweighted }] = view[list];
    const parsed = ToPanel.safeParse({ type: 'summarize', view: { ...view, [list]: [unweighted] } });
    assert.equal(parsed.success, false, `${list}[0] without a weight was accepted`);
    assert.deepEqual(
      parsed.error?.issues.map((i) => i.path),
      [['view', list, 0, 'weight']],
      'rejected for something else than the weight',
    );
  }
});

test('reply requests: mappers are the four names, at most 20 candidates, a typed key of reasonable length', () => {
  const ok = (r: object) =>
    ToWorker.safeParse({ type: 'request', id: 1, request: { op: 'reply', text: 'Hi.', ...r } }).success;
  assert.equal(ok({}), true);
  assert.equal(ok({ mappers: ['identity', 'antonym'], maxCandidates: 20, key: 'music' }), true);
  assert.equal(ok({ mappers: ['hypernym'] }), false);
  assert.equal(ok({ mappers: [] }), false);
  assert.equal(ok({ maxCandidates: 21 }), false);
  assert.equal(ok({ key: 'x'.repeat(201) }), false);
});
