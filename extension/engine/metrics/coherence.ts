// Coherence L (Li, Luong & Jurafsky 2015, "A Hierarchical Neural Autoencoder for Paragraphs and
// Documents", section 5.3, Eq. 18): how well an output keeps the order of its input's sentences.
//
//   1. Each sentence is represented by the set of its nouns and verbs (lemmas; proper nouns count
//      as nouns). Parts of speech from wink-nlp (./../text/nlp.ts).
//   2. Every output sentence s'_{i'} is aligned to the input sentence s_i with the highest F1 of the
//      two sets (the earliest on a tie; unaligned when it shares no noun or verb with any).
//   3. L = mean over pairs of aligned output sentences (i' < j') of |(j − i) − (j' − i')|, where
//      s_i and s_j are the input sentences aligned to s'_{i'} and s'_{j'}.
// A perfect reconstruction scores 0; lower is better. Fewer than two aligned output sentences
// leave L undefined (null), since there is no pair to compare.
// The paper releases no script for this metric, so this follows the text of the paper.
import type { CoherenceSummary, SentenceAlignment } from '../../protocol';
import type { NlpSentence } from '../text/nlp';

const CONTENT_POS: ReadonlySet<string> = new Set(['NOUN', 'PROPN', 'VERB']);

export function contentWords(sentence: NlpSentence): Set<string> {
  const words = new Set<string>();
  for (const t of sentence.tokens) if (CONTENT_POS.has(t.pos)) words.add(t.lemma.toLowerCase());
  return words;
}

/** F1 of two sets: 2·|a ∩ b| / (|a| + |b|), which equals 2PR/(P+R) with P = |a∩b|/|a|, R = |a∩b|/|b|. */
export function setF1(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let overlap = 0;
  for (const w of a) if (b.has(w)) overlap++;
  return (2 * overlap) / (a.size + b.size);
}

export function alignSentences(input: readonly NlpSentence[], output: readonly NlpSentence[]): SentenceAlignment[] {
  const inputSets = input.map(contentWords);
  return output.map((sentence, o) => {
    const words = contentWords(sentence);
    let best: number | null = null;
    let bestF1 = 0;
    inputSets.forEach((set, i) => {
      const f1 = setF1(words, set);
      if (f1 > bestF1) {
        bestF1 = f1;
        best = i;
      }
    });
    return { output: o, input: best, f1: bestF1 };
  });
}

/** Eq. 18 over an alignment: mean |(j − i) − (j' − i')| over pairs of aligned output sentences. */
export function coherenceL(alignment: readonly SentenceAlignment[]): { L: number | null; pairs: number } {
  const aligned = alignment.filter((a): a is SentenceAlignment & { input: number } => a.input !== null);
  let sum = 0;
  let pairs = 0;
  for (let p = 0; p < aligned.length; p++) {
    for (let q = p + 1; q < aligned.length; q++) {
      sum += Math.abs(aligned[q].input - aligned[p].input - (aligned[q].output - aligned[p].output));
      pairs++;
    }
  }
  return { L: pairs > 0 ? sum / pairs : null, pairs };
}

export function coherence(input: readonly NlpSentence[], output: readonly NlpSentence[]): CoherenceSummary {
  const alignment = alignSentences(input, output);
  return {
    ...coherenceL(alignment),
    inputSentences: input.map((s) => s.text),
    outputSentences: output.map((s) => s.text),
    alignment,
  };
}
