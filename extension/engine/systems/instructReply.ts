/**
 * What the systems that run a chosen instruct model share (Rewrite Selection, Summarize on an instruct
 * model): the reply is decoded greedily after the chat prompt, and streamed as it will be offered,
 * cleaned of any preamble ("Here is the rewritten text:").
 */
import type { GreedyOptions } from '../decode/sampling';
import type { CausalLm } from '../hub/causalLm';
import type { RunContext } from './context';
import { cleanRewrite } from './rewriteText';
import { tokenStream, type TokenStream } from './tokenStream';

/** Greedy decoding of the reply: from the prompt's last token (the rest already read), never a banned token. */
export const replyDecoding = (lm: CausalLm, prompt: readonly number[], maxLength: number): GreedyOptions => ({
  bos: prompt[prompt.length - 1],
  eos: lm.eos,
  maxLength,
  minLength: 1,
  banned: lm.banned,
});

/** The reply's tokens streamed as text, each partial text cleaned against `source` as the result will be. */
export const replyStream = (
  ctx: RunContext,
  source: string,
  decode: (ids: readonly number[]) => string,
  progress: (text: string, tokens: number) => { message: string; fraction: number },
): TokenStream => tokenStream({ ...ctx, partial: (t) => ctx.partial(cleanRewrite(t, source).text) }, decode, progress);
