// Model-based scores: the interface a system fills in, and perplexity over it.
//
// Perplexity (as the story paper reports it, Fan et al. 2018): exp of the mean negative
// log-likelihood per target token over the whole test set, tokens pooled across documents (not a
// mean of per-document perplexities). Which tokens count (the model's subwords) is the system's
// choice; the story model card says which.

import type { PerplexitySummary } from '../../protocol';

/** A model that can score a target text given a context (a prompt, a source document). */
export interface LikelihoodModel {
  /** Natural-log probability of each target token given the context and the tokens before it. */
  tokenLogProbs(context: string, target: string): Promise<number[]>;
}

export interface PerplexityResult {
  perplexity: number;
  /** Mean negative log-likelihood per token (nats). */
  nll: number;
  tokens: number;
}

export function perplexityFromLogProbs(sequences: readonly (readonly number[])[]): PerplexityResult {
  let sum = 0;
  let tokens = 0;
  for (const seq of sequences) {
    for (const lp of seq) {
      if (!(lp <= 0)) throw new RangeError(`a log-probability must be ≤ 0, got ${lp}`);
      sum += lp;
      tokens++;
    }
  }
  if (tokens === 0) return { perplexity: Number.NaN, nll: Number.NaN, tokens: 0 };
  const nll = -sum / tokens;
  return { perplexity: Math.exp(nll), nll, tokens };
}

export async function perplexity(
  model: LikelihoodModel,
  pairs: readonly { context: string; target: string }[],
): Promise<PerplexityResult> {
  const sequences: number[][] = [];
  for (const p of pairs) sequences.push(await model.tokenLogProbs(p.context, p.target));
  return perplexityFromLogProbs(sequences);
}

/** Drafts' summed NLL, tokens and words pooled: exp(total NLL / total words) and / total tokens. */
export function pooledPerplexity(
  parts: readonly { nll: number; tokens: number; words: number }[],
  model: string,
): PerplexitySummary {
  const nll = parts.reduce((a, p) => a + p.nll, 0);
  const tokens = parts.reduce((a, p) => a + p.tokens, 0);
  const words = parts.reduce((a, p) => a + p.words, 0);
  return {
    perWord: Math.exp(nll / Math.max(words, 1)),
    perToken: Math.exp(nll / Math.max(tokens, 1)),
    nll,
    tokens,
    words,
    model,
  };
}
