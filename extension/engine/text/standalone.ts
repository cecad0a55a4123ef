/**
 * Whether a sentence can stand alone, out of its place in the text: what an extractive summary or a
 * one-sentence synopsis may show by itself. A sentence that opens by pointing back ("He", "This",
 * "However") needs the one before it; a quotation without its speaker's context, a photo caption or
 * a line without a verb is not a synopsis.
 */
import { analyseEach } from './nlp';

/** Opening words that point back to what came before: a pronoun, a demonstrative, a connective. */
const POINTING_WORDS = new Set(
  (
    'he she they it its his her hers him them their theirs this these those that such both another ' +
    'instead however but also and or nor so yet still then thus hence therefore meanwhile moreover ' +
    'furthermore additionally besides nevertheless nonetheless otherwise similarly likewise ' +
    'consequently accordingly indeed later afterwards there'
  ).split(' '),
);
const POINTING_PHRASES = new RegExp(
  String.raw`^(?:${[
    'in addition',
    'as a result',
    'on the other hand',
    'in contrast',
    'by contrast',
    'even so',
    'despite this',
    'despite that',
    'after that',
    'for example',
    'for instance',
    'in turn',
    'the latter',
    'the former',
    'at the same time',
    'because of this',
    'as such',
    'the same',
  ].join('|')})\b`,
  'iu',
);

/**
 * Whether a sentence opens with a word that points back ("He", "This", "Instead", "However", "In
 * addition"): alone, out of its place, it does not make sense. "There" counts only as a place
 * ("There, …"), not in "There are …".
 */
export function pointsBack(sentence: string): boolean {
  const t = sentence.replace(/^[\s"“”'‘’([—–-]+/u, '');
  if (POINTING_PHRASES.test(t)) return true;
  const first = /^[\p{L}]+/u.exec(t)?.[0].toLowerCase();
  if (first === undefined || !POINTING_WORDS.has(first)) return false;
  if (first === 'there') return /^there\s*,/iu.test(t);
  return true;
}

const WORDS = /[\p{L}\p{M}\p{N}]+/gu;
const countWords = (t: string) => (t.match(WORDS) ?? []).length;

/**
 * A quotation alone: at least 60 % of its words inside quotation marks, or 35 % when it opens with
 * the quotation ("…," he said.; “…” a person using the name … posted on the board.). A quoted name
 * or title inside a sentence (The film "Corn" is closed) is not one.
 */
export function isQuotation(sentence: string): boolean {
  if (countWords(sentence) === 0) return false;
  // One that opens with the quotation is one with less: the attribution after it is what is left.
  return quotedShare(sentence) >= (/^\s*["“‘']/u.test(sentence) ? 0.35 : 0.6);
}

/** The share of a sentence's words inside quotation marks (0 for a sentence without words). */
export function quotedShare(sentence: string): number {
  const all = countWords(sentence);
  if (all === 0) return 0;
  let quoted = 0;
  for (const m of sentence.matchAll(/“[^”]*”?|"[^"]*"?|‘[^’]{12,}’|(?<![\p{L}])'[^']{12,}'(?![\p{L}])/gu))
    quoted += countWords(m[0]);
  return Math.min(1, quoted / all);
}

/** The label that opens a photo or video caption ("Pictured: ...", "(Photo: ...", "Click here - ..."). */
const CAPTION_LABEL = new RegExp(
  String.raw`^\(?\s*(?:${[
    'photos?',
    'pictured',
    'pictures?',
    'images?',
    'video',
    'watch',
    'file photo',
    'credits?',
    'source',
    'caption',
    'above',
    'below',
    'left',
    'right',
    'top',
    'bottom',
    'inset',
    'main',
    'click here',
    'read more',
    'see more',
  ].join('|')})\b\s*[:\-–—|]`,
  'iu',
);

/**
 * A caption or page furniture rather than a sentence of the text: "(Photo: …)", "Pictured: …",
 * "Scroll down for video", a sentence wholly in brackets, a label in capitals before a colon.
 */
export function isCaption(sentence: string): boolean {
  const t = sentence.trim();
  if (/^\(.*\)[.!?]?$/su.test(t) || /^\[.*\][.!?]?$/su.test(t)) return true;
  if (CAPTION_LABEL.test(t)) return true;
  if (/\b(?:scroll down for video|click here to|pictured (?:above|below|left|right))\b/iu.test(t)) return true;
  return /^[\p{Lu}\p{N}][\p{Lu}\p{N}\s'’.,&-]{2,}:/u.test(t);
}

/** Whether a sentence has a verb (wink-nlp's part of speech: VERB or AUX): a caption or a heading
 * ("Pictured, the bridge at dawn") has none. */
export function hasVerb(sentence: string): boolean {
  return analyseEach([sentence])[0].tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX');
}

/** What the one-sentence synopsis may be: not a quotation alone, not a caption, with a verb, and not
 * pointing back to a sentence it would be shown without. */
export function standsAlone(sentence: string): boolean {
  return !pointsBack(sentence) && !isQuotation(sentence) && !isCaption(sentence) && hasVerb(sentence);
}
