/**
 * The text rules of an inline suggestion, shared by the built-in story model and a Hub
 * one: where the current sentence starts, when a suggestion ends (a sentence end, or its length in
 * words), the seed that makes the same text give the same suggestion, and the text shown at the
 * cursor (with the space it needs, never glued to the word before it).
 */
import { countWords } from '../text/words';

/** A sentence's end: . ! ? (or an ellipsis), then any closing quotes or brackets. */
const SENTENCE_END = /[.!?…]["'”’)\]]*$/u;

/**
 * The text before the cursor cut where its current sentence starts: `context` holds the complete
 * sentences (and the whitespace after them), `partial` the sentence being written ('' right after a
 * sentence end).
 */
export function splitAtSentence(text: string): { context: string; partial: string } {
  const re = /[.!?…]["'”’)\]]*\s+/gu;
  let cut = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) cut = m.index + m[0].length;
  // Text that ends in a sentence end without the space after it: the sentence is complete.
  if (SENTENCE_END.test(text.trimEnd())) cut = text.length;
  return { context: text.slice(0, cut), partial: text.slice(cut) };
}

/** FNV-1a over the text: the same text before the cursor samples the same suggestion (no flicker). */
export function seedFromText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface InlineLength {
  /** Sentence ends the suggestion may reach; it stops at the last one. */
  sentences: number;
  /** At most this many words, sentence end or not (a few words: the short setting). */
  maxWords: number;
}

/**
 * Whether the suggestion was complete before its newest token: it had reached its last sentence end
 * and the token starts something new (a word after the end, not a closing quote), or the token
 * starts a word past the length. `before` and `now`: the suggestion's text without and with it.
 */
export function suggestionEndsBefore(before: string, now: string, length: InlineLength): boolean {
  if (countWords(now) > length.maxWords) return true;
  if (!SENTENCE_END.test(before)) return false;
  const piece = now.slice(before.length);
  // A closing quote or bracket, or more of the ellipsis, belongs to the sentence it ends.
  if (/^["'”’)\].…!?]/u.test(piece)) return false;
  return sentenceEnds(before) >= length.sentences;
}

/** Sentence ends in a text (a run of . ! ? counts once). */
export function sentenceEnds(text: string): number {
  return (text.match(/[.!?…]+(?=["'”’)\]]*(\s|$))/gu) ?? []).length;
}

/** Whether `text` ends in the middle of a word (a letter or digit at the cursor). */
export const endsInWord = (text: string): boolean => /[\p{L}\p{N}]$/u.test(text);

/**
 * The text to show at the cursor: the continuation as decoded, with one space before it when it
 * starts a new word after a word, none after whitespace; never starting with a second space.
 */
export function suggestionText(before: string, continuation: string, startsWord: boolean): string {
  const body = continuation.trimStart();
  if (!body) return '';
  const needsSpace = startsWord && before.length > 0 && !/\s$/u.test(before);
  return (needsSpace ? ' ' : '') + body;
}
