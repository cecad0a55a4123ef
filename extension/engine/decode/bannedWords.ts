/**
 * What no built-in system ever writes, whatever its training text held: profanity and slurs, and
 * the boilerplate of the web pages the training text came from (bylines, "contributed to this
 * report", "the opinions expressed … are solely those of", "click here"). Both are word lists the
 * decoding guards (guards.ts) read: a word, or the last word of a phrase, is refused when it would
 * close, so the model writes something else there instead of the text being cut afterwards.
 *
 * Profanity: leo-profanity's English list (MIT; the LDNOOBW list's single words), with the few
 * slurs it lacks. Words are lower-case runs of letters, as the guards read them ("e-mail" is "e"
 * "mail"; punctuation is not a word).
 */
import profanityList from 'leo-profanity/dictionary/default.json';

/** Slurs missing from leo-profanity's list. */
const MORE_SLURS = ['retard', 'retards', 'retarded', 'whore', 'whores', 'wetback', 'wetbacks', 'tranny'];

/** Lower-case words never written. */
export const PROFANITY: ReadonlySet<string> = new Set(
  [...(profanityList as string[]), ...MORE_SLURS].filter((w) => /^[a-z]+$/.test(w)),
);

/**
 * Training-text boilerplate, as word sequences. Each is specific enough that no writer's text needs
 * it from a model: a news page's credits and footers, not phrases a story or summary uses. The training
 * recipes take the sentences holding one out of their text (models/train/draftsmith_train/boilerplate.json,
 * the same list: boilerplateList.test.ts).
 */
export const BOILERPLATE: readonly (readonly string[])[] = [
  'contributed to this report',
  'contributed reporting',
  'opinions expressed',
  'views expressed',
  'solely those of',
  'click here',
  'all rights reserved',
  'e mail to a friend',
  'email to a friend',
  'scroll down for video',
  'daily mail reporter',
  'mailonline reporter',
  'follow us on twitter',
  'sign up for our newsletter',
  'may not be published broadcast',
  'last updated at',
  'associated press contributed',
].map((p) => p.split(' '));

/** For the guards: the phrases by their last word, each as the words that must come before it. */
export const BOILERPLATE_BY_LAST: ReadonlyMap<string, readonly (readonly string[])[]> = (() => {
  const m = new Map<string, string[][]>();
  for (const p of BOILERPLATE) {
    const last = p[p.length - 1];
    m.set(last, [...(m.get(last) ?? []), p.slice(0, -1)]);
  }
  return m;
})();

/** The longest phrase's length: how many earlier words a guard must keep to see one complete. */
export const BOILERPLATE_SPAN = Math.max(...BOILERPLATE.map((p) => p.length));

/**
 * Whether closing `word` after `before` (the row's completed words, oldest first) writes a banned word
 * or completes boilerplate.
 */
export function closesBanned(before: readonly string[], word: string): boolean {
  if (PROFANITY.has(word)) return true;
  const phrases = BOILERPLATE_BY_LAST.get(word);
  if (!phrases) return false;
  return phrases.some(
    (p) => p.length <= before.length && p.every((w, i) => before[before.length - p.length + i] === w),
  );
}
