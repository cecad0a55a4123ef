/**
 * TAAS's topic-aware attention on the inference side (PyTorch: TopicAwareAttention in
 * models/train/draftsmith_train/modules.py). The encoder graph computes α = softmax_t(mean_k h Pᵀ)
 * (Eqs. 9-11); here α is laid over the user's text and read out as the paper's Figure 4 does:
 * every token shaded by its weight, and the top attended phrases listed.
 */
import type { AttendedPhrase, AttendedToken } from '../../protocol';
import { isStopword } from '../text/stopwords';
import type { TokenSpan } from '../text/tokenizer';

interface Word {
  start: number;
  end: number;
  weight: number;
  first: number;
  last: number;
}

const WORDLIKE = /[\p{L}\p{N}]/u;

/** Joins sub-word pieces into words: a piece that follows the previous one without a gap continues it. */
export function wordsOf(tokens: AttendedToken[]): Word[] {
  const words: Word[] = [];
  tokens.forEach((t, i) => {
    if (!WORDLIKE.test(t.text)) return;
    const prev = words[words.length - 1];
    if (prev && prev.last === i - 1 && t.start === tokens[i - 1].end) {
      prev.end = t.end;
      prev.weight += t.weight;
      prev.last = i;
    } else {
      words.push({ start: t.start, end: t.end, weight: t.weight, first: i, last: i });
    }
  });
  return words;
}

/**
 * The k most attended phrases: each of the most attended content words grows to its neighbouring
 * content words while they carry at least half its weight (at most `maxWords` words), overlapping
 * phrases are merged away, a phrase already listed is not listed again, and phrases are ranked by
 * their total α. Function words ("and", "the") are never a phrase
 * on their own, however much α they get: they carry no topic (the token shading still shows it).
 */
export function topPhrases(source: string, tokens: AttendedToken[], k = 5, maxWords = 4): AttendedPhrase[] {
  const words = wordsOf(tokens);
  const content = words.map((w) => !isStopword(source.slice(w.start, w.end)));
  const order = words
    .map((_, i) => i)
    .filter((i) => content[i])
    .sort((a, b) => words[b].weight - words[a].weight);
  const listed = new Set<string>();
  const taken = new Array<boolean>(words.length).fill(false);
  const phrases: AttendedPhrase[] = [];
  for (const seed of order) {
    if (phrases.length >= k) break;
    if (taken[seed]) continue;
    let lo = seed;
    let hi = seed;
    const limit = words[seed].weight / 2;
    while (hi - lo + 1 < maxWords) {
      const grows = (i: number) => i >= 0 && i < words.length && !taken[i] && content[i] && words[i].weight >= limit;
      const left = grows(lo - 1) ? words[lo - 1].weight : -1;
      const right = grows(hi + 1) ? words[hi + 1].weight : -1;
      if (left < 0 && right < 0) break;
      if (left >= right) lo--;
      else hi++;
    }
    for (let i = lo; i <= hi; i++) taken[i] = true;
    let weight = 0;
    for (let i = lo; i <= hi; i++) weight += words[i].weight;
    const start = words[lo].start;
    const end = words[hi].end;
    const text = source.slice(start, end);
    if (listed.has(text.toLowerCase())) continue;
    listed.add(text.toLowerCase());
    phrases.push({ text, start, end, weight });
  }
  return phrases.sort((a, b) => b.weight - a.weight);
}

/** Pairs each token span with its α; the weights of the tokens the model read sum to 1. */
export function attendedTokens(spans: TokenSpan[], alpha: Float32Array): AttendedToken[] {
  return spans.map((s, i) => ({ text: s.text, start: s.start, end: s.end, weight: i < alpha.length ? alpha[i] : 0 }));
}
