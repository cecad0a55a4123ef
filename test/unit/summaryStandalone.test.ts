/**
 * What a summary sentence must be to be shown: the title of a plain-text article is not a sentence of
 * the summary (text/title.ts), a sentence that points back comes with what it points to
 * (text/standalone.ts, systems/extractive.ts), the synopsis is never a quotation or a caption
 * (systems/synopsis.ts), and the default summary is no shorter than Lead-3 (metrics/lead.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttendedToken } from '../../extension/protocol';
import {
  antecedents,
  countWords,
  DEFAULT_EXTRACTIVE,
  extractiveSummary,
  type ExtractiveOptions,
} from '../../extension/engine/systems/extractive';
import { DENSE_FEATURES, synopsis, type SynopsisWeights } from '../../extension/engine/systems/synopsis';
import { hasVerb, isCaption, isQuotation, pointsBack } from '../../extension/engine/text/standalone';
import { titleEnd } from '../../extension/engine/text/title';
import { lead3, leadWords } from '../../extension/engine/metrics/lead';
import { sentenceSpans } from '../../extension/engine/text/reader';

/** Every word token of `text` with the weight `weight(word)` gives it, normalised (Eq. 11's α sums to one). */
function tokensOf(text: string, weight: (word: string) => number = () => 1): AttendedToken[] {
  const out: AttendedToken[] = [];
  for (const m of text.matchAll(/\S+/gu))
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length, weight: weight(m[0]) });
  const z = out.reduce((s, t) => s + t.weight, 0) || 1;
  return out.map((t) => ({ ...t, weight: t.weight / z }));
}

const sentencesOf = (text: string, chosen: readonly number[]) => {
  const spans = sentenceSpans(text);
  return chosen.map((i) => text.slice(spans[i].start, spans[i].end));
};

const article =
  'Indonesians face fuel price rise\n\n' +
  "Indonesia's government has confirmed it is considering raising fuel prices by as much as 30%. " +
  'The country spends billions of dollars a year on fuel subsidies. ' +
  'Analysts expect the rise to push inflation higher this year. ' +
  'Fuel prices were last raised in 2003.';

test('a first line without end punctuation before a blank line is the title: never in the summary, never glued', () => {
  assert.equal(titleEnd(article), 'Indonesians face fuel price rise'.length);
  // The title's words get all the attention, and still it is not chosen.
  const tokens = tokensOf(article, (w) => (/Indonesians|face|rise$/u.test(w) ? 50 : 1));
  for (const opts of [DEFAULT_EXTRACTIVE, { ...DEFAULT_EXTRACTIVE, leadSentences: 1 }]) {
    const { summary } = extractiveSummary(article, tokens, opts);
    assert.ok(!summary.includes('Indonesians face'), `the title is not in "${summary}"`);
    assert.ok(summary.startsWith("Indonesia's government"), summary);
  }
  assert.ok(!lead3(article).includes('Indonesians face'), 'Lead-3 starts after the title too');
  assert.equal(lead3(article).split('\n').length, 3);
});

test('a first line that ends like a sentence, or has nothing after it, is not a title', () => {
  assert.equal(titleEnd('The vote was close.\n\nIt passed by two votes.'), 0);
  assert.equal(titleEnd('Summary:\n\nThe vote was close.'), 0);
  assert.equal(titleEnd('Only a line\n\n'), 0);
  assert.equal(titleEnd('A line\nthat goes on. And more.'), 0, 'no blank line: a wrapped first sentence');
  assert.equal(titleEnd('# A heading\n\nText.'), 0, 'a Markdown heading is already left out as markup');
});

test('a sentence that opens by pointing back is recognised, and a sentence that does not is not', () => {
  for (const s of [
    'He said the plan would go ahead.',
    'This was the third attempt.',
    'These figures are not final.',
    'Instead, Osbon drove home.',
    'However, the court disagreed.',
    'But the vote failed.',
    'It was the largest fine yet.',
    'In addition, two schools closed.',
    '"They never called back," she said.',
  ])
    assert.ok(pointsBack(s), s);
  for (const s of [
    'Rosneft officials met on Monday.',
    'There are three candidates.',
    'Heavy rain closed the road.',
    'Thesis defences start in May.',
    'Italy won the match.',
  ])
    assert.ok(!pointsBack(s), s);
});

test('a sentence that points back is chosen with the sentence before it, or not at all', () => {
  const text =
    'The mayor opened the new bridge on Monday. Traffic on the old road fell by half. ' +
    'Instead, the council will now repair the ferry. Residents welcomed the news.';
  // The "Instead" sentence has all the attention; the one it points back to has none.
  const tokens = tokensOf(text, (w) => (/council|ferry|repair/u.test(w) ? 100 : 0.01));
  const opts: ExtractiveOptions = { ...DEFAULT_EXTRACTIVE, positionWeight: 0, centralityWeight: 0, leadSentences: 1 };
  const chosen = sentencesOf(text, extractiveSummary(text, tokens, opts).chosen);
  assert.ok(chosen.includes('Instead, the council will now repair the ferry.'), chosen.join(' | '));
  assert.ok(chosen.includes('Traffic on the old road fell by half.'), 'with what it points back to');
  // Without the rule (the ablation) it is chosen alone.
  const alone = sentencesOf(text, extractiveSummary(text, tokens, { ...opts, antecedents: false }).chosen);
  assert.deepEqual(alone, ['Instead, the council will now repair the ferry.']);
  // When the sentence before it can never be chosen (a heading), it is not chosen at all.
  const md = '# Notes\n\nThe bridge opened.\n\n## Ferry\n\nInstead, the ferry stops. Residents are glad.';
  assert.equal(
    antecedents(
      [
        { score: 0, words: 0 },
        { score: 0, words: 3 },
        { score: 0, words: 0 },
        { score: 9, words: 4, pointsBack: true },
      ],
      3,
    ),
    undefined,
  );
  const mdChosen = sentencesOf(
    md,
    extractiveSummary(
      md,
      tokensOf(md, (w) => (w === 'ferry' ? 9 : 1)),
      opts,
    ).chosen,
  );
  assert.ok(!mdChosen.includes('Instead, the ferry stops.'), mdChosen.join(' | '));
});

