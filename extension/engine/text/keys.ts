/**
 * Semantic keys of a post (ESED): its nouns and adjectives, by wink-nlp's parts of speech (NOUN,
 * PROPN, ADJ) and lemmas, lowercase, in order of first appearance. Function words (text/stopwords,
 * the recipe's data.STOP) and dialogue fillers that tag as nouns ("thing", "guy", "lot": FILLERS,
 * the same list as models/train/draftsmith_train/reply_data.py) are not keys: they steer nothing.
 * The recipe found the keys of the training replies with a WordNet stand-in for the same rule
 * (reply_data.KeyFinder); only keys its memory holds steer a reply, and the mapper looks the rest up.
 */
import { analyse } from './nlp';
import { isStopword } from './stopwords';

export const FILLERS: ReadonlySet<string> = new Set(
  (
    'yes yeah okay sir mister mrs miss lot thing things kind sort way something anything nothing everything ' +
    'someone anyone everyone nobody somebody anybody guy guys man hey hello bye thanks thank please sorry ' +
    'right sure well good great fine nice really just wow must need want doe does'
  ).split(' '),
);

export interface SemanticKey {
  /** The word as the post has it. */
  word: string;
  /** Lowercase lemma: what the memory is keyed by. */
  lemma: string;
  pos: 'noun' | 'adj';
}

const KEY_POS: Readonly<Record<string, SemanticKey['pos']>> = { NOUN: 'noun', PROPN: 'noun', ADJ: 'adj' };

/** The post's nouns and adjectives (see the module comment); letters only, three or more. */
export function semanticKeys(text: string): SemanticKey[] {
  const out: SemanticKey[] = [];
  for (const sentence of analyse(text)) {
    for (const t of sentence.tokens) {
      const pos = KEY_POS[t.pos];
      if (!pos) continue;
      const lemma = (t.lemma || t.normal).toLowerCase();
      if (!/^\p{L}{3,}$/u.test(lemma) || isStopword(lemma) || isStopword(t.normal) || FILLERS.has(lemma)) continue;
      if (!out.some((k) => k.lemma === lemma)) out.push({ word: t.text, lemma, pos });
    }
  }
  return out;
}
