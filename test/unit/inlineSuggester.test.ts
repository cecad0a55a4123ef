// Inline suggestions' pause and cancellation, on a fake clock and a fake engine: a
// suggestion is asked for only once the writer pauses, typing cancels the request in flight (the
// engine sees the cancel), only the latest runs, and an answer that comes after typing is never shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InlineSuggester,
  languagesOf,
  promptBefore,
  suggestionBelongs,
  type Timers,
  MAX_PREFIX_CHARS,
} from '../../extension/host/inlineSuggester';
import type { CancelSignal } from '../../extension/host/engineClient';

/** A clock that moves only when told. */
class FakeClock implements Timers {
  now = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = due.at;
      due.fn();
      await settle();
    }
    this.now = until;
    await settle();
  }
  get pending(): number {
    return this.timers.length;
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** VS Code's CancellationTokenSource, as far as the provider sees it. */
class TokenSource {
  private listeners: (() => unknown)[] = [];
  cancelled = false;
  readonly token: CancelSignal = {
    get isCancellationRequested() {
      return false;
    },
    onCancellationRequested: (l) => {
      this.listeners.push(l);
      return {
        dispose: () => {
          this.listeners = this.listeners.filter((x) => x !== l);
        },
      };
    },
  };
  constructor() {
    Object.defineProperty(this.token, 'isCancellationRequested', { get: () => this.cancelled });
  }
  cancel(): void {
    this.cancelled = true;
    for (const l of this.listeners.splice(0)) l();
  }
}

/** An engine that answers each request when the test says, and records cancels as the worker would. */
class FakeEngine {
  readonly requests: { prefix: string; cancelled: boolean; answer(text: string): void; fail(e: Error): void }[] = [];
  request = (prefix: string, signal: CancelSignal): Promise<string> =>
    new Promise((resolve, reject) => {
      const entry = { prefix, cancelled: false, answer: resolve, fail: reject };
      this.requests.push(entry);
      // The client rejects at once on cancel and tells the worker (engineClient.ts).
      signal.onCancellationRequested(() => {
        entry.cancelled = true;
        reject(Object.assign(new Error('Cancelled.'), { code: 'cancelled' }));
      });
    });
}

function setup(delay = 500) {
  const clock = new FakeClock();
  const engine = new FakeEngine();
  const errors: unknown[] = [];
  const suggester = new InlineSuggester({
    timers: clock,
    delayMs: () => delay,
    request: engine.request,
    onError: (e) => errors.push(e),
  });
  return { clock, engine, suggester, errors };
}

test('nothing is asked of the engine until the writer pauses for the delay', async () => {
  const { clock, engine, suggester } = setup(500);
  const t = new TokenSource();
  const shown = suggester.suggest('The dog ran', t.token);
  await clock.advance(499);
  assert.equal(engine.requests.length, 0, 'still typing: no request');
  await clock.advance(1);
  assert.equal(engine.requests.length, 1);
  assert.equal(engine.requests[0].prefix, 'The dog ran');
  engine.requests[0].answer(' to the park.');
  assert.equal(await shown, ' to the park.');
});

test('each keystroke during the pause restarts it; only the last text is asked about', async () => {
  const { clock, engine, suggester } = setup(500);
  const typed = ['The d', 'The do', 'The dog'];
  const results: Promise<string>[] = [];
  let previous: TokenSource | undefined;
  for (const text of typed) {
    previous?.cancel(); // VS Code cancels the previous provider call when the document changes
    previous = new TokenSource();
    results.push(suggester.suggest(text, previous.token));
    await clock.advance(200);
  }
  assert.equal(engine.requests.length, 0);
  await clock.advance(300);
  assert.deepEqual(
    engine.requests.map((r) => r.prefix),
    ['The dog'],
  );
  engine.requests[0].answer(' barked.');
  assert.deepEqual(await Promise.all(results), ['', '', ' barked.']);
  assert.equal(suggester.stats.debounced, 2);
  assert.equal(clock.pending, 0, 'no timer left behind');
});

test('typing while the engine writes cancels that request at once, and its late answer is never shown', async () => {
  const { clock, engine, suggester } = setup(100);
  const first = new TokenSource();
  const a = suggester.suggest('Once upon a', first.token);
  await clock.advance(100);
  assert.equal(engine.requests.length, 1);
  first.cancel();
  assert.equal(engine.requests[0].cancelled, true, 'the engine was told');
  assert.equal(await a, '', 'no stale suggestion');
  engine.requests[0].answer(' time there was a fox.'); // too late: ignored
  const second = new TokenSource();
  const b = suggester.suggest('Once upon a time', second.token);
  await clock.advance(100);
  engine.requests[1].answer(' there was a fox.');
  assert.equal(await b, ' there was a fox.');
  assert.equal(suggester.stats.cancelled, 1);
});

test('a newer request cancels the one in flight even if the editor did not', async () => {
  const { clock, engine, suggester } = setup(50);
  const a = suggester.suggest('A', new TokenSource().token);
  await clock.advance(50);
  const b = suggester.suggest('A b', new TokenSource().token);
  assert.equal(engine.requests[0].cancelled, true);
  await clock.advance(50);
  engine.requests[1].answer(' c.');
  assert.deepEqual([await a, await b], ['', ' c.']);
});

test('the same text again is answered from the cache, at once and the same', async () => {
  const { clock, engine, suggester } = setup(500);
  const p = suggester.suggest('The cat sat', new TokenSource().token);
  await clock.advance(500);
  engine.requests[0].answer(' on the mat.');
  assert.equal(await p, ' on the mat.');
  assert.equal(await suggester.suggest('The cat sat', new TokenSource().token), ' on the mat.');
  assert.equal(engine.requests.length, 1);
  assert.equal(suggester.stats.cached, 1);
});

test('an engine failure shows no suggestion and is reported once', async () => {
  const { clock, engine, suggester, errors } = setup(10);
  const p = suggester.suggest('Text', new TokenSource().token);
  await clock.advance(10);
  engine.requests[0].fail(new Error('model folder missing'));
  assert.equal(await p, '');
  assert.equal(errors.length, 1);
});

test('a token already cancelled sends nothing', async () => {
  const { clock, engine, suggester } = setup(10);
  const t = new TokenSource();
  t.cancel();
  assert.equal(await suggester.suggest('Text', t.token), '');
  await clock.advance(100);
  assert.equal(engine.requests.length, 0);
});

test('suggestions belong after text, with nothing selected, and never inside a word', () => {
  assert.equal(suggestionBelongs('The dog ', '', true), true);
  assert.equal(suggestionBelongs('The dog', '\n', true), true);
  assert.equal(suggestionBelongs('The d', 'og', true), false, 'inside a word');
  assert.equal(suggestionBelongs('The dog', '', false), false, 'a selection');
  assert.equal(suggestionBelongs('   \n', '', true), false, 'nothing written yet');
  assert.equal(suggestionBelongs('Some prose.\n\n```ts\nconst dog = ', '', true), false, 'inside a fenced code block');
  assert.equal(
    suggestionBelongs('Some prose.\n\n```ts\nconst dog = 1;\n```\n\nThe dog', '', true),
    true,
    'after the code block',
  );
  assert.equal(suggestionBelongs('~~~~\ncode\n~~~\nstill code', '', true), false, 'a shorter fence does not close it');
});

test("prose languages by default, the user's additions too, code never unless added", () => {
  assert.deepEqual(languagesOf([]), ['markdown', 'plaintext']);
  assert.deepEqual(languagesOf(['latex', ' markdown ']), ['markdown', 'plaintext', 'latex']);
  assert.ok(!languagesOf([]).includes('typescript'));
});

test('a long document sends its end, starting at a word', () => {
  const long = 'word '.repeat(2000) + 'The end';
  const p = promptBefore(long);
  assert.ok(p.length <= MAX_PREFIX_CHARS && p.endsWith('The end') && p.startsWith('word'));
  assert.equal(promptBefore('short'), 'short');
});
