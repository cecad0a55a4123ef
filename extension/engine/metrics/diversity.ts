// Diversity of a set of outputs.
//
// Definitions matched:
//   - Diversity, as the topic-to-essay (PC-SAN) and ESED reply papers report it: the number of
//     distinct tokens divided by the number of tokens, over ALL outputs together.
//   - distinct-n (Li et al. 2016, "A Diversity-Promoting Objective Function for Neural Conversation
//     Models"): distinct n-grams / n-grams, over all outputs together (corpus level, as their
//     released scripts compute it, not a mean of per-output ratios).
// Tokens: sacreBLEU's 13a tokenization, lowercased; tokens made only of punctuation are dropped so
// that "." and "," do not dilute the ratio. No outputs, or no tokens, gives 0.
import type { DiversitySummary } from '../../protocol';
import { tokenize13a } from './bleu';

const PUNCTUATION_ONLY = /^\p{P}+$/u;

export function diversityTokens(text: string): string[] {
  return tokenize13a(text.toLowerCase()).filter((t) => !PUNCTUATION_ONLY.test(t));
}

/** distinct n-grams / n-grams over all token sequences. */
export function distinctN(sequences: readonly (readonly string[])[], n: number): number {
  const seen = new Set<string>();
  let total = 0;
  for (const tokens of sequences) {
    for (let i = 0; i + n <= tokens.length; i++) {
      seen.add(n === 1 ? tokens[i] : tokens.slice(i, i + n).join(' '));
      total++;
    }
  }
  return total > 0 ? seen.size / total : 0;
}

export function diversity(outputs: readonly string[]): DiversitySummary {
  const sequences = outputs.map(diversityTokens);
  const tokens = sequences.reduce((sum, s) => sum + s.length, 0);
  const distinct1 = distinctN(sequences, 1);
  // Unique tokens / tokens is distinct-1 by another name; both papers' tables call it Diversity.
  return { diversity: distinct1, distinct1, distinct2: distinctN(sequences, 2), tokens };
}
