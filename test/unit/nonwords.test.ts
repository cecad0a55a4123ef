// The non-word rate: alphabetic tokens the hunspell en_US dictionary rejects,
// names left out, exactly as the model cards' fluency tooling (models/train/draftsmith_train/fluency.py)
// counts them; in Score Draft, Score Drafts in Folder and `draftsmith score --nonwords`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { folderTotals } from '../../extension/engine/eval/folderScores';
import { scoreCorpus, scoreDraft } from '../../extension/engine/eval/scoreDraft';
import {
  isNonword,
  judgedTokens,
  nonwordRate,
  sentenceCase,
  splitSentences,
} from '../../extension/engine/metrics/nonwords';
import { repoRoot, tempDir } from './helpers';

test('a misspelling counts as a non-word; a name inside a sentence is not judged at all', () => {
  const r = nonwordRate(['Yesterday I recieved a letter from Marguerite Okonkwo.']);
  // (A capital inside a sentence is a name to fluency.py, the pronoun "I" too: it is left out.)
  assert.deepEqual(judgedTokens('Yesterday I recieved a letter from Marguerite Okonkwo.'), [
    'Yesterday',
    'recieved',
    'a',
    'letter',
    'from',
  ]);
  assert.equal(r.nonwords, 1);
  assert.equal(r.tokens, 5);
  assert.equal(r.rate, 1 / 5);
  assert.deepEqual(r.examples, ['recieved']);
  // The same misspelling opening a sentence is judged (capitalised, it is no name).
  assert.equal(nonwordRate(['Teh cat sat.']).nonwords, 1);
});

test('a lower-case name or "i\'m" is wrong case, not a non-word; words with digits, URLs and e-mail addresses are left out', () => {
  assert.equal(isNonword('paris'), false);
  assert.equal(isNonword("i'm"), false);
  assert.equal(isNonword('recieve'), true);
  assert.deepEqual(nonwordRate(['i went to paris, it was gr8: see www.example.com or mail me@example.org']), {
    rate: 0,
    nonwords: 0,
    tokens: 9,
    examples: [],
  });
  assert.equal(nonwordRate(['']).rate, null, 'no token: no rate');
});

// fluency.py's own output for these texts (split_sentences, sentence_case, spell_tokens and
// hunspell_rejects with Debian's hunspell-en-us 2020.12.07), run on 2026-11-24.
const FLUENCY_PY = [
  {
    text: 'Mr. Smith went to Washington. He recieved a letter from Dr. Jones! Then he left.',
    sentences: ['Mr. Smith went to Washington.', 'He recieved a letter from Dr. Jones!', 'Then he left.'],
    tokens: ['Mr', 'went', 'to', 'He', 'recieved', 'a', 'letter', 'from', 'Then', 'he', 'left'],
    nonwords: ['recieved'],
  },
  {
    text: "i'm going to paris tomorrow. it's gr8, see www.example.com or mail me@x.org",
    sentences: ["I'm going to paris tomorrow.", "It's gr8, see www.example.com or mail me@x.org"],
    tokens: ["I'm", 'going', 'to', 'paris', 'tomorrow', 'It', 'see', 'or', 'mail'],
    nonwords: [],
  },
  {
    text: "The well-known author's books sold 3,000 copies in 2019 (U.S. only).",
    sentences: ["The well-known author's books sold 3,000 copies in 2019 (U.S. only)."],
    tokens: ['The', 'well', 'known', 'author', 'books', 'sold', 'copies', 'in', 'only'],
    nonwords: [],
  },
  {
    text: '“Teh end,” she said. Nobody’s fault. J. R. R. Tolkien wrote it.',
    sentences: ['“Teh end,” she said.', 'Nobody’s fault.', 'J. R. R. Tolkien wrote it.'],
    tokens: ['Teh', 'end', 'she', 'said', 'Nobody', 'fault', 'J', 'wrote', 'it'],
    nonwords: ['Teh'],
  },
  {
    text: "A self-driving car-park was built by Google's team.",
    sentences: ["A self-driving car-park was built by Google's team."],
    tokens: ['A', 'self', 'driving', 'car', 'park', 'was', 'built', 'by', 'team'],
    nonwords: [],
  },
  {
    text: 'Wow!!! What a day... And then: nothing?',
    sentences: ['Wow!!!', 'What a day...', 'And then: nothing?'],
    tokens: ['Wow', 'What', 'a', 'day', 'And', 'then', 'nothing'],
    nonwords: [],
  },
];

