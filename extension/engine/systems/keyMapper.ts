/**
 * The ESED key mapper: how a key of the post (text/keys.ts) becomes a key the memory holds.
 *   identity   the key itself
 *   synonym    the first WordNet synonym (most frequent sense first) the memory holds
 *   antonym    the first WordNet antonym the memory holds ("big" -> "little", "day" -> "night")
 *   neighbour  the nearest other memory key in the model's word embeddings (cosine of the mean of the
 *              word's subword embeddings, embedding.bin)
 *   typed      a word the user typed: its lemma must be a memory key; otherwise the message names the
 *              nearest known keys
 */
import type { ReplyMapper } from '../../protocol';
import { EngineError } from '../errors';
import type { SemanticKey } from '../text/keys';
import { hasLetter } from '../text/reader';
import { antonyms, hasLemma, synonyms, type KeyPos } from '../text/wordnet';
import { PROFANITY } from '../decode/bannedWords';

export interface MappedKey {
  /** The post's (or the typed) word. */
  from: string;
  /** The memory key. */
  key: string;
  mapper: ReplyMapper | 'typed';
  label: string;
}

/** "tennis — identity", "champion → winner — synonym". */
export const keyLabel = (from: string, key: string, mapper: MappedKey['mapper']) =>
  `${from.toLowerCase() === key ? key : `${from} → ${key}`} — ${mapper}`;

const OTHER: Readonly<Record<KeyPos, KeyPos>> = { noun: 'adj', adj: 'noun' };

export class KeyMapper {
  private readonly index: ReadonlyMap<string, number>;
  private keyVectors: (Float32Array | null)[] | undefined;

  /**
   * keys: the memory's keys. wordVector: a word's unit-length embedding vector, or null when it has none.
   * lemmaOf: a typed word's lemma (wink-nlp), for "dogs" -> "dog".
   */
  constructor(
    readonly keys: readonly string[],
    private readonly wordVector: (word: string) => Float32Array | null,
    private readonly lemmaOf: (word: string) => string = (w) => w,
  ) {
    this.index = new Map(keys.map((k, i) => [k, i]));
  }

  /** Whether the memory holds `key` as a key to steer by: never a profane one, whatever the training replies held. */
  has(key: string): boolean {
    return this.index.has(key) && !PROFANITY.has(key);
  }

  indexOf(key: string): number {
    const i = this.index.get(key);
    if (i === undefined) throw new EngineError('internal', `the memory has no key "${key}"`);
    return i;
  }

  /** The post key under one mapping, or null when that mapping gives no key the memory holds. */
  map(k: SemanticKey, mapper: ReplyMapper): MappedKey | null {
    // Labelled by the lemma ("friend — identity", not "friends → friend"): the mapping is between keys.
    const found = (key: string | undefined) =>
      key ? { from: k.word, key, mapper, label: keyLabel(k.lemma, key, mapper) } : null;
    // WordNet by the part of speech wink-nlp gave; the other one only when WordNet lacks the word as that
    // part of speech (a tagging slip), not to reach a rarer sense ("lost" the adjective is not "the lost", people).
    const wordnet = (lookup: typeof synonyms) =>
      lookup(k.lemma, hasLemma(k.lemma, k.pos) ? k.pos : OTHER[k.pos]).find((w) => w !== k.lemma && this.has(w));
    switch (mapper) {
      case 'identity':
        return found(this.has(k.lemma) ? k.lemma : undefined);
      case 'synonym':
        return found(wordnet(synonyms));
      case 'antonym':
        return found(wordnet(antonyms));
      case 'neighbour':
        return found(this.nearest(k.lemma, 1)[0]);
    }
  }

  /** A key the user typed. Throws a message naming the nearest known keys when the memory lacks it. */
  typed(word: string): MappedKey {
    const w = word.trim().toLowerCase();
    if (!hasLetter(w)) throw new EngineError('bad-input', 'Type a word (a noun or an adjective) to steer the reply.');
    const lemma = this.has(w) ? w : this.lemmaOf(w);
    if (this.has(lemma))
      return { from: word.trim(), key: lemma, mapper: 'typed', label: keyLabel(word.trim(), lemma, 'typed') };
    const near = this.nearest(w, 5);
    throw new EngineError(
      'bad-input',
      `The reply memory has no key ` +
        `"${word.trim()}"${near.length ? `; the nearest keys it knows are: ${near.join(', ')}` : ''}. ` +
        `It holds ${this.keys.length} nouns and adjectives of the training replies.`,
    );
  }

  /** The n memory keys nearest to `word` in the word embeddings (never the word itself). */
  nearest(word: string, n: number): string[] {
    const v = this.wordVector(word);
    if (!v) return [];
    this.keyVectors ??= this.keys.map((k) => this.wordVector(k));
    const scored: { key: string; cos: number }[] = [];
    this.keyVectors.forEach((kv, i) => {
      if (!kv || this.keys[i] === word || !this.has(this.keys[i])) return;
      let dot = 0;
      for (let d = 0; d < v.length; d++) dot += v[d] * kv[d];
      scored.push({ key: this.keys[i], cos: dot });
    });
    return scored
      .sort((a, b) => b.cos - a.cos)
      .slice(0, n)
      .map((s) => s.key);
  }
}
