/**
 * Rewrite Selection's changes under the prose checks, and what a rewrite never changes. The model's
 * reply is written here (a tiny random model writes noise): offeredRewrite() is what the engine does
 * with any reply, and findingsAdded() is what the editor's review runs on each change, with the real
 * checker and its default settings.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { describeAdded, findingsAdded, type AddedFinding } from '../../extension/engine/checks/changeFindings';
import { sharedChecker } from '../../extension/engine/checks/checker';
import { describeProtected, offeredRewrite } from '../../extension/engine/systems/rewriteText';
import { protectedSpans } from '../../extension/engine/text/protectedSpans';
import { applyWordChanges, type WordChange } from '../../extension/engine/text/wordDiff';

const check = async (text: string) => (await (await sharedChecker()).check(text, 'markdown'))?.findings;

/** Each change of `source` → `reply` with the findings it adds, checked inside `document` (default: the source). */
async function review(source: string, reply: string, document = source) {
  const offered = offeredRewrite(source, reply, 'Correct the grammar.');
  const found = await findingsAdded(document, document.indexOf(source), offered.changes, check);
  assert.ok(found, 'the checks ran');
  return offered.changes.map((c, i) => ({ ...c, found: found[i] }));
}

const about = (found: readonly AddedFinding[]) => found.map((f) => `${f.family}: ${f.flagged}`);

test('a rewrite change that brings in a misspelling or a repeated word is marked with that finding', async () => {
  const source = 'The report was received on time, and the team read it closely.';
  const changes = await review(source, 'The report was recieved on time, and the the team read it carefully.');
  const misspelt = changes.find((c) => c.after.includes('recieved'));
  const repeated = changes.find((c) => c.before === '' && c.after.trim() === 'the');
  const plain = changes.find((c) => c.after === 'carefully');
  assert.ok(misspelt && repeated && plain, JSON.stringify(changes));
  assert.deepEqual(about(misspelt.found), ['spelling: recieved']);
  assert.equal(repeated.found.length, 1, JSON.stringify(repeated.found));
  assert.match(repeated.found[0].flagged, /^the\s+the$/i);
  assert.deepEqual(plain.found, [], 'a change the checks have nothing to say about is not marked');
  // What the review shows: the message with the flagged words.
  assert.match(describeAdded(misspelt.found).join(' '), /“recieved”/);
});

test('a rewrite change that fixes a finding, or keeps one that was already there, is not marked', async () => {
  const source = 'I will recieve the the letter tomorrow.';
  const before = (await check(source)) ?? [];
  assert.ok(before.length >= 2, `the text has the misspelling and the repeated word: ${JSON.stringify(before)}`);
  const fixes = await review(source, 'I will receive the letter tomorrow.');
  assert.ok(fixes.length >= 1, JSON.stringify(fixes));
  for (const c of fixes) assert.deepEqual(c.found, [], `${c.before} → ${c.after}`);
  // The misspelling stays as it was next to a change: not something the change added.
  const kept = await review('Teh committee met on Tuesday.', 'Teh committee met on Wednesday.');
  assert.equal(kept.length, 1);
  assert.deepEqual(kept[0].found, []);
});

test('a change is checked within the whole document, as the editor would check it once the change is kept', async () => {
  // A misspelling elsewhere in the document, before and after the paragraph, is the document's, not the change's.
  const document = '# Notes\n\nTeh first paragraph stays.\n\nShe read the letter twice.\n\nTeh last one too.\n';
  const changes = await review('She read the letter twice.', 'She read the the letter twice.', document);
  assert.equal(changes.length, 1);
  assert.equal(changes[0].found.length, 1, JSON.stringify(changes[0].found));
  assert.match(changes[0].found[0].flagged, /^the\s+the$/i);
  // With the checks off (a check that gives no result) nothing is marked: there is no result at all.
  assert.equal(await findingsAdded(document, 0, changes, async () => undefined), undefined);
});

test('a rewrite never changes inline code, a URL or front matter: those changes are not offered, the text stays byte for byte', () => {
  const source =
    'Run `npm test` before you push, see https://example.org/guide.html and [the notes](https://example.org/n "N"), ' +
    'or write to team@example.org.';
  const reply =
    'Run `npm run tests` before pushing; see https://example.com/guide and [the release notes](https://example.com/x), ' +
    'or email team@example.com.';
  const r = offeredRewrite(source, reply, 'Make it clearer.');
  for (const keep of [
    '`npm test`',
    'https://example.org/guide.html',
    '](https://example.org/n "N")',
    'team@example.org',
  ])
    assert.ok(r.rewrite.includes(keep), `${keep} is kept in: ${r.rewrite}`);
  // The prose around them is still offered.
  assert.ok(
    r.changes.some((c) => c.after.includes('pushing')),
    JSON.stringify(r.changes),
  );
  assert.ok(
    r.changes.some((c) => c.after.includes('release')),
    JSON.stringify(r.changes),
  );
  assert.deepEqual([...new Set(r.protectedChanges.map((c) => c.touches))].sort(), ['a URL', 'inline code']);
  // Whatever the writer keeps, the protected spans are as they were.
  for (const accepted of [r.changes.map(() => true), r.changes.map((_, i) => i % 2 === 0)]) {
    const text = applyWordChanges(source, r.changes, accepted);
    for (const s of protectedSpans(source))
      assert.ok(text.includes(source.slice(s.start, s.end)), `${source.slice(s.start, s.end)} in ${text}`);
  }
  assert.match(describeProtected(r.protectedChanges) ?? '', /not offered.*stay as written/);
});

test('front matter in the text a rewrite is given stays as written; the paragraph after it is rewritten', () => {
  const source = '---\ntitle: Release notes\ndraft: true\n---\nThe release was delayed by a week.';
  const r = offeredRewrite(
    source,
    '---\ntitle: Notes on the release\ndraft: false\n---\nThe release slipped a week.',
    'x',
  );
  assert.ok(r.rewrite.startsWith('---\ntitle: Release notes\ndraft: true\n---\n'), r.rewrite);
  assert.ok(r.rewrite.endsWith('The release slipped a week.'), r.rewrite);
  assert.ok(r.protectedChanges.every((c) => c.touches === 'front matter'));
  assert.ok(r.protectedChanges.length > 0);
});

test('text written next to a code span or a URL is offered; only changes inside them are held back', () => {
  const source = 'Use `make` here.';
  const r = offeredRewrite(source, 'Always use `make` here today.', 'x');
  assert.deepEqual(r.protectedChanges, []);
  assert.equal(r.rewrite, 'Always use `make` here today.');
  const inside: WordChange = { start: 6, end: 6, before: '', after: 'g' };
  assert.equal(offeredRewrite(source, applyWordChanges(source, [inside], [true]), 'x').changes.length, 0);
});
