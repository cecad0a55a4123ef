/**
 * Summarize Document, extractive mode: the source sentences that TAAS's own topic-aware attention
 * (Eq. 11, α = softmax_t(mean_k h_t·P_kᵀ)) weighs most, in document order and verbatim.
 *
 * A sentence S scores by the α of its tokens; the aggregations compared on the validation split
 * (models/summarize/MODEL_CARD.md, "Extractive mode"):
 *   sum:   Σ_{t∈S} α_t                 (favours long sentences)
 *   mean:  Σ_{t∈S} α_t / |S|           (favours short ones)
 *   sqrt:  Σ_{t∈S} α_t / √|S|          (between the two)
 *   rank:  Σ_{w∈S, content} r_w / √|S|, r_w = the share of the document's content words whose α
 *          (summed over the word's sub-word pieces) is below w's. The shipped model's α is very
 *          peaked (a handful of tokens, often "and" or a suffix piece, take most of the mass), so
 *          sums of α are decided by one token; ranks are not. Content words: not a stopword, with a
 *          letter (the filter the panel's top phrases use).
 * |S| counts words. With positionWeight λ > 0 the score becomes score / max_S' score + λ / (i + 1)
 * for the i-th sentence (from 0): news puts the essentials first, and on the validation split the
 * attention alone ranks sentences worse than their position does (see the model card). Our own
 * additions, not TAAS's: μ · centrality (addCentrality: how much of the sentence the rest of the
 * text shares) and, when the text has a title line, the share of the title's words in it.
 * By default the word budget is Lead-3's (the first three sentences' words, the title left out) and
 * sentences are taken best first until it is reached (at most `maxSentences`); otherwise a share of
 * the document's words, taken while they fit. A sentence that opens by pointing back ("He",
 * "However") is taken with the sentence before it, or not at all; a sentence that repeats one already
 * taken is skipped. The chosen sentences go back in document order. Nothing is rewritten: the
 * summary is the chosen sentences exactly as written, so every name and number in it is in the source.
 *
 * Everything here is pure (no model): the model's α comes in as token spans with weights.
 */
import type { AttendedToken } from '../../protocol';
import { looksLikeMarkup, sentenceSpans } from '../text/reader';
import { pointsBack } from '../text/standalone';
import { titleEnd } from '../text/title';
import { isStopword } from '../text/stopwords';
import { learnedScores, type ExtractiveWeights, type FeatureInput } from './extractiveFeatures';
import { wordsOf } from './topicAwareAttention';

