// Spelling for technical prose (engine/checks/spelling.ts with Code Spell Checker's dictionaries):
// technical words, British spellings under British, codes, flags, identifiers and handles are not
// misspellings; learners' misspellings still are; an unknown name is never "fixed" into two words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CspellSpeller } from '../../extension/engine/checks/cspellSpeller';
import { SpellChecker } from '../../extension/engine/checks/spelling';

const american = new SpellChecker(new CspellSpeller('American'));
const flagged = (checker: SpellChecker, text: string) => checker.check(text).map((f) => f.word);

test('the words of technical docs are known: tokenization, whitespace, bugfix, GitHub, npm', () => {
  const text =
    'The tokenization step strips whitespace; this bugfix release is on GitHub and npm, with TypeScript typings and a README.';
  assert.deepEqual(flagged(american, text), []);
});

test('learners’ misspellings are still caught, with the word meant first', () => {
  const found = american.check('I recieve teh letter becouse my freind wrote it.');
  assert.deepEqual(
    found.map((f) => f.word),
    ['recieve', 'teh', 'becouse', 'freind'],
  );
  assert.equal(found[0].suggestions[0], 'receive');
  assert.equal(found[3].suggestions[0], 'friend');
});

test('language and country codes, et al., e.g. and units are not misspellings', () => {
  const text = 'Models for ja, de, zh and kk (see Popel et al. 2018), e.g. in 10 ms or 4 GiB, run at 30 fps.';
  assert.deepEqual(flagged(american, text), []);
});

test('flags, handles, identifiers, dotted names, paths and versions are code, never misspellings', () => {
  const text =
    'Pass --nocolor or -xvf, thank @martinpopel, set SACREBLEU_DIR and max_lenght, call tokenizrFast or np.asarrey, open src/tokenizr and v2.1.0rc1.';
  assert.deepEqual(flagged(american, text), []);
});

test('a name in mixed case (MPNet, OLMo) is a name, like a capitalised word inside a sentence', () => {
  assert.deepEqual(flagged(american, 'MPNet and OLMo models ship with Sacrebleu scores.'), []);
});

test('an unknown word is never offered as two words alone: "mecab" is not "me cab"', () => {
  const [f] = american.check('We segment with mecab first.');
  assert.equal(f?.word, 'mecab');
  assert.ok(!f.suggestions.includes('me cab'));
  assert.ok(f.suggestions.length === 0 || f.suggestions.some((s) => !s.includes(' ')));
});

test('the dialect decides: colour is right in British and flagged in American, color the other way round', () => {
  const british = new SpellChecker(new CspellSpeller('British'));
  assert.deepEqual(flagged(american, 'The colour of the behaviour.'), ['colour', 'behaviour']);
  assert.deepEqual(flagged(british, 'The colour of the behaviour.'), []);
  assert.deepEqual(flagged(british, 'The color of the behavior.'), ['color', 'behavior']);
  for (const d of ['Canadian', 'Australian'] as const)
    assert.deepEqual(flagged(new SpellChecker(new CspellSpeller(d)), 'The colour of the neighbour.'), []);
});

test('a company name is known only as written: Chinese, not chinese', () => {
  assert.deepEqual(flagged(american, 'He speaks chinese at home.'), ['chinese']);
});

test('an abbreviation without a vowel (cwd, fd, js) is no misspelling; a vowel-less slip inside a word still is', () => {
  const words = (text: string) => american.check(text).map((f) => f.word);
  assert.deepEqual(words('Pass the cwd and an fd to the js helper, rtl or not.'), []);
  assert.deepEqual(words('The functon returns.'), ['functon']);
});
