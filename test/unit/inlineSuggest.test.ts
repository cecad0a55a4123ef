// Inline suggestions from the story model: what a writer sees as ghost text after a pause
// is the rest of the sentence (or the next one), the same for the same text, never glued to the word
// at the cursor, never repeating the word before it, and it stops at a sentence end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { StorySystem } from '../../extension/engine/systems/story';
import {
  seedFromText,
  sentenceEnds,
  splitAtSentence,
  suggestionEndsBefore,
  suggestionText,
} from '../../extension/engine/systems/inlineText';
import { StoryRequest, StoryResult } from '../../extension/protocol';
import { modelsDir } from './helpers';

const quiet = { device: 'cpu' as const, threads: 1, log: () => {} };
const noop = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };
let system: Promise<StorySystem> | undefined;
const load = () => (system ??= StorySystem.load(path.join(modelsDir, 'story'), quiet));
const SENTENCE = { sentences: 1, maxWords: 30 };
const suggest = async (prompt: string, inline = SENTENCE, extra: Partial<StoryRequest> = {}) =>
  (await load()).run(StoryRequest.parse({ op: 'story', prompt, inline, ...extra }), noop);

test('the current sentence is what follows the last sentence end', () => {
  assert.deepEqual(splitAtSentence('Tom had a dog. The dog ran to'), {
    context: 'Tom had a dog. ',
    partial: 'The dog ran to',
  });
  assert.deepEqual(splitAtSentence('"Run!" she said. '), { context: '"Run!" she said. ', partial: '' });
  assert.deepEqual(splitAtSentence('It was late.'), { context: 'It was late.', partial: '' });
  assert.deepEqual(splitAtSentence('no end yet'), { context: '', partial: 'no end yet' });
});

test('a suggestion ends after its sentence end, keeping a closing quote, or at its length in words', () => {
  const one = { sentences: 1, maxWords: 30 };
  assert.equal(suggestionEndsBefore('home.', 'home. Then', one), true);
  assert.equal(suggestionEndsBefore('home.', 'home."', one), false, 'the closing quote belongs to the sentence');
  assert.equal(suggestionEndsBefore('home', 'home.', one), false);
  assert.equal(
    suggestionEndsBefore('home.', 'home. Then', { sentences: 2, maxWords: 30 }),
    false,
    'two sentences asked',
  );
  assert.equal(suggestionEndsBefore('a b c', 'a b c d', { sentences: 1, maxWords: 3 }), true);
  assert.equal(sentenceEnds('One. Two! Three?'), 3);
});

test('the text at the cursor gets one space after a word and none after whitespace', () => {
  assert.equal(suggestionText('The dog', 'ran home.', true), ' ran home.');
  assert.equal(suggestionText('The dog ', 'ran home.', true), 'ran home.');
  assert.equal(suggestionText('', 'ran home.', true), 'ran home.');
  assert.equal(suggestionText('The dog', '  ', true), '');
});

test('the same text gives the same seed, another text another', () => {
  assert.equal(seedFromText('The dog ran'), seedFromText('The dog ran'));
  assert.notEqual(seedFromText('The dog ran'), seedFromText('The dog ran '));
});

