// The CLI's progress for long work on standard error (extension/cli/progressBar.ts's workProgress):
// nothing for a quick run, then on a terminal one line redrawn with the share done and the time
// left, and in a log a line per tenth of the work or new stage, never a line per section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROGRESS_DELAY_MS, workProgress } from '../../extension/cli/progressBar';

function fakeStderr(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (t: string) => writes.push(t) };
}

/** 830 sections done one by one, `msPerSection` apart. */
function run(isTTY: boolean, msPerSection: number) {
  const stream = fakeStderr(isTTY);
  let clock = 0;
  const work = workProgress('summarize', stream, () => clock);
  work.progress('Reading the document…', 0);
  for (let k = 1; k <= 830; k++) {
    clock += msPerSection;
    work.progress(`Sections done: ${k} / 830`, (k / 830) * 0.95);
  }
  work.progress("Sections done: 830 / 830; summarizing the 8 nearest the document's topics together…", 0.96);
  work.done();
  return stream.writes;
}

test('a run shorter than a couple of seconds prints no progress at all', () => {
  // 830 sections 2 ms apart: 1.7 s, under the delay.
  assert.ok(830 * 2 < PROGRESS_DELAY_MS);
  assert.deepEqual(run(true, 2), []);
  assert.deepEqual(run(false, 2), []);
});

test('in a log, a long run prints a line per tenth of the work with sections done of all, not one per section', () => {
  const lines = run(false, 150);
  assert.ok(lines.length >= 8 && lines.length <= 12, `${lines.length} lines`);
  for (const l of lines) assert.match(l, /^summarize: Sections done: \d+ \/ 830.* \(\d+ %.*\)\n$/);
  assert.match(lines[1], /about \d+ (s|min) left/);
});

test('on a terminal, one line is redrawn in place and ended with a line break', () => {
  const writes = run(true, 150);
  assert.ok(writes.length > 10);
  for (const w of writes.slice(0, -1)) {
    assert.match(w, /^\rsummarize: Sections done: \d+ \/ 830/);
    assert.ok(w.endsWith('\u001b[K'), 'clears the rest of the line');
  }
  assert.equal(writes[writes.length - 1], '\n');
  assert.ok(writes.some((w) => /\(50 %, about \d+ s left\)/.test(w)));
});
