/**
 * Summarize Document, synopsis mode: one sentence of the source, the one a trained scorer ranks
 * first. The scorer (models/train/draftsmith_train/synopsis.py, weights in the model folder's
 * synopsis.json) is linear over each sentence's features: the TAAS model's topic-aware attention
 * (Eq. 11's α, as the extractive mode aggregates it), its position and length, how much of it the
 * rest of the text shares, and which of a small vocabulary of words it holds. It was trained on
 * SciTLDR (abstract → one-sentence TLDR; Cachola et al. 2020) to pick the abstract's sentence
 * with the best ROUGE-1 against the TLDR (the oracle label): a softmax over a document's
 * sentences, cross-entropy with the oracle.
 *
 * Everything here is pure: the model's α comes in as token spans with weights, as in extractive.ts.
 */
import { z } from 'zod';
import type { AttendedToken } from '../../protocol';
import { EngineError } from '../errors';
import { contentWords, scoreSentences, type ScoredSentence } from './extractive';
import { wordsOf } from './topicAwareAttention';
import { standsAlone } from '../text/standalone';
import { isStopword } from '../text/stopwords';

/** The dense features of a sentence, in the order synopsis.json's `dense` weights follow. */
export const DENSE_FEATURES = [
  'attention rank', // Σ r_w / √|S| (extractive.ts 'rank'), over the document's maximum
  'attention mass', // Σ α over the sentence: its share of Eq. 11's distribution
  'top attended words', // share of the document's 10 most attended content words in the sentence
  'first',
  'second',
  'last',
  'inverse position', // 1 / (i + 1)
  'relative position', // i / (n − 1)
  'length', // ln(1 + words) / 4
  'short', // under 8 words
  'shared words', // share of its content words that the other sentences use
] as const;

/** The weights a training run wrote (synopsis.json). */
export const SynopsisWeights = z.object({
  /** Names of the dense features, checked against DENSE_FEATURES: a scorer trained on others is refused. */
  dense: z.array(z.string()),
  denseWeights: z.array(z.number()),
  /** Lower-cased words; a sentence holding one adds its weight. */
  vocabulary: z.array(z.string()),
  wordWeights: z.array(z.number()),
  training: z.record(z.string(), z.unknown()).optional(),
});
export type SynopsisWeights = z.infer<typeof SynopsisWeights>;

export function parseSynopsisWeights(json: unknown, file: string): SynopsisWeights {
  const parsed = SynopsisWeights.safeParse(json);
  if (!parsed.success)
    throw new EngineError('bad-model', `${file} is not a synopsis scorer: ${parsed.error.issues[0]?.message}`);
  const w = parsed.data;
  if (w.dense.join('|') !== DENSE_FEATURES.join('|') || w.denseWeights.length !== w.dense.length)
    throw new EngineError('bad-model', `${file}: its features are not the ones this version computes`);
  if (w.wordWeights.length !== w.vocabulary.length)
    throw new EngineError('bad-model', `${file}: vocabulary and wordWeights differ in length`);
  return w;
}

const LETTERS = /[a-z]+/g;

/** The lower-cased letter runs of a sentence, each once: what the vocabulary weights match. */
export function sentenceWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(LETTERS) ?? [])];
}

export interface SynopsisCandidate {
  /** Index into `sentences`. */
  index: number;
  dense: number[];
  words: string[];
}

/**
 * The candidates of a text (its prose sentences with words; headings, code and tables only when
 * there is nothing else) and their features.
 */