test('after a pause mid-sentence the story model suggests the rest of that sentence, and the same text the same suggestion', async () => {
  const prompt = 'Tom had a little dog named Max. One day Tom and Max went to the';
  const r = await suggest(prompt);
  assert.ok(StoryResult.safeParse(r).success, 'the result matches the protocol');
  const s = r.suggestion ?? '';
  assert.ok(s.startsWith(' ') && /^ [\p{L}\p{N}"']/u.test(s), `a new word after a space: ${JSON.stringify(s)}`);
  assert.ok(sentenceEnds(s) <= 1, `at most one sentence end: ${JSON.stringify(s)}`);
  if (sentenceEnds(s) === 1) assert.match(s, /[.!?…]["'”’)\]]*$/u, 'it stops at the sentence end');
  assert.notEqual(s.trim().split(/\s+/)[0]?.toLowerCase(), 'the', 'never the word just before it again');
  assert.equal((await suggest(prompt)).suggestion, s, 'the same text, the same suggestion');
  // Gates for the insights panel, one per token.
  assert.equal(r.tokens.length, r.stats.outputTokens);
  assert.ok(r.tokens.every((t) => t.gate !== null));
});

test('after a sentence end the suggestion is the next sentence, without a second space', async () => {
  const r = await suggest('Anna found a shell on the beach. ');
  const s = r.suggestion ?? '';
  assert.ok(s.length > 0 && !s.startsWith(' '), JSON.stringify(s));
  assert.ok(/^[\p{Lu}"']/u.test(s), `a sentence starts with a capital: ${JSON.stringify(s)}`);
  const glued = await suggest('Anna found a shell on the beach.');
  assert.ok((glued.suggestion ?? '').startsWith(' '), 'a space after the full stop');
});

test('a short length gives a few words; two sentences may go on past the first', async () => {
  const prompt = 'The cat sat by the window and';
  const short = await suggest(prompt, { sentences: 1, maxWords: 3 });
  assert.ok(short.wordCount <= 3 && short.wordCount >= 1, JSON.stringify(short.suggestion));
  const two = await suggest('Ben was very hungry. ', { sentences: 2, maxWords: 60 });
  assert.ok(sentenceEnds(two.suggestion ?? '') <= 2, JSON.stringify(two.suggestion));
});

test('no suggestion in the middle of an unfinished word, or for text the model cannot read', async () => {
  assert.equal((await suggest('One day Tom and Max went to the parkxq')).suggestion, '');
  assert.equal((await suggest('   ')).suggestion, '');
  assert.equal((await suggest('灯塔看守人在一个瓶子里发现了一封信')).suggestion, '');
});

test('typing on in the same sentence gives the suggestion that text gives from scratch (the reused encoder state is the same)', async () => {
  const s = await load();
  await suggest('Lily had a red kite. She ran up the hill');
  const grown = await suggest('Lily had a red kite. She ran up the hill with');
  // A fresh system has no cache: its answer is the reference.
  const fresh = await StorySystem.load(path.join(modelsDir, 'story'), quiet);
  try {
    const ref = await fresh.run(
      StoryRequest.parse({ op: 'story', prompt: 'Lily had a red kite. She ran up the hill with', inline: SENTENCE }),
      noop,
    );
    assert.equal(grown.suggestion, ref.suggestion);
  } finally {
    await fresh.dispose();
  }
  void s;
});

test('a cancel stops a suggestion between tokens', async () => {
  let steps = 0;
  await assert.rejects(
    (await load()).run(
      StoryRequest.parse({ op: 'story', prompt: 'The boy opened the old box and', inline: SENTENCE }),
      {
        ...noop,
        checkCancelled: () => {
          if (++steps > 3) throw Object.assign(new Error('Cancelled.'), { code: 'cancelled' });
        },
      },
    ),
    /Cancelled/,
  );
});

test('a Hub story model (draftsmith.story.model) suggests too: deterministic, a new word after the cursor, at most one sentence', async (t) => {
  const { startLoopbackHub, STORY_LM } = await import('./loopbackHub');
  const { Engine } = await import('../../extension/engine/engine');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const os = await import('node:os');
  const hub = await startLoopbackHub();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-inline-hub-'));
  t.after(async () => {
    await hub.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const engine = new Engine(
    {
      modelsDir,
      device: 'cpu',
      threads: 1,
      hub: { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 },
    },
    () => {},
  );
  const ask = (prompt: string) =>
    engine.run(
      StoryRequest.parse({ op: 'story', prompt, inline: SENTENCE, model: { kind: 'hub', id: STORY_LM } }),
    ) as Promise<StoryResult>;
  const prompt = 'Once upon a time, a little girl named Lily found a red';
  const a = await ask(prompt);
  const s = a.suggestion ?? '';
  assert.equal(a.external?.id, STORY_LM);
  assert.equal((await ask(prompt)).suggestion, s, 'the same text, the same suggestion');
  assert.match(
    s,
    /^(\s\S|[,.;:!?])/u,
    `a new word (or punctuation) after the word at the cursor: ${JSON.stringify(s)}`,
  );
  assert.ok(sentenceEnds(s) <= 1, JSON.stringify(s));
  const after = await ask('Lily found a red ball. ');
  assert.ok(!(after.suggestion ?? '').startsWith(' '), `no second space: ${JSON.stringify(after.suggestion)}`);
});
