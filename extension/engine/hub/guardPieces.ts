/**
 * A chosen language model's vocabulary as the decoding guards read it (decode/guards.ts): each id's
 * text as the model's own decoder writes it after a word, with a leading space as "▁" (the
 * sentencepiece convention the guards were written for), whatever the tokenizer — a byte-level BPE
 * (GPT-2, SmolLM2, Qwen2.5, Llama 3), a sentencepiece one, or a GGUF file's. A token is decoded after
 * an anchor word because a decoder drops a piece's leading space at the start of a text.
 *
 * Whitespace with a line break in it is one space to the guards (a paragraph break is a word
 * break); special tokens, and ids the tokenizer does not know (a vocabulary padded past its
 * tokens), are empty: they write nothing, and the loops ban the ones that are no end token.
 */
import type { LmTokenizer } from './causalLm';

const SPACE = '\u2581';

/** The pieces of one tokenizer, by vocabulary size: worked out once per model. */
const cache = new WeakMap<LmTokenizer, Map<number, readonly string[]>>();

/** The guard's text of a decoded piece: spaces as "▁", whitespace with a line break as one "▁". */
export function guardText(decoded: string): string {
  return decoded.replace(/\s*[\r\n][\s]*|[ \t\f\v\u00a0]/gu, SPACE);
}

/** Every id's piece, `vocabSize` of them (the width of the model's output row). */
export function guardPieces(tokenizer: LmTokenizer, vocabSize: number): readonly string[] {
  let bySize = cache.get(tokenizer);
  const hit = bySize?.get(vocabSize);
  if (hit) return hit;
  const decode = (ids: number[]): string => {
    try {
      return tokenizer.decode(ids, { skip_special_tokens: true });
    } catch {
      return '';
    }
  };
  const anchorIds = tokenizer.encode('a', { add_special_tokens: false });
  const anchor = anchorIds.length === 1 ? anchorIds[0] : undefined;
  const base = anchor === undefined ? '' : decode([anchor]);
  const pieces: string[] = new Array<string>(vocabSize);
  for (let id = 0; id < vocabSize; id++) {
    let text: string;
    if (anchor === undefined) text = decode([id]);
    else {
      const both = decode([anchor, id]);
      text = both.startsWith(base) ? both.slice(base.length) : decode([id]);
    }
    pieces[id] = guardText(text);
  }
  if (!bySize) cache.set(tokenizer, (bySize = new Map()));
  bySize.set(vocabSize, pieces);
  return pieces;
}