export const AGGREGATIONS = ['sum', 'mean', 'sqrt', 'rank'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export interface ExtractiveOptions {
  aggregation: Aggregation;
  /** When set, the word budget is the length of the first this-many prose sentences (Lead-3's length
   * for 3; the title left out) instead of `ratio` of the document, and sentences are taken until it
   * is reached: the summary is never shorter than those sentences. */
  leadSentences?: number;
  /**
   * λ: weight of the position prior 1 / (i + 1) beside the attention score scaled to at most 1
   * (0: attention only).
   */
  positionWeight: number;
  /** Word budget as a share of the document's words (the chosen sentences stay within it, but
   * the best sentence is always taken). */
  ratio: number;
  /** μ: weight of the sentence's centrality (how many other sentences share its content words),
   * scaled to at most 1, beside the attention and the position prior (0 or absent: none). */
  centralityWeight?: number;
  /** Weight of the share of the title's content words in a sentence, when the text has a title. */
  titleWeight?: number;
  /** false: a sentence that points back may be chosen alone (the ablation; default: with what it points to). */
  antecedents?: boolean;
  /** Never more than this many sentences. */
  maxSentences: number;
  /** With `leadSentences`: 'at-least' (default) takes sentences until the budget is reached; 'closest'
   * takes a sentence only when it brings the length closer to the budget (the lead's length as a soft
   * target: the summary may end a little under it). */
  length?: 'at-least' | 'closest';
  /** A learned scorer (extractive.json): the sentences rank by its z = w · x instead of the hand-set
   * rank + λ / (i + 1) + μ · centrality + title share (positionWeight, centralityWeight and
   * titleWeight are then not read). */
  learned?: ExtractiveWeights;
  /** With `learned`: the hand-set score plus this weight times the learned z (an ensemble of the two)
   * instead of z alone. */
  learnedWeight?: number;
  /** Never a budget below this many words (a short document still gets a whole sentence or two). */
  minWords: number;
  /** A sentence whose content words are more than this share words of a sentence already chosen is
   * skipped (the redundancy filter; absent or ≥ 1: off). */
  redundancy?: number;
}

/**
 * Chosen on the validation splits of the three outlets (CNN, the Daily Mail and BBC News; see the model
 * card): the length of the first three sentences (the summary is never shorter than Lead-3), the
 * attention's rank, the position prior λ 4, centrality μ 1, the title's words, and a redundancy filter
 * at 0.4. `ratio` applies only when `leadSentences` is unset.
 */
export const DEFAULT_EXTRACTIVE: Readonly<ExtractiveOptions> = Object.freeze({
  aggregation: 'rank',
  positionWeight: 4,
  centralityWeight: 1,
  titleWeight: 1,
  leadSentences: 3,
  ratio: 0.2,
  maxSentences: 5,
  minWords: 0,
  redundancy: 0.4,
});

export interface ScoredSentence {
  /** text.slice(start, end): the sentence exactly as written. */
  start: number;
  end: number;
  /** Words (runs of letters, marks and digits) in the sentence. */
  words: number;
  /** Tokens of the sentence that the model read. */
  tokens: number;
  /** Σ α over those tokens. */
  alpha: number;
  /** The aggregated score that ranks the sentence. */
  score: number;
  /** False for Markdown headings, code fences, table rows and a plain-text title line: never chosen
   * while the text has prose. */
  prose: boolean;
  /** The text's title line (titleEnd): kept out of the summary, and out of the position count. */
  title: boolean;
  /** It opens with a word that points back to an earlier sentence ("He", "This", "However"). */
  pointsBack: boolean;
}

export interface ExtractiveSummary {
  /** The chosen sentences, verbatim, in document order, separated by a space. */
  summary: string;
  /** The chosen sentences (indices into `sentences`), in document order. */
  chosen: number[];
  sentences: ScoredSentence[];
  /** The word budget that was applied. */
  budgetWords: number;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function countWords(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(WORD)) n++;
  return n;
}

/** sum, mean or sqrt of `alpha` (Σ α over a sentence) over `n` words; rank passes `alpha` = Σ r_w. */
export function aggregate(alpha: number, n: number, how: Aggregation): number {
  if (n === 0) return 0;
  if (how === 'sum') return alpha;
  if (how === 'mean') return alpha / n;
  return alpha / Math.sqrt(n);
}

/**
 * The sentences of `text` (text/reader.ts, the splitter Lead-3 uses), each with the α of the
 * tokens that start inside it. Sentences past the part the model read have no tokens and score 0.
 */
export function scoreSentences(
  text: string,
  tokens: readonly AttendedToken[],
  how: Aggregation,
  positionWeight = 0,
): ScoredSentence[] {
  const spans = sentenceSpans(text);
  const title = titleEnd(text);
  const out: ScoredSentence[] = spans.map((s) => ({
    start: s.start,
    end: s.end,
    words: countWords(s.text),
    tokens: 0,
    alpha: 0,
    score: 0,
    prose: !looksLikeMarkup(s.text) && s.start >= title,
    title: s.start < title,
    pointsBack: pointsBack(s.text),
  }));
  const sorted = [...tokens].filter((t) => Number.isFinite(t.weight)).sort((a, b) => a.start - b.start);
  // The sentence each token starts in (-1: between sentences); tokens and sentences are both in text order.
  const sentenceOf = new Int32Array(sorted.length).fill(-1);
  let i = 0;
  sorted.forEach((t, k) => {
    while (i < out.length && t.start >= out[i].end) i++;
    if (i >= out.length || t.start < out[i].start) return;
    sentenceOf[k] = i;
    out[i].tokens++;
    out[i].alpha += t.weight;
  });
  if (how === 'rank') {
    const words = wordsOf(sorted).filter(
      (w) => /\p{L}/u.test(text.slice(w.start, w.end)) && !isStopword(text.slice(w.start, w.end)),
    );
    const weights = words.map((w) => w.weight).sort((a, b) => a - b);
    const below = (x: number) => {
      // how many weights are < x
      let lo = 0;
      let hi = weights.length;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (weights[m] < x) lo = m + 1;
        else hi = m;
      }
      return lo;
    };
    const ranks = new Float64Array(out.length);
    for (const w of words) {
      const s = sentenceOf[w.first];
      if (s >= 0) ranks[s] += below(w.weight) / weights.length;
    }
    out.forEach((s, k) => {
      s.score = aggregate(ranks[k], s.words, 'sqrt');
    });
  } else {
    for (const s of out) s.score = aggregate(s.alpha, s.words, how);
  }
  if (positionWeight > 0) {
    const top = out.reduce((m, s) => Math.max(m, Math.abs(s.score)), 0);
    // The position counts prose sentences: a title does not push the first paragraph back.
    let k = 0;
    for (const s of out) {
      s.score = (top > 0 ? s.score / top : 0) + (s.prose ? positionWeight / (k + 1) : 0);
      if (s.prose) k++;
    }
  }
  return out;
}

