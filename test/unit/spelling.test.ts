// Spelling for technical prose (engine/checks/spelling.ts with Code Spell Checker's dictionaries):
// technical words, British spellings under British, codes, flags, identifiers and handles are not
// misspellings; learners' misspellings still are; an unknown name is never "fixed" into two words;
// another English's spelling and a word made of known parts are told apart from a typo.
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

test('a typo one edit from a dictionary word is a misspelling, a prefix or not: "untill", "recieve"', () => {
  const found = american.check('Wait untill we recieve it.');
  assert.deepEqual(
    found.map((f) => [f.word, f.kind]),
    [
      ['untill', 'misspelling'],
      ['recieve', 'misspelling'],
    ],
  );
});

test('a word made of known parts with no typo in sight is coined, not misspelled: servername, undecoded, npmignore', () => {
  const found = american.check('Set the servername, read the undecoded buffer and edit npmignore.');
  assert.deepEqual(
    found.map((f) => [f.word, f.kind]),
    [
      ['servername', 'coined'],
      ['undecoded', 'coined'],
      ['npmignore', 'coined'],
    ],
  );
  assert.deepEqual(found[0].formation, { kind: 'compound', first: 'server', second: 'name' });
  assert.deepEqual(found[1].formation, { kind: 'prefix', prefix: 'un', rest: 'decoded' });
  // Two short English words run together are a missing space, worth a warning.
  assert.deepEqual(
    american.check('See the usecases and the wrongway slashes.').map((f) => f.kind),
    ['misspelling', 'misspelling'],
  );
});

test('another English’s spelling is that dialect’s, with the chosen one as its fix; informations stays a misspelling', () => {
  const found = american.check('The behaviour is easy to customise, but informations are lost.');
  assert.deepEqual(
    found.map((f) => [f.word, f.kind, f.dialect, f.suggestions[0]]),
    [
      ['behaviour', 'dialect', 'British', 'behavior'],
      ['customise', 'dialect', 'British', 'customize'],
      ['informations', 'misspelling', undefined, 'information'],
    ],
  );
  const british = new SpellChecker(new CspellSpeller('British'));
  assert.deepEqual(flagged(british, 'The behaviour is easy to customise.'), []);
  assert.deepEqual(
    british.check('The color of the behavior.').map((f) => [f.word, f.kind, f.dialect, f.suggestions[0]]),
    [
      ['color', 'dialect', 'American', 'colour'],
      ['behavior', 'dialect', 'American', 'behaviour'],
    ],
  );
});

test('a prefix before a hyphen is half a word ("Un-escape", "non-zero"); "ie" is "i.e." without its points', () => {
  assert.deepEqual(flagged(american, 'Un-escape the string; re-run it with a non-zero code.'), []);
  const [ie] = american.check('It returns a path. Ie, a string.');
  assert.equal(ie.word, 'Ie');
  assert.deepEqual(ie.suggestions, ['I.e.']);
});
