/**
 * A model's end tokens, all of them: config.json's eos_token_id and generation_config.json's (each a
 * number or a list; instruct models end a turn with one and a text with another, e.g. Qwen2.5's
 * <|im_end|> and <|endoftext|>), and the tokenizer's. Our decoding loops stop on one token, so the
 * step model (causalStep.ts) folds the others into it: the probability of ending is the sum of theirs.
 */
const ids = (v: unknown): number[] =>
  typeof v === 'number' ? [v] : Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];

/** Every end token, the first one found being the one our loops stop on. */
export function endTokensOf(
  config: Record<string, unknown>,
  generationConfig: Record<string, unknown> | null | undefined,
  tokenizerEos: number | null | undefined,
): number[] {
  return [
    ...new Set([
      ...ids(generationConfig?.eos_token_id),
      ...ids(config.eos_token_id),
      ...(typeof tokenizerEos === 'number' ? [tokenizerEos] : []),
    ]),
  ];
}

/** The tokens a text never contains: a start token and padding, unless one of them also ends a text. */
export function neverInText(config: Record<string, unknown>, ends: readonly number[]): number[] {
  return [...new Set([...ids(config.bos_token_id), ...ids(config.pad_token_id)])].filter((t) => !ends.includes(t));
}

/** log(exp(a) + exp(b)) without overflow. */
function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

/** Folds the log-probabilities of `others` into `eos` in every row, in place. */
export function foldEndTokens(logProbs: Float32Array, vocab: number, eos: number, others: readonly number[]): void {
  for (let base = 0; base < logProbs.length; base += vocab) {
    let p = logProbs[base + eos];
    for (const t of others) {
      if (t >= vocab) continue;
      p = logAddExp(p, logProbs[base + t]);
      logProbs[base + t] = -Infinity;
    }
    logProbs[base + eos] = p;
  }
}