/** The word budget for a document of `docWords` words (a share of it; leadSentences: see leadBudget). */
export function wordBudget(docWords: number, opts: Pick<ExtractiveOptions, 'ratio' | 'minWords'>): number {
  return Math.max(opts.minWords, Math.round(opts.ratio * docWords));
}

/** The words of the first `n` prose sentences (the title and headings left out): Lead-n's length. */
export function leadWords(sentences: readonly Pick<ScoredSentence, 'words' | 'prose'>[], n: number): number {
  let words = 0;
  let k = 0;
  for (const s of sentences) {
    if (k >= n) break;
    if (!s.prose || s.words === 0) continue;
    words += s.words;
    k++;
  }
  return words;
}

/** The budget of a scored text under `opts`: Lead-n's length, or a share of the document. */
export function budgetOf(
  sentences: readonly Pick<ScoredSentence, 'words' | 'prose'>[],
  opts: Pick<ExtractiveOptions, 'ratio' | 'minWords' | 'leadSentences'>,
): number {
  if (opts.leadSentences !== undefined) return Math.max(opts.minWords, leadWords(sentences, opts.leadSentences));
  return wordBudget(
    sentences.reduce((n, s) => n + s.words, 0),
    opts,
  );
}

/** A sentence as the selection sees it: words 0 means never chosen. */
export type Selectable = Pick<ScoredSentence, 'score' | 'words'> & Partial<Pick<ScoredSentence, 'pointsBack'>>;

/** At most this many sentences before one are taken with it for it to make sense. */
const MAX_ANTECEDENTS = 2;

/**
 * The sentences that must come with sentence i for it to make sense: while a sentence points back,
 * the one before it (if it is a candidate). Undefined when the chain is longer than MAX_ANTECEDENTS
 * or crosses a sentence that is never chosen (a heading, the title, a code block): then i is not
 * taken at all. The first candidate sentence of a text has nothing before it to point to: alone.
 */
export function antecedents(sentences: readonly Selectable[], i: number): number[] | undefined {
  const out: number[] = [];
  let k = i;
  while (sentences[k].pointsBack) {
    const j = k - 1;
    if (j < 0) return out;
    if (sentences[j].words === 0) return sentences.slice(0, j).some((s) => s.words > 0) ? undefined : out;
    if (out.length >= MAX_ANTECEDENTS) return undefined;
    out.unshift(j);
    k = j;
  }
  return out;
}

/**
 * Best-scored sentences first, each with the sentences it points back to (antecedents), at most
 * maxSentences; returned as indices in document order. Ties go to the earlier sentence. Budget:
 * with `fill`, sentences are taken until the budget is reached (the last may pass it); without, a
 * sentence is taken only while it still fits (the best one always).
 */
