import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FromWorker, ToPanel, ToWorker } from '../../extension/protocol';

test('a well-formed summarize request is accepted', () => {
  const m = ToWorker.safeParse({ type: 'request', id: 1, request: { op: 'summarize', text: 'Hello.', decoding: { beamSize: 4 } } });
  assert.ok(m.success);
});

test('requests with unknown operations, missing ids or silly options are rejected', () => {
  assert.equal(ToWorker.safeParse({ type: 'request', id: 1, request: { op: 'launch-rockets', text: 'x' } }).success, false);
  assert.equal(ToWorker.safeParse({ type: 'request', request: { op: 'summarize', text: 'x' } }).success, false);
  assert.equal(ToWorker.safeParse({ type: 'request', id: 1, request: { op: 'summarize', text: 'x', decoding: { beamSize: 0 } } }).success, false);
  assert.equal(ToWorker.safeParse({ type: 'configure', config: { modelsDir: '', device: 'gpu' } }).success, false);
  assert.equal(ToWorker.safeParse('cancel everything').success, false);
});

test('the worker can only send the messages the host knows', () => {
  assert.ok(FromWorker.safeParse({ type: 'error', id: 3, code: 'cancelled', message: 'Cancelled.' }).success);
  assert.equal(FromWorker.safeParse({ type: 'error', id: 3, code: 'oops', message: '' }).success, false);
  assert.equal(FromWorker.safeParse({ type: 'progress', id: 3, message: 'x', fraction: 2 }).success, false);
});

test('the panel rejects a summarize result with missing token weights', () => {
  const bad = { type: 'summarize', result: { op: 'summarize', summary: 's', source: 'x', truncated: false, usedChars: 1, tokens: [{ text: 'x', start: 0, end: 1 }], topPhrases: [], topics: [], stats: {} } };
  assert.equal(ToPanel.safeParse(bad).success, false);
});

test('reply requests: mappers are the four names, at most 20 candidates, a typed key of reasonable length', () => {
  const ok = (r: object) => ToWorker.safeParse({ type: 'request', id: 1, request: { op: 'reply', text: 'Hi.', ...r } }).success;
  assert.equal(ok({}), true);
  assert.equal(ok({ mappers: ['identity', 'antonym'], maxCandidates: 20, key: 'music' }), true);
  assert.equal(ok({ mappers: ['hypernym'] }), false);
  assert.equal(ok({ mappers: [] }), false);
  assert.equal(ok({ maxCandidates: 21 }), false);
  assert.equal(ok({ key: 'x'.repeat(201) }), false);
});
