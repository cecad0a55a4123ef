/**
 * Whether a plain (non-chat) prompt begins with the model's start token. Our loops encode without
 * special tokens (so that a prompt cut to the context keeps its end), which skips the tokenizer's
 * post-processor; the start token is put back exactly where that post-processor would have put it.
 * It is the tokenizer's rule, not the family's: SmolLM2's Llama tokenizer adds none where TinyLlama's
 * adds <s>; Mistral's and Gemma's add theirs, Qwen's, Phi-3's and SmolLM3's add none. A start token
 * that is also an end token (GPT-2's, OLMo 2's, Granite's) never goes first.
 */
import type { LmTokenizer } from './causalLm';

const PROBE = 'The';

export function startTokenOf(
  tokenizer: Pick<LmTokenizer, 'encode'>,
  bos: number | undefined,
  ends: readonly number[],
): number | undefined {
  if (bos === undefined || ends.includes(bos)) return undefined;
  const own = tokenizer.encode(PROBE, { add_special_tokens: true });
  const plain = tokenizer.encode(PROBE, { add_special_tokens: false });
  return own[0] === bos && plain[0] !== bos ? bos : undefined;
}