test("sentences, judged tokens and non-words are those of the model cards' fluency.py", () => {
  for (const c of FLUENCY_PY) {
    assert.deepEqual(splitSentences(sentenceCase(c.text)), c.sentences, c.text);
    assert.deepEqual(judgedTokens(c.text), c.tokens, c.text);
    assert.deepEqual(
      judgedTokens(c.text).filter((w) => isNonword(w)),
      c.nonwords,
      c.text,
    );
  }
});

test("Score Draft carries the rate when asked; a folder's corpus row pools the drafts' tokens", () => {
  const ask = { op: 'score' as const, hypothesis: 'The dog chased teh ball.', reference: 'The dog chased the ball.' };
  assert.equal(scoreDraft(ask).scores.nonwords, undefined, 'not asked: absent');
  assert.equal(scoreDraft({ ...ask, options: { nonwords: true } }).scores.nonwords?.rate, 1 / 5);
  const pairs = [
    { hypothesis: 'The dog chased teh ball.', reference: 'The dog chased the ball.' },
    { hypothesis: 'A bird sang in the garden all morning long.', reference: 'A bird sang.' },
  ];
  const rows = pairs.map((p) => scoreCorpus([p], { nonwords: true }));
  const totals = folderTotals(
    pairs.map((p, i) => ({ name: String(i), ...p })),
    rows,
    { nonwords: true },
  );
  assert.deepEqual(totals.nonwords, { rate: 1 / 14, nonwords: 1, tokens: 14, examples: ['teh'] });
  assert.deepEqual(
    totals.nonwords,
    scoreCorpus(pairs, { nonwords: true }).nonwords,
    'the same as draftsmith score over all the pairs',
  );
});

test("draftsmith score --nonwords: a row in the full table, a column in a folder's", () => {
  const dir = tempDir('nonwords');
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'score', ...args, '--quiet'], {
      encoding: 'utf8',
    });
  const hyp = path.join(dir, 'hyp.txt');
  const ref = path.join(dir, 'ref.txt');
  writeFileSync(hyp, 'The dog chased teh ball.\n');
  writeFileSync(ref, 'The dog chased the ball.\n');
  const table = cli('--hyp', hyp, '--ref', ref, '--nonwords');
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /\| Non-word rate +\| 0\.200 \|/);
  assert.doesNotMatch(cli('--hyp', hyp, '--ref', ref).stdout, /Non-word/);
  mkdirSync(path.join(dir, 'drafts'));
  mkdirSync(path.join(dir, 'refs'));
  writeFileSync(path.join(dir, 'drafts', 'a.txt'), 'The dog chased teh ball.');
  writeFileSync(path.join(dir, 'refs', 'a.txt'), 'The dog chased the ball.');
  const csv = cli('--hyp', path.join(dir, 'drafts'), '--ref', path.join(dir, 'refs'), '--nonwords', '--csv');
  assert.equal(csv.status, 0, csv.stderr);
  const [header, row] = csv.stdout.trim().split('\n');
  assert.equal(header.split(',').at(-1), 'nonwords');
  assert.equal(Number(row.split(',').at(-1)), 0.2);
  // sacreBLEU's workflow has no such column: refused, not ignored.
  const sacre = cli('--hyp', hyp, '--ref', ref, '-m', 'bleu', '--nonwords');
  assert.notEqual(sacre.status, 0);
  assert.match(sacre.stderr, /--nonwords applies to the full table/);
});
