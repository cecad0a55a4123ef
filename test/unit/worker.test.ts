import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { endOf as ends, modelsDir, startWorker } from './helpers';

test('the worker summarizes, reporting progress before its one result', async () => {
  const { messages, until, send, close } = startWorker();
  try {
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    send({
      type: 'request',
      id: 1,
      request: {
        op: 'summarize',
        text: 'The council approved the new library budget on Monday after a long debate.',
        decoding: { maxLength: 12 },
      },
    });
    const end = await until(ends(1));
    assert.equal(end.type, 'result');
    assert.ok(messages.some((m) => m.type === 'progress' && m.id === 1));
    assert.equal(messages.filter(ends(1)).length, 1);
  } finally {
    await close();
  }
});

test('a cancel mid-generation ends the request with "cancelled"', async () => {
  const { until, send, close } = startWorker();
  try {
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    send({
      type: 'request',
      id: 2,
      request: {
        op: 'summarize',
        text: 'A long article about bridges. '.repeat(40),
        decoding: { maxLength: 200, minLength: 150 },
      },
    });
    await until((m) => m.type === 'progress' && m.id === 2 && m.message.startsWith('Writing'));
    send({ type: 'cancel', id: 2 });
    const end = await until(ends(2));
    assert.equal(end.type === 'error' && end.code, 'cancelled');
  } finally {
    await close();
  }
});

test('a malformed message gets a bad-request error, and the worker keeps working', async () => {
  const { w, until, send, close } = startWorker();
  try {
    w.postMessage({ type: 'request', id: 3, request: { op: 'summarize' } });
    const bad = await until(ends(3));
    assert.equal(bad.type === 'error' && bad.code, 'bad-request');
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    send({
      type: 'request',
      id: 4,
      request: { op: 'summarize', text: 'Short text about a town fair.', decoding: { maxLength: 6 } },
    });
    assert.equal((await until(ends(4))).type, 'result');
  } finally {
    await close();
  }
});

test('a broken models folder is reported with the file that is missing', async () => {
  const { until, send, close } = startWorker();
  try {
    const nowhere = path.join(os.tmpdir(), 'draftsmith-no-models');
    send({ type: 'configure', config: { modelsDir: nowhere, device: 'cpu', threads: 1 } });
    send({ type: 'request', id: 5, request: { op: 'summarize', text: 'Some text.' } });
    const end = await until(ends(5));
    assert.ok(
      end.type === 'error' &&
        end.code === 'bad-model' &&
        end.message.includes(path.join(nowhere, 'summarize', 'model.json')),
    );
  } finally {
    await close();
  }
});

test('"stop" mid-generation answers "stopped", cancels the request, and refuses new requests', async () => {
  const { messages, until, send, close } = startWorker();
  try {
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    send({
      type: 'request',
      id: 6,
      request: {
        op: 'summarize',
        text: 'A long article about bridges. '.repeat(40),
        decoding: { maxLength: 200, minLength: 150 },
      },
    });
    await until((m) => m.type === 'progress' && m.id === 6 && m.message.startsWith('Writing'));
    send({ type: 'stop' });
    await until((m) => m.type === 'stopped');
    // The request was stopped at its next step (its error may come just before or after 'stopped').
    const end = await until(ends(6));
    assert.equal(end.type === 'error' && end.code, 'cancelled', JSON.stringify(messages.slice(-3)));
    send({
      type: 'request',
      id: 7,
      request: { op: 'score', hypothesis: 'The bees flew home.', reference: 'Bees fly home.' },
    });
    const refused = await until(ends(7));
    assert.equal(refused.type === 'error' && refused.code, 'stopped');
  } finally {
    await close();
  }
});

test('a worker started without the test hooks ignores a crash-for-test message and keeps working', async () => {
  const { w, until, send, close } = startWorker({ testHooks: false });
  let exited = false;
  w.on('exit', () => (exited = true));
  try {
    send({ type: 'crash-for-test', how: 'throw' });
    await until((m) => m.type === 'log' && /crash-for-test message was ignored/.test(m.message));
    send({ type: 'configure', config: { modelsDir, device: 'cpu', threads: 1 } });
    send({
      type: 'request',
      id: 8,
      request: { op: 'score', hypothesis: 'The bees flew home.', reference: 'Bees fly home.' },
    });
    assert.equal((await until(ends(8))).type, 'result');
    assert.equal(exited, false);
  } finally {
    await close();
  }
});
