// Lead-3: the extractive baseline of summarization papers (See et al. 2017; Nallapati et al. 2017):
// the summary is the document's first three sentences. TAAS reports ROUGE against it.
//
// Sentences come from the shared rule-based reader (../text/reader.ts), not a trained model
// (papers use NLTK Punkt or Stanford CoreNLP, so Lead-3 scores can differ slightly from published ones).
// A title line (text/title.ts) is not a sentence: the lead starts after it.
import { sentenceSpans } from '../text/reader';
import { titleEnd } from '../text/title';

/** The first `n` sentences of a document after its title line (fewer when it is shorter). */
export function leadSentences(text: string, n = 3): string[] {
  const title = titleEnd(text);
  return sentenceSpans(text)
    .filter((s) => s.start >= title)
    .slice(0, n)
    .map((s) => s.text);
}

/** The Lead-3 summary, one sentence per line: the form ROUGE-Lsum expects. */
export function lead3(text: string): string {
  return leadSentences(text, 3).join('\n');
}

/** The document's first `words` words after its title line, as written: the lead of the same length
 * as another summary, which Lead-3 is not (its length is the first sentences'). */
export function leadWords(text: string, words: number): string {
  const body = text.slice(titleEnd(text)).trimStart();
  if (words <= 0) return '';
  let k = 0;
  for (const m of body.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) if (++k === words) return body.slice(0, m.index + m[0].length);
  return body.trimEnd();
}
