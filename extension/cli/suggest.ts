/** "Did you mean …": the nearest of the names a word could have meant to be, if one is near enough. */
import { distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `word` in edits, when it is within two edits or a third of the word's
 * length ("summarise" finds "summarize", "mdoe" finds "mode"; one edit for a word of one or two
 * letters) and no other candidate is as near; undefined otherwise, so a word far from all of them
 * gets no guess.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 2 ? 1 : Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  for (const c of new Set(candidates)) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      [best, bestDistance, tied] = [c, d, false];
    } else if (d === bestDistance) tied = true;
  }
  return best !== undefined && bestDistance <= limit && !tied ? best : undefined;
}
