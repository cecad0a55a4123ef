// Limits: a summary or essay cut off at the generation-length limit says so, in the result
// (hitMaxLength), and on the CLI's stderr naming --max-tokens; one the model ended says nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { lengthLimit, maxLengthNote } from '../../extension/engine/systems/lengthLimit';
import { endAtLastSentence } from '../../extension/engine/systems/decodingGuards';
import { sentenceSpans } from '../../extension/engine/text/reader';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const ARTICLE =
  'The city council of Riverton voted on Tuesday to build a new bridge over the Alder River. ' +
  'Mayor Ellen Park said the project would cost about 40 million dollars and take two years to build.';

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the limit is what was asked, unless the model writes less: then the model is named as the limit', () => {
  assert.deepEqual(lengthLimit(80, 255), { maxLength: 80, limitedBy: 'request' });
  assert.deepEqual(lengthLimit(255, 255), { maxLength: 255, limitedBy: 'request' });
  assert.deepEqual(lengthLimit(500, 255), { maxLength: 255, limitedBy: 'model' });
});

test('the note names the setting to raise, or says that raising it does not help', () => {
  const asked = maxLengthNote('summary', { maxLength: 80, limitedBy: 'request' }, 'draftsmith.summarize.maxLength');
  assert.equal(
    asked,
    'the summary reached the length limit of 80 tokens before the model ended it, so it may stop mid-sentence. ' +
      'Raise draftsmith.summarize.maxLength for a longer summary.',
  );
  const model = maxLengthNote('essay', { maxLength: 255, limitedBy: 'model' }, '--max-tokens');
  assert.match(
    model,
    /^the essay reached the length limit of 255 tokens .* That is the longest the model writes; a larger --max-tokens does not lengthen it\.$/,
  );
});

test('the CLI notes on stderr that a summary stopped at --max-tokens, and keeps stdout for the summary alone', () => {
  const dir = tempDir('limit');
  const file = path.join(dir, 'article.txt');
  writeFileSync(file, ARTICLE);
  // Below the model's minimum summary length, so the end token cannot come first.
  // The abstractive mode: the extractive one (the default) writes no tokens and has no length limit.
  const cut = cli(['summarize', file, '--mode', 'abstractive', '--beam', '1', '--max-tokens', '4']);
  assert.equal(cut.code, 0, cut.stderr);
  assert.match(
    cut.stderr,
    /^note: the summary reached the length limit of 4 tokens before the model ended it.* Raise --max-tokens/m,
  );
  assert.doesNotMatch(cut.stdout, /note:|length limit/);
  const json = cli(['summarize', file, '--mode', 'abstractive', '--beam', '1', '--max-tokens', '4', '--json']);
  assert.deepEqual(JSON.parse(json.stdout).hitMaxLength, { maxLength: 4, limitedBy: 'request' });
});

test('the CLI notes on stderr that an essay stopped at --max-tokens', () => {
  const r = cli(['essay', 'bee, frog, flower', '--beam', '1', '--max-tokens', '8']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /^note: the essay reached the length limit of 8 tokens .* Raise --max-tokens for a longer essay\.$/m,
  );
});

test('a summary that stops mid-sentence ends at its last whole sentence; a finished one or a single fragment stays', () => {
  assert.equal(endAtLastSentence('The council voted. Mayor Park says the bridge will'), 'The council voted.');
  assert.equal(endAtLastSentence('He said "yes." Then the mayor of the'), 'He said "yes."');
  assert.equal(endAtLastSentence('The council voted. The mayor agreed.'), 'The council voted. The mayor agreed.');
  assert.equal(endAtLastSentence('The council voted. "We will build it."'), 'The council voted. "We will build it."');
  assert.equal(
    endAtLastSentence('fast command-line tool for'),
    'fast command-line tool for',
    'a synopsis with no sentence end is all there is',
  );
  assert.equal(
    endAtLastSentence('The U.S. Coast Guard says the'),
    'The U.S. Coast Guard says the',
    'an abbreviation is not a sentence end',
  );
});

test('with the guards on, a summary cut at --max-tokens ends at a sentence end', () => {
  const dir = tempDir('limit');
  const file = path.join(dir, 'article.txt');
  writeFileSync(file, `${ARTICLE} ${ARTICLE.replace('Riverton', 'Lakeside').replace('Alder', 'Birch')}`);
  let ended = 0;
  for (const n of [16, 20, 24, 28, 32]) {
    const r = cli(['summarize', file, '--mode', 'abstractive', '--max-tokens', String(n), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { summary, hitMaxLength } = JSON.parse(r.stdout) as { summary: string; hitMaxLength: unknown };
    if (!hitMaxLength) continue;
    const finished = /[.!?]["')\]]*$/.test(summary);
    // Unfinished only when the cut fell inside the first sentence: there is no whole sentence to end at.
    assert.ok(finished || sentenceSpans(summary).length === 1, `--max-tokens ${n}: ends mid-sentence: ${summary}`);
    if (finished) ended++;
  }
  assert.ok(ended > 0, 'no cut summary ended at a sentence end: the test needs other lengths');
});