export function selectSentences(
  sentences: readonly Selectable[],
  budgetWords: number,
  maxSentences: number,
  redundant: (i: number, chosen: readonly number[]) => boolean = () => false,
  fill: boolean | 'closest' = false,
): number[] {
  const order = sentences
    .map((_, i) => i)
    .filter((i) => sentences[i].words > 0)
    .sort((a, b) => sentences[b].score - sentences[a].score || a - b);
  const chosen: number[] = [];
  const taken = new Set<number>();
  let used = 0;
  for (const i of order) {
    if (fill === true && chosen.length > 0 && used >= budgetWords) break;
    if (taken.has(i)) continue;
    const before = antecedents(sentences, i);
    if (before === undefined) continue;
    const unit = [...before.filter((j) => !taken.has(j)), i];
    if (chosen.length + unit.length > maxSentences) continue;
    const w = unit.reduce((n, j) => n + sentences[j].words, 0);
    if (!fill && chosen.length > 0 && used + w > budgetWords) continue;
    // The soft target: a unit that ends farther from the budget than the summary already is, is not taken.
    if (fill === 'closest' && chosen.length > 0 && Math.abs(used + w - budgetWords) >= Math.abs(budgetWords - used))
      continue;
    if (chosen.length > 0 && redundant(i, chosen)) continue;
    for (const j of unit) {
      chosen.push(j);
      taken.add(j);
    }
    used += w;
  }
  return chosen.sort((a, b) => a - b);
}

/**
 * Adds μ · centrality and the title's weight to each prose sentence's score. Centrality of S:
 * Σ_{w ∈ S, content} ln(1 + n_w) / √|S|, n_w = how many other prose sentences have w, over the
 * text's maximum: a sentence about what the whole text is about. Title: the share of the title's
 * content words that S has.
 */
export function addCentrality(
  text: string,
  sentences: ScoredSentence[],
  centralityWeight: number,
  titleWeight: number,
): void {
  if (!(centralityWeight > 0) && !(titleWeight > 0)) return;
  const { centrality, titleShare } = centralityAndTitle(text, sentences);
  sentences.forEach((s, i) => {
    if (!s.prose) return;
    if (centralityWeight > 0) s.score += centralityWeight * centrality[i];
    if (titleWeight > 0) s.score += titleWeight * titleShare[i];
  });
}

/**
 * Each sentence's centrality over the text's maximum (addCentrality) and the share of the title's
 * content words it has (0 for a sentence that is not prose, or a text without a title).
 */
export function centralityAndTitle(
  text: string,
  sentences: readonly Pick<ScoredSentence, 'start' | 'end' | 'words' | 'prose' | 'title'>[],
): { centrality: number[]; titleShare: number[] } {
  const words = sentences.map((s) => (s.prose ? contentWords(text.slice(s.start, s.end)) : new Set<string>()));
  const df = new Map<string, number>();
  for (const w of words) for (const x of w) df.set(x, (df.get(x) ?? 0) + 1);
  const central = words.map((w, i) => {
    let c = 0;
    for (const x of w) c += Math.log1p((df.get(x) ?? 1) - 1); // ln(1 + the other sentences with x)
    return sentences[i].words > 0 ? c / Math.sqrt(sentences[i].words) : 0;
  });
  const top = central.reduce((m, c) => Math.max(m, c), 0);
  const titleWords = new Set<string>();
  for (const s of sentences) if (s.title) for (const x of contentWords(text.slice(s.start, s.end))) titleWords.add(x);
  return {
    centrality: central.map((c, i) => (sentences[i].prose && top > 0 ? c / top : 0)),
    titleShare: words.map((w) => {
      if (titleWords.size === 0) return 0;
      let shared = 0;
      for (const x of titleWords) if (w.has(x)) shared++;
      return shared / titleWords.size;
    }),
  };
}

/**
 * The learned scorer's inputs (extractiveFeatures.ts) for the text's sentences that have words and
 * are prose (all sentences with words when none is prose), with their indices into `sentences`;
 * `sentences` scored by the attention's rank alone (scoreSentences, λ 0).
 */
