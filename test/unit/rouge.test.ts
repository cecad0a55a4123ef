// ROUGE against hand-derived values and against rouge-score's own published test expectations.
// Expected numbers are derived in the comments; F1 = 2PR / (P + R).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  corpusRouge,
  rougeL,
  rougeLsum,
  rougeN,
  rougeScores,
  rougeW,
  tokenize,
  type Score,
} from '../../extension/engine/metrics/rouge';
import { porterStem } from '../../extension/engine/metrics/porterStemmer';

/** Asserts P, R, F1 to 1e-4: tighter than the 0.001 agreement we promise with rouge-score. */
function near(actual: Score, precision: number, recall: number, f1: number): void {
  const ok = (a: number, e: number) => Math.abs(a - e) < 1e-4;
  assert.ok(
    ok(actual.precision, precision) && ok(actual.recall, recall) && ok(actual.f1, f1),
    `expected P=${precision} R=${recall} F=${f1}, got ${JSON.stringify(actual)}`,
  );
}

test('tokenizer lowercases and splits on every non-alphanumeric character, as rouge-score does', () => {
  // "U.S." -> u s, "3.5%" -> 3 5, "isn't" -> isn t, the em dash separates like a space.
  assert.deepEqual(tokenize("The U.S. economy's 3.5% growth\u2014isn't it?"), [
    'the',
    'u',
    's',
    'economy',
    's',
    '3',
    '5',
    'growth',
    'isn',
    't',
    'it',
  ]);
  // Accented letters are not [a-z0-9] and break words, as in rouge-score.
  assert.deepEqual(tokenize('Café'), ['caf']);
});

test('stemming maps inflections together but leaves tokens of 3 characters or fewer alone', () => {
  // NLTK stems "was" to "wa"; rouge-score only stems tokens longer than 3 characters.
  assert.equal(porterStem('was'), 'wa');
  assert.deepEqual(tokenize('Running runs ran quickly was', true), ['run', 'run', 'ran', 'quickli', 'was']);
});

test('the Porter stemmer gives NLTK PorterStemmer() outputs, including NLTK-only rules', () => {
  // Outputs of nltk.stem.porter.PorterStemmer() (NLTK_EXTENSIONS mode). The last group is where
  // Martin Porter's reference variant (npm "stemmer") differs: ties->ti, enjoy->enjoi, always->alwai.
  const expected: Record<string, string> = {
    caresses: 'caress',
    ponies: 'poni',
    relational: 'relat',
    conditional: 'condit',
    motoring: 'motor',
    hopping: 'hop',
    filing: 'file',
    failing: 'fail',
    agreed: 'agre',
    feed: 'feed',
    controll: 'control',
    generously: 'gener',
    happy: 'happi',
    ties: 'tie',
    dying: 'die',
    enjoy: 'enjoy',
    always: 'alway',
    display: 'display',
    hopefully: 'hope',
  };
  for (const [word, stem] of Object.entries(expected)) assert.equal(porterStem(word), stem, word);
});

test('ROUGE-1, -2 and -L on a short sentence pair, derived by hand', () => {
  // pred: the cat on the mat (5 tokens)   ref: the cat was on the mat (6 tokens)
  // ROUGE-1: overlap the x2, cat, on, mat = 5 -> P = 5/5, R = 5/6, F = (10/6)/(11/6) = 10/11.
  near(rougeN('the cat on the mat', 'the cat was on the mat', 1), 1, 5 / 6, 10 / 11);
  // ROUGE-2: pred bigrams {the cat, cat on, on the, the mat} (4), ref has 5; shared: the cat,
  // on the, the mat = 3 -> P = 3/4, R = 3/5, F = (18/20)/(27/20) = 2/3.
  near(rougeN('the cat on the mat', 'the cat was on the mat', 2), 3 / 4, 3 / 5, 2 / 3);
  // ROUGE-L: LCS "the cat on the mat" = 5 -> same as ROUGE-1 here.
  near(rougeL('the cat on the mat', 'the cat was on the mat'), 1, 5 / 6, 10 / 11);
  // ROUGE-L counts an in-order subsequence, not a contiguous one (rouge-score's own test):
  // LCS(testing two, testing one two) = 2 -> P = 1, R = 2/3, F = 0.8.
  near(rougeL('testing two', 'testing one two'), 1, 2 / 3, 0.8);
});

