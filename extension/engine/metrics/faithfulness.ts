// Faithfulness of a summary to its source, as far as names and numbers go ("no names or
// numbers that are not in it: measure the rate").
//
//   names:   words that begin with an uppercase letter and are not the first word of their sentence
//            (sentences by text/reader.ts), except the pronoun "I";
//   numbers: runs of digits, with inner "," or "." ("1,200", "3.5"; compared without the commas).
//   A name is supported when the same word (case-insensitively) is a word of the source; a number
//   when the same number is a number of the source.
//   rate = unsupported items / items, over a corpus: Σ unsupported / Σ items (0 when there are none).
//
// Words are runs of letters, marks and digits (any script), so "Kelly's" is "Kelly" and "s", and
// "U.S." is "U" and "S". An extract of whole source sentences scores 0 by construction.
import { sentenceSpans } from '../text/reader';

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const NUMBER = /\p{Nd}+(?:[.,]\p{Nd}+)*/gu;
const UPPER = /^\p{Lu}/u;
const LETTER = /\p{L}/u;

export interface FaithfulnessCount {
  /** Names and numbers in the summary (every occurrence). */
  items: number;
  /** Those that do not occur in the source. */
  unsupported: number;
  /** The unsupported ones, as written. */
  invented: string[];
}

const normNumber = (n: string) => n.replace(/,/g, '');

/** Names (capitalised words that do not start a sentence) in `text`, as written. */
export function names(text: string): string[] {
  const out: string[] = [];
  for (const s of sentenceSpans(text)) {
    let first = true;
    for (const m of s.text.matchAll(WORD)) {
      const w = m[0];
      if (!LETTER.test(w[0])) {
        first = false;
        continue;
      } // a number is not a name, but it starts the sentence
      if (!first && UPPER.test(w) && w !== 'I') out.push(w);
      first = false;
    }
  }
  return out;
}

/** Numbers in `text`, as written. */
export function numbers(text: string): string[] {
  return [...text.matchAll(NUMBER)].map((m) => m[0].replace(/[.,]$/, ''));
}

/** The names and numbers of `summary` that `source` does not contain. */
export function unsupportedItems(summary: string, source: string): FaithfulnessCount {
  const words = new Set([...source.matchAll(WORD)].map((m) => m[0].toLowerCase()));
  const nums = new Set(numbers(source).map(normNumber));
  const invented: string[] = [];
  const ns = names(summary);
  const xs = numbers(summary);
  for (const n of ns) if (!words.has(n.toLowerCase())) invented.push(n);
  for (const x of xs) if (!nums.has(normNumber(x))) invented.push(x);
  return { items: ns.length + xs.length, unsupported: invented.length, invented };
}

export interface FaithfulnessSummary {
  items: number;
  unsupported: number;
  /** Σ unsupported / Σ items. */
  rate: number;
  /** Share of summaries with at least one unsupported name or number. */
  summariesWithInvention: number;
}

/** Over a corpus: predictions[i] is the summary of sources[i]. */
export function corpusFaithfulness(predictions: readonly string[], sources: readonly string[]): FaithfulnessSummary {
  if (predictions.length !== sources.length)
    throw new Error(`${predictions.length} summaries but ${sources.length} sources`);
  let items = 0;
  let unsupported = 0;
  let withInvention = 0;
  predictions.forEach((p, i) => {
    const c = unsupportedItems(p, sources[i]);
    items += c.items;
    unsupported += c.unsupported;
    if (c.unsupported > 0) withInvention++;
  });
  return {
    items,
    unsupported,
    rate: items > 0 ? unsupported / items : 0,
    summariesWithInvention: predictions.length ? withInvention / predictions.length : 0,
  };
}