test("the default summary is no shorter than Lead-3, the first three sentences' words", () => {
  const text =
    'Storms hit the coast overnight and cut power to thousands of homes. Schools closed. ' +
    'Roads were flooded. The weather service expects more rain on Friday, with winds of up to 90 km/h. ' +
    'Crews worked through the night to restore power to the hospital and the station. ' +
    'Officials said repairs could take a week.';
  const lead = countWords(lead3(text));
  // Whatever the attention prefers, with or without the position prior: a long later sentence
  // chosen first must not leave the summary short.
  for (const weight of [
    () => 1,
    (w: string) => (/power|rain|repairs/u.test(w) ? 20 : 1),
    (w: string) => (/rain|winds/u.test(w) ? 99 : 1),
  ]) {
    for (const opts of [DEFAULT_EXTRACTIVE, { ...DEFAULT_EXTRACTIVE, positionWeight: 0, centralityWeight: 0 }]) {
      const ex = extractiveSummary(text, tokensOf(text, weight), opts);
      assert.equal(ex.budgetWords, lead);
      assert.ok(countWords(ex.summary) >= lead, `${countWords(ex.summary)} words against Lead-3's ${lead}`);
    }
  }
  assert.equal(leadWords(article, 5), "Indonesia's government has confirmed", 'words as countWords counts them');
  assert.equal(leadWords(article, 1000), article.slice(titleEnd(article)).trim(), 'a short text: all of its body');
});

test('between two sentences the attention weighs alike, the one about what the whole text is about is chosen', () => {
  const text =
    'The city council met on Tuesday evening. ' +
    'A reporter asked about the weather before the meeting began. ' +
    'The council voted to build a new library, and the library will open in 2027. ' +
    'The library will have a cafe, and the council will pay for the library from its budget. ' +
    'Council members said the library was long overdue.';
  const tokens = tokensOf(text);
  const opts: ExtractiveOptions = { ...DEFAULT_EXTRACTIVE, positionWeight: 0, titleWeight: 0, leadSentences: 1 };
  const central = sentencesOf(text, extractiveSummary(text, tokens, opts).chosen);
  assert.ok(!central.includes('A reporter asked about the weather before the meeting began.'), central.join(' | '));
  assert.ok(
    central.some((s) => s.includes('library')),
    'a library sentence',
  );
});

const weights = (dense: Partial<Record<(typeof DENSE_FEATURES)[number], number>>): SynopsisWeights => ({
  dense: [...DENSE_FEATURES],
  denseWeights: DENSE_FEATURES.map((f) => dense[f] ?? 0),
  vocabulary: [],
  wordWeights: [],
});

test('quotations and captions are recognised; a quoted name inside a sentence is not a quotation', () => {
  assert.ok(isQuotation('"We will not give up on the families, and we will find them," he said.'));
  assert.ok(isQuotation('“I never meant to hurt anyone,” a person using the name brit4men posted.'));
  assert.ok(!isQuotation('The film "Corn" is closed for now after the fire.'));
  assert.ok(isCaption('(Photo: Reuters)'));
  assert.ok(isCaption('Pictured: the bridge at dawn on Monday.'));
  assert.ok(isCaption('Scroll down for video. The storm hit at noon.'));
  assert.ok(!isCaption('The bridge opened at dawn on Monday.'));
  assert.ok(!hasVerb('The bridge at dawn on Monday.'));
  assert.ok(hasVerb('The bridge opened at dawn on Monday.'));
});

test('the synopsis is never a quotation alone, a caption or a sentence without a verb', () => {
  const text =
    '"We will not stop until every family has a home again, whatever it takes," the minister said. ' +
    'Pictured: the flooded high street in Carlisle. ' +
    'Rescue boats in the high street at dawn. ' +
    'The government will pay for the repair of 2,000 flooded homes.';
  // The scorer prefers early sentences: the quotation, then the caption, then the verbless line.
  const first = weights({ 'inverse position': 1 });
  assert.equal(
    synopsis(text, tokensOf(text), first).summary,
    'The government will pay for the repair of 2,000 flooded homes.',
  );
  // The title, too, is never the synopsis.
  const titled = `Flood repairs funded\n\n${text}`;
  assert.equal(
    synopsis(titled, tokensOf(titled), first).summary,
    'The government will pay for the repair of 2,000 flooded homes.',
  );
  // When nothing stands alone, the scorer's first still comes back rather than nothing.
  assert.equal(synopsis('"Never," she said.', tokensOf('"Never," she said.'), first).summary, '"Never," she said.');
});
