// Entity continuity: whether a story's consecutive sentences stay on the same characters and
// objects. It is the simplest statistic of Barzilay & Lapata's entity grid ("Modeling Local
// Coherence: An Entity-Based Approach", 2008, section 3): the share of adjacent sentence pairs in
// which some entity appears in both, an entity being a noun or proper noun (its lemma) or a
// third-person pronoun (he/him/his → he, ...), since stories carry their characters by pronoun.
// Pronouns are not resolved: "he" continues "he", not "Tom"; the same holds for the human stories
// the number is compared with, so the comparison is fair if coarse.
import type { NlpSentence } from '../text/nlp';

const PRONOUNS: Readonly<Record<string, string>> = {
  he: 'he',
  him: 'he',
  his: 'he',
  himself: 'he',
  she: 'she',
  her: 'she',
  hers: 'she',
  herself: 'she',
  it: 'it',
  its: 'it',
  itself: 'it',
  they: 'they',
  them: 'they',
  their: 'they',
  theirs: 'they',
  themselves: 'they',
};

/** The entities a sentence mentions: noun and proper-noun lemmas, and third-person pronouns. */
export function entitiesOf(sentence: NlpSentence): Set<string> {
  const out = new Set<string>();
  for (const t of sentence.tokens) {
    if (t.pos === 'NOUN' || t.pos === 'PROPN') out.add(t.lemma.toLowerCase());
    else if (t.normal in PRONOUNS) out.add(`pronoun:${PRONOUNS[t.normal]}`);
  }
  return out;
}

export interface ContinuitySummary {
  /** Adjacent sentence pairs sharing an entity, over all pairs (null: no text had two sentences). */
  continuity: number | null;
  /** Adjacent pairs counted, and texts with at least two sentences. */
  pairs: number;
  texts: number;
}

/** Entity continuity pooled over texts (each a list of analysed sentences): shared pairs / pairs. */
export function entityContinuity(texts: readonly (readonly NlpSentence[])[]): ContinuitySummary {
  let shared = 0;
  let pairs = 0;
  let counted = 0;
  for (const sentences of texts) {
    if (sentences.length < 2) continue;
    counted++;
    const sets = sentences.map(entitiesOf);
    for (let i = 1; i < sets.length; i++) {
      pairs++;
      if ([...sets[i]].some((e) => sets[i - 1].has(e))) shared++;
    }
  }
  return { continuity: pairs > 0 ? shared / pairs : null, pairs, texts: counted };
}
