// Substantiality (the ESED reply paper): entity words per sentence, i.e. how much concrete content
// an output carries. The paper matched words against a Wikipedia entity table, which we do not
// have offline, so an entity word here is a token that is any of:
//   - inside an entity found by wink-nlp's recogniser (dates, times, money, percentages, numbers,
//     ordinals, e-mail addresses, URLs, ...; emoji and emoticons are not content, so not counted);
//   - a proper noun (wink-nlp POS tag PROPN), which stands in for the named entities of the table;
//   - inside a multi-word WordNet noun ("ice cream", "sports car", "high school"), matched longest
//     first on the lowercased words or their lemmas, ending in a noun.
// Punctuation tokens are never counted. Scores are therefore not comparable with the paper's
// absolute numbers, only between systems scored here (docs/metrics in README says so too).
import type { SubstantialitySummary } from '../../protocol';
import type { NlpSentence } from '../text/nlp';
import { nounCompounds } from '../text/wordnet';

const NOT_CONTENT_ENTITIES: ReadonlySet<string> = new Set(['EMOJI', 'EMOTICON']);
const NOUNS: ReadonlySet<string> = new Set(['NOUN', 'PROPN']);

/** Which tokens of one sentence are entity words, with the surface strings of what was matched. */
export function entityWordsOf(sentence: NlpSentence): { marked: boolean[]; found: string[] } {
  const tokens = sentence.tokens;
  const marked = new Array<boolean>(tokens.length).fill(false);
  const found: string[] = [];
  for (const e of sentence.entities) {
    if (NOT_CONTENT_ENTITIES.has(e.type)) continue;
    for (let i = e.first; i <= e.last && i < tokens.length; i++) marked[i] = true;
    found.push(e.text);
  }
  const { set, longest } = nounCompounds();
  for (let i = 0; i < tokens.length; i++) {
    for (let len = Math.min(longest, tokens.length - i); len >= 2; len--) {
      const span = tokens.slice(i, i + len);
      if (!NOUNS.has(span[len - 1].pos)) continue;
      const surface = span.map((t) => t.normal).join(' ');
      if (set.has(surface) || set.has(span.map((t) => t.lemma.toLowerCase()).join(' '))) {
        for (let k = i; k < i + len; k++) marked[k] = true;
        found.push(span.map((t) => t.text).join(' '));
        i += len - 1;
        break;
      }
    }
  }
  tokens.forEach((t, i) => {
    if (t.pos === 'PROPN' && !marked[i]) {
      marked[i] = true;
      found.push(t.text);
    }
    if (t.pos === 'PUNCT') marked[i] = false;
  });
  return { marked, found };
}

export function entityWordCount(sentence: NlpSentence): number {
  return entityWordsOf(sentence).marked.filter(Boolean).length;
}

/** Entity words per sentence over all sentences of all outputs. No sentences gives 0. */
export function substantiality(outputs: readonly (readonly NlpSentence[])[]): SubstantialitySummary {
  let entityWords = 0;
  let sentences = 0;
  const examples = new Set<string>();
  for (const output of outputs) {
    for (const sentence of output) {
      const { marked, found } = entityWordsOf(sentence);
      entityWords += marked.filter(Boolean).length;
      sentences++;
      for (const f of found) if (examples.size < 20) examples.add(f);
    }
  }
  return { perSentence: sentences > 0 ? entityWords / sentences : 0, entityWords, sentences, examples: [...examples] };
}