export function featureInputs(
  text: string,
  sentences: readonly ScoredSentence[],
): { index: number[]; inputs: FeatureInput[] } {
  const anyProse = sentences.some((s) => s.prose && s.words > 0);
  const index = sentences.map((_, i) => i).filter((i) => sentences[i].words > 0 && (sentences[i].prose || !anyProse));
  const top = index.reduce((m, i) => Math.max(m, sentences[i].score), 0);
  const { centrality, titleShare } = centralityAndTitle(text, sentences);
  const inputs = index.map((i) => ({
    text: text.slice(sentences[i].start, sentences[i].end),
    words: sentences[i].words,
    rank: top > 0 ? sentences[i].score / top : 0,
    centrality: centrality[i],
    titleShare: titleShare[i],
  }));
  return { index, inputs };
}

/** The extractive summary of `text` from the model's α over its tokens. */
export function extractiveSummary(
  text: string,
  tokens: readonly AttendedToken[],
  opts: ExtractiveOptions = DEFAULT_EXTRACTIVE,
): ExtractiveSummary {
  let sentences: ScoredSentence[];
  if (opts.learned && opts.learnedWeight !== undefined) {
    sentences = scoreSentences(text, tokens, opts.aggregation, opts.positionWeight);
    addCentrality(text, sentences, opts.centralityWeight ?? 0, opts.titleWeight ?? 0);
    const { index, inputs } = featureInputs(text, scoreSentences(text, tokens, 'rank', 0));
    const z = learnedScores(inputs, opts.learned);
    index.forEach((i, k) => (sentences[i].score += (opts.learnedWeight ?? 0) * z[k]));
  } else if (opts.learned) {
    sentences = scoreSentences(text, tokens, 'rank', 0);
    const { index, inputs } = featureInputs(text, sentences);
    const z = learnedScores(inputs, opts.learned);
    // Sentences that are not candidates rank below every candidate (they are chosen only with no prose).
    const floor = Math.min(0, ...z) - 1;
    for (const s of sentences) s.score = floor;
    index.forEach((i, k) => (sentences[i].score = z[k]));
  } else {
    sentences = scoreSentences(text, tokens, opts.aggregation, opts.positionWeight);
    addCentrality(text, sentences, opts.centralityWeight ?? 0, opts.titleWeight ?? 0);
  }
  const budgetWords = budgetOf(sentences, opts);
  // Headings, code fences, table rows and a title are candidates only when the text has nothing else.
  const anyProse = sentences.some((s) => s.prose && s.words > 0);
  const candidates = sentences.map((s) => ({
    score: s.score,
    words: anyProse && !s.prose ? 0 : s.words,
    pointsBack: opts.antecedents !== false && s.pointsBack,
  }));
  const chosen = selectSentences(
    candidates,
    budgetWords,
    opts.maxSentences,
    redundancyFilter(text, sentences, opts.redundancy ?? 1),
    opts.leadSentences === undefined ? false : opts.length === 'closest' ? 'closest' : true,
  );
  const summary = chosen.map((i) => text.slice(sentences[i].start, sentences[i].end)).join(' ');
  return { summary, chosen, sentences, budgetWords };
}

/** The content words of a text, lower-cased (not stopwords, with a letter). */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    if (/\p{L}/u.test(w) && !isStopword(w)) out.add(w);
  }
  return out;
}

/**
 * Whether sentence i repeats one already chosen: more than `threshold` of its content words are in
 * it. News pages repeat their own sentences (a Daily Mail photo caption restates the paragraph
 * above it), and a repeat spends the word budget on nothing new.
 */
export function redundancyFilter(
  text: string,
  sentences: readonly Pick<ScoredSentence, 'start' | 'end'>[],
  threshold: number,
): (i: number, chosen: readonly number[]) => boolean {
  if (!(threshold < 1)) return () => false;
  const words = new Map<number, Set<string>>();
  const of = (i: number) => {
    let w = words.get(i);
    if (!w) words.set(i, (w = contentWords(text.slice(sentences[i].start, sentences[i].end))));
    return w;
  };
  return (i, chosen) => {
    const w = of(i);
    if (w.size === 0) return false;
    return chosen.some((j) => {
      const c = of(j);
      let shared = 0;
      for (const x of w) if (c.has(x)) shared++;
      return shared / w.size > threshold;
    });
  };
}