export function synopsisCandidates(
  text: string,
  tokens: readonly AttendedToken[],
): { sentences: ScoredSentence[]; candidates: SynopsisCandidate[] } {
  const sentences = scoreSentences(text, tokens, 'rank', 0);
  const anyProse = sentences.some((s) => s.prose && s.words > 0);
  const idx = sentences.map((_, i) => i).filter((i) => sentences[i].words > 0 && (sentences[i].prose || !anyProse));
  const n = idx.length;
  const topRank = Math.max(0, ...idx.map((i) => sentences[i].score));
  const totalAlpha = idx.reduce((a, i) => a + sentences[i].alpha, 0);
  // The document's most attended content words (α summed over a word's pieces).
  const top = new Set<string>();
  const ranked = wordsOf([...tokens].sort((a, b) => a.start - b.start))
    .map((w) => ({ w: text.slice(w.start, w.end).toLowerCase(), weight: w.weight }))
    .filter((w) => /\p{L}/u.test(w.w) && !isStopword(w.w))
    .sort((a, b) => b.weight - a.weight);
  for (const w of ranked) {
    if (top.size >= 10) break;
    top.add(w.w);
  }
  const content = idx.map((i) => contentWords(text.slice(sentences[i].start, sentences[i].end)));
  const df = new Map<string, number>();
  for (const c of content) for (const w of c) df.set(w, (df.get(w) ?? 0) + 1);
  const candidates = idx.map((i, k) => {
    const s = sentences[i];
    const sText = text.slice(s.start, s.end);
    const c = content[k];
    let inTop = 0;
    for (const w of top) if (c.has(w) || sText.toLowerCase().includes(w)) inTop++;
    let shared = 0;
    for (const w of c) if ((df.get(w) ?? 0) > 1) shared++;
    const dense = [
      topRank > 0 ? s.score / topRank : 0,
      totalAlpha > 0 ? s.alpha / totalAlpha : 0,
      top.size > 0 ? inTop / top.size : 0,
      k === 0 ? 1 : 0,
      k === 1 ? 1 : 0,
      k === n - 1 && n > 1 ? 1 : 0,
      1 / (k + 1),
      n > 1 ? k / (n - 1) : 0,
      Math.log(1 + s.words) / 4,
      s.words < 8 ? 1 : 0,
      c.size > 0 ? shared / c.size : 0,
    ];
    return { index: i, dense, words: sentenceWords(sText) };
  });
  return { sentences, candidates };
}

/** The scorer's value for one candidate. */
export function synopsisScore(
  c: SynopsisCandidate,
  w: SynopsisWeights,
  vocabulary: ReadonlyMap<string, number>,
): number {
  let z = 0;
  c.dense.forEach((x, j) => (z += x * w.denseWeights[j]));
  for (const word of c.words) {
    const j = vocabulary.get(word);
    if (j !== undefined) z += w.wordWeights[j];
  }
  return z;
}

export interface Synopsis {
  /** The chosen sentence, verbatim. */
  summary: string;
  /** Its index into `sentences`. */
  chosen: number;
  sentences: ScoredSentence[];
  /** Every candidate's score (index into `sentences` → score). */
  scores: Map<number, number>;
}

/**
 * The sentence the scorer ranks first (ties: the earlier) among those that stand alone
 * (text/standalone.ts: no quotation alone, caption, verbless line or sentence pointing back; the
 * title is never a candidate); the scorer's first when none does.
 */
export function synopsis(text: string, tokens: readonly AttendedToken[], w: SynopsisWeights): Synopsis {
  const { sentences, candidates } = synopsisCandidates(text, tokens);
  const vocabulary = new Map(w.vocabulary.map((v, j) => [v, j]));
  const scores = new Map<number, number>();
  for (const c of candidates) scores.set(c.index, synopsisScore(c, w, vocabulary));
  const ranked = candidates.map((c) => c.index).sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || a - b);
  const sentence = (i: number) => text.slice(sentences[i].start, sentences[i].end);
  const best = ranked.find((i) => standsAlone(sentence(i))) ?? ranked[0] ?? -1;
  const summary = best < 0 ? '' : sentence(best);
  return { summary, chosen: best, sentences, scores };
}

/** The first candidate sentence: the baseline the synopsis mode is measured against. */
export function firstSentence(text: string): string {
  const { sentences, candidates } = synopsisCandidates(text, []);
  const first = candidates[0];
  return first ? text.slice(sentences[first.index].start, sentences[first.index].end) : '';
}