test('repeated words are credited only as often as the reference has them', () => {
  // "the" x4 against one "the": overlap min(4, 1) = 1 -> P = 1/4, R = 1/2, F = 1/3.
  near(rougeN('the the the the', 'the cat', 1), 1 / 4, 1 / 2, 1 / 3);
});

test('case and punctuation do not change the score', () => {
  near(rougeN('The CAT, sat!', 'the cat sat', 1), 1, 1, 1);
  near(rougeL('"The cat" -- sat.', 'the cat sat'), 1, 1, 1);
});

test('stemming credits "cats were running" against "cat was running"', () => {
  // Unstemmed: the, running shared of 4 each -> 0.5. Stemmed: cats->cat, running->run,
  // "were" stays "were" and "was" is too short to stem -> the, cat, run shared = 3/4.
  near(rougeN('the cats were running', 'the cat was running', 1), 0.5, 0.5, 0.5);
  near(rougeN('the cats were running', 'the cat was running', 1, { stem: true }), 0.75, 0.75, 0.75);
  near(rougeScores('the cats were running', 'the cat was running', { stem: true }).rouge1, 0.75, 0.75, 0.75);
});

test('empty or wordless predictions and references score zero, never NaN', () => {
  for (const [pred, ref] of [
    ['', 'the cat'],
    ['the cat', ''],
    ['', ''],
    ['...', 'the cat'],
    ['\n\n', 'the cat'],
  ]) {
    const s = rougeScores(pred, ref);
    for (const v of Object.values(s)) near(v, 0, 0, 0);
  }
  // A text shorter than n has no n-grams: 0, not 0/0.
  near(rougeN('the cat', 'the cat', 3), 0, 0, 0);
  assert.throws(() => rougeN('a', 'a', 0), RangeError);
});

test('an identical prediction scores 1 on every measure', () => {
  const text = 'The quick brown fox.\nIt jumps over the lazy dog.';
  const s = rougeScores(text, text, { stem: true });
  for (const v of Object.values(s)) near(v, 1, 1, 1);
});

test('ROUGE-Lsum matches sentences regardless of their order, unlike ROUGE-L', () => {
  // ROUGE-L on the joined text: LCS(w3 w4 w1 w2, w1 w2 w3 w4) = 2 -> 0.5.
  // ROUGE-Lsum: the reference sentence's LCS with "w3 w4" hits positions {2,3}, with "w1 w2"
  // hits {0,1}; the union covers all 4 tokens -> P = R = 1.
  near(rougeL('w3 w4\nw1 w2', 'w1 w2 w3 w4'), 0.5, 0.5, 0.5);
  near(rougeLsum('w3 w4\nw1 w2', 'w1 w2 w3 w4'), 1, 1, 1);
});

test('ROUGE-Lsum takes the union of LCS hits over prediction sentences (rouge-score test case)', () => {
  // ref w1 w2 w3 w4 w5; LCS with "w1 w2 w6 w7 w8" = {w1, w2}, with "w1 w3 w8 w9 w5" = {w1, w3, w5}.
  // Union {w1, w2, w3, w5} = 4 hits -> P = 4/10, R = 4/5, F = 0.64/1.2 = 8/15.
  near(rougeLsum('w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', 'w1 w2 w3 w4 w5'), 0.4, 0.8, 8 / 15);
  // Which LCS is read back matters. ref "yes yes", pred "yes" / "yes no": rouge-score's read-back
  // (on a tie, step back in the reference) matches "yes" to the 2nd reference word and "yes no"
  // to the 1st, so the union is both words: P = 2/3, R = 2/2, F = 0.8. (Stepping back in the
  // prediction instead would hit the 1st word twice: union 1, F = 0.4.)
  near(rougeLsum('yes\nyes no', 'yes yes'), 2 / 3, 1, 0.8);
});

test('ROUGE-Lsum does not credit one prediction word to two reference sentences', () => {
  // Both reference sentences "a b" find the LCS "a b" in the prediction, but the prediction
  // has one "a" and one "b": the second sentence gets nothing. P = 2/2, R = 2/4, F = 2/3.
  near(rougeLsum('a b', 'a b\na b'), 1, 0.5, 2 / 3);
});

