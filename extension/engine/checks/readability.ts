/**
 * Words, reading time and the readability formulas for the status bar, over a document's prose
 * (text/markdown.ts: code, tables and markup not counted) or a selection of it.
 *
 * The formulas are the published ones, from wooorm's packages (flesch, flesch-kincaid, gunning-fog,
 * smog-formula, coleman-liau, automated-readability: the ones retext-readability uses); syllables
 * are counted by `syllable`. Sentences are the project's reader's (text/reader.ts). Reading time
 * assumes 238 words a minute, the mean silent reading rate for non-fiction in Brysbaert's 2019
 * meta-analysis of 190 studies.
 */
import { automatedReadability } from 'automated-readability';
import { colemanLiau } from 'coleman-liau';
import { flesch } from 'flesch';
import { fleschKincaid } from 'flesch-kincaid';
import { gunningFog } from 'gunning-fog';
import { smogFormula } from 'smog-formula';
import { syllable } from 'syllable';
import { readDocument, type DocumentFormat } from '../text/markdown';
import { sentenceSpans, type Span } from '../text/reader';
import { countWords } from '../text/words';

export const WORDS_PER_MINUTE = 238;

export interface TextStats {
  words: number;
  sentences: number;
  /** Whole minutes, rounded up (0 for an empty text). */
  readingMinutes: number;
  /** NaN when the text has no sentence. */
  fleschReadingEase: number;
  fleschKincaidGrade: number;
  gunningFog: number;
  smog: number;
  colemanLiau: number;
  automatedReadability: number;
}

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
/** Longer prose than this is counted but not scored (a syllable count per word would take too long). */
const MAX_SCORED_CHARS = 2_000_000;

/** The statistics of `text`'s prose, or of the prose inside `range` of it. */
export function textStats(text: string, format: DocumentFormat, range?: Span): TextStats {
  const doc = readDocument(text, format);
  let prose = doc.prose;
  if (range) prose = ' '.repeat(range.start) + prose.slice(range.start, range.end);
  const words = countWords(prose);
  let sentences = 0;
  const counts = {
    sentence: 0,
    word: 0,
    syllable: 0,
    polysillabicWord: 0,
    complexPolysillabicWord: 0,
    letter: 0,
    character: 0,
  };
  if (prose.length <= MAX_SCORED_CHARS) {
    for (const s of sentenceSpans(prose)) {
      const tokens = s.text.match(WORD) ?? [];
      if (tokens.length === 0) continue;
      sentences++;
      counts.sentence++;
      for (const w of tokens) {
        const syl = Math.max(1, syllable(w));
        counts.word++;
        counts.syllable += syl;
        const letters = (w.match(/\p{L}/gu) ?? []).length;
        counts.letter += letters;
        counts.character += (w.match(/[\p{L}\p{N}]/gu) ?? []).length;
        if (syl >= 3) {
          counts.polysillabicWord++;
          // Gunning's complex words leave out names, compounds and -es/-ed/-ing inflections.
          if (!/^\p{Lu}/u.test(w) && !w.includes('-') && !/(?:es|ed|ing)$/i.test(w)) counts.complexPolysillabicWord++;
        }
      }
    }
  }
  return {
    words,
    sentences,
    readingMinutes: Math.ceil(words / WORDS_PER_MINUTE),
    fleschReadingEase: flesch(counts),
    fleschKincaidGrade: fleschKincaid(counts),
    gunningFog: gunningFog(counts),
    smog: smogFormula(counts),
    colemanLiau: colemanLiau(counts),
    automatedReadability: automatedReadability(counts),
  };
}

/** Flesch Reading Ease in words: the bands of Flesch's 1948 table. */
export function easeBand(score: number): string {
  if (!Number.isFinite(score)) return 'no sentences';
  if (score >= 90) return 'very easy';
  if (score >= 80) return 'easy';
  if (score >= 70) return 'fairly easy';
  if (score >= 60) return 'plain English';
  if (score >= 50) return 'fairly difficult';
  if (score >= 30) return 'difficult';
  return 'very difficult';
}
