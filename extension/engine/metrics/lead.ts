// Lead-3: the extractive baseline of summarization papers (See et al. 2017; Nallapati et al. 2017):
// the summary is the document's first three sentences. TAAS reports ROUGE against it.
//
// Sentences come from the shared rule-based reader (../text/reader.ts), not a trained model
// (papers use NLTK Punkt or Stanford CoreNLP, so Lead-3 scores can differ slightly from published ones).
import { splitSentences } from '../text/reader';

/** The first `n` sentences of a document (fewer when it is shorter). */
export function leadSentences(text: string, n = 3): string[] {
  return splitSentences(text).slice(0, n);
}

/** The Lead-3 summary, one sentence per line: the form ROUGE-Lsum expects. */
export function lead3(text: string): string {
  return leadSentences(text, 3).join('\n');
}