test("agrees with ROUGE-1.5.5 on rouge-score's test data (its rouge_scorer_test.py values)", () => {
  // Line 2 of rouge/testdata/target.txt and prediction.txt; expected R, P, F from
  // testRouge1AgainstRouge155WithStemming and testRouge2AgainstRouge155WithStemming.
  const target =
    "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao Q m qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN";
  const prediction =
    "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD";
  near(rougeN(prediction, target, 1, { stem: true }), 0.69231, 0.42857, 0.52941);
  near(rougeN(prediction, target, 1), 0.65385, 0.40476, 0.5);
  near(rougeN(prediction, target, 2, { stem: true }), 0.48, 0.29268, 0.36364);
});

test('ROUGE-W prefers consecutive matches where ROUGE-L cannot tell (Lin 2004, section 3.3)', () => {
  // X = A B C D E F G; Y1 = A B C D H I K; Y2 = A H B K C I D. Both have LCS 4 -> ROUGE-L 4/7.
  // Y1's four matches are one run: WLCS = f(4) = 4^1.2, so P = R = (4^1.2 / 7^1.2)^(1/1.2) = 4/7.
  // Y2's are four runs of one: WLCS = 4, so P = R = (4 / 7^1.2)^(1/1.2) = 4^(1/1.2)/7 = 0.453543.
  const x = 'A B C D E F G';
  near(rougeL('A H B K C I D', x), 4 / 7, 4 / 7, 4 / 7);
  near(rougeW('A B C D H I K', x), 4 / 7, 4 / 7, 4 / 7);
  near(rougeW('A H B K C I D', x), 0.453543, 0.453543, 0.453543);
});

test('ROUGE-W variant rouge155 reproduces the Perl script, which weights reference length twice', () => {
  // ROUGE-1.5.5: R = f^-1(hit / f(f(|ref|))). Identical 5-token texts: hit = 5^1.2, so
  // R = (5^1.2 / 5^1.44)^(1/1.2) = 5^-0.2 = 0.724780 while P = 1; F = 2R/(1+R) = 0.840432.
  near(rougeW('a b c d e', 'a b c d e', { variant: 'rouge155' }), 1, 0.72478, 0.840432);
  // For Lin's Y1: P = 4/7 as above, R = 4 / 7^1.2 = 0.387206.
  near(rougeW('A B C D H I K', 'A B C D E F G', { variant: 'rouge155' }), 4 / 7, 0.387206, 0.461616);
});

test('corpus ROUGE averages per-document precision, recall and F1', () => {
  // Doc 1: P = 1, R = 1/3, F = 0.5. Doc 2 mirrors it: P = 1/3, R = 1, F = 0.5.
  // Means: P = R = 2/3 and F = 0.5 (the mean of F1s, not the 2/3 an F1 of the means would give).
  const c = corpusRouge(['testing', 'testing one two'], ['testing one two', 'testing']);
  near(c.rouge1, 2 / 3, 2 / 3, 0.5);
  // ROUGE-2: doc 1 has no bigram in the prediction (0), doc 2 has no bigram in the reference (0).
  near(c.rouge2, 0, 0, 0);
  assert.throws(() => corpusRouge(['a'], []), RangeError);
  near(corpusRouge([], []).rougeL, 0, 0, 0);
});

test('a single matching token scores 1; a single different token scores 0', () => {
  near(rougeN('storm', 'storm', 1), 1, 1, 1);
  near(rougeL('storm', 'calm'), 0, 0, 0);
  near(rougeN('storm', 'storm', 2), 0, 0, 0); // no bigrams on either side
});

test('Unicode follows rouge-score: accents split words, CJK and emoji carry no tokens', () => {
  // rouge-score replaces every character outside [a-z0-9] with a space.
  assert.deepEqual(tokenize('Café naïve'), ['caf', 'na', 've']);
  assert.deepEqual(tokenize('東京は日本の首都です 👍🏽'), []);
  near(rougeL('東京は日本', '東京は日本'), 0, 0, 0);
  near(rougeN('tokyo 東京 2024', 'tokyo 2024', 1), 1, 1, 1);
});

test('very long texts (5,000 words each) score without running out of memory', () => {
  const words = Array.from({ length: 5_000 }, (_, i) => `w${(i * 7919) % 1009}`);
  const s = rougeScores(words.join(' '), words.slice(250).join(' '));
  assert.ok(s.rougeL.recall === 1 && s.rougeL.precision > 0.94, JSON.stringify(s.rougeL));
});
