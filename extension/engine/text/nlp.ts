/**
 * Parts of speech, lemmas and entities from wink-nlp with its English lite model, over the sentences
 * text/reader.ts finds (both npm packages; the model ships inside its package, nothing is downloaded). Loaded on first
 * use (~200 ms) and shared by the metrics that need linguistics: coherence L and substantiality.
 */
import type WinkNLP from 'wink-nlp';
import type { ItemEntity, ItemToken, ItsFunction, Model, WinkMethods } from 'wink-nlp';
import { sentenceSpans } from './reader';

export interface NlpToken {
  text: string;
  /** Lowercased surface form (wink's `normal`). */
  normal: string;
  lemma: string;
  /** Universal POS tag: NOUN, PROPN, VERB, ADJ, ... */
  pos: string;
}

export interface NlpEntity {
  text: string;
  /** wink-nlp entity type: DATE, TIME, MONEY, PERCENT, CARDINAL, ORDINAL, EMAIL, URL, EMOJI, ... */
  type: string;
  /** Index of the first and last token within the sentence. */
  first: number;
  last: number;
}

export interface NlpSentence {
  text: string;
  tokens: NlpToken[];
  entities: NlpEntity[];
}

let loaded: WinkMethods | undefined;

function nlp(): WinkMethods {
  if (!loaded) {
    // wink and its model are required here, not imported, so that they load on first use only (a
    // command that never tags a sentence, such as check, does not pay for them).
    const winkNLP = require('wink-nlp') as typeof WinkNLP;
    const model = require('wink-eng-lite-web-model') as Model;
    loaded = winkNLP(model);
  }
  return loaded;
}

/** wink's its.span: the first and last token index, typed loosely by the library. */
function spanOf(span: unknown): [number, number] {
  if (Array.isArray(span) && typeof span[0] === 'number' && typeof span[1] === 'number') return [span[0], span[1]];
  throw new Error(`wink-nlp returned an unexpected span: ${JSON.stringify(span)}`);
}

/**
 * Splits `text` into sentences with their tokens and entities. The sentences are the reader's
 * (text/reader.ts), not wink's own: one splitter decides what a sentence is everywhere, and wink
 * tags each one. Whitespace-only text has none.
 */
export function analyse(text: string): NlpSentence[] {
  return sentenceSpans(text).map((s) => analyseSentence(s.text));
}

/** One sentence's tokens and entities. Should wink see more than one sentence in it, they are one here. */
function analyseSentence(text: string): NlpSentence {
  if (text.trim().length === 0) return { text, tokens: [], entities: [] };
  const winkNlp = nlp();
  const its = winkNlp.its;
  // wink-nlp's typings declare its.lemma with the model-addon argument its ItsFunction type lacks;
  // at run time it is an ordinary token its-function.
  const lemma = its.lemma as unknown as ItsFunction<string>;
  const doc = winkNlp.readDoc(text);
  const tokens: NlpToken[] = [];
  doc.tokens().each((t: ItemToken) => {
    tokens.push({
      text: t.out(),
      normal: t.out(its.normal),
      lemma: t.out(lemma),
      pos: t.out(its.pos),
    });
  });
  // Entity spans are token indices in the doc, which is this one sentence.
  const entities: NlpEntity[] = [];
  doc.entities().each((e: ItemEntity) => {
    const [first, last] = spanOf(e.out(its.span));
    entities.push({ text: e.out(), type: e.out(its.type), first, last });
  });
  return { text, tokens, entities };
}

/**
 * One NlpSentence per given string, however the reader would split it: a system that already knows
 * its sentences (Round-Trip reads and writes sentence by sentence) keeps them, so the coherence
 * alignment is between the sentences the model actually read and wrote.
 */
export function analyseEach(sentences: readonly string[]): NlpSentence[] {
  return sentences.map(analyseSentence);
}
