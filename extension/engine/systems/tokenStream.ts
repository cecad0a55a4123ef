/**
 * A sampled text as it is written: the text of the tokens so far, sent to the caller after every
 * token (the host writes it into the editor as it comes), each token's span in it kept for the
 * panel. Shared by the story models (ours and a Hub causal LM), whose decode differs.
 */
import type { GeneratedToken } from '../../protocol';
import type { DecodeHooks } from '../decode/types';
import type { RunContext } from './context';

export interface TokenStream {
  /** The text of `ids` (the tokens written so far, or a prefix of one more). */
  text(ids: readonly number[]): string;
  /** One per token written, in order. */
  spans: Omit<GeneratedToken, 'gate'>[];
  hooks: DecodeHooks;
}

export function tokenStream(
  ctx: RunContext,
  decode: (ids: readonly number[]) => string,
  progress: (text: string, tokens: number) => { message: string; fraction: number },
): TokenStream {
  let cached: { ids: readonly number[]; length: number; text: string } | undefined;
  const text = (ids: readonly number[]): string => {
    if (cached?.ids === ids && cached.length === ids.length) return cached.text;
    const t = decode(ids);
    cached = { ids, length: ids.length, text: t };
    return t;
  };
  let sent = '';
  const spans: Omit<GeneratedToken, 'gate'>[] = [];
  return {
    text: (ids) => (ids.length === spans.length ? sent : text(ids)),
    spans,
    hooks: {
      clock: ctx.clock,
      checkCancelled: () => ctx.checkCancelled(),
      onStep: (_step: number, ids: number[]) => {
        const now = text(ids);
        // Decoding a longer prefix extends the text (sentencepiece pieces carry their own spaces);
        // should it ever not, the token gets an empty span and the stream waits until it does.
        if (now.startsWith(sent)) {
          const piece = now.slice(sent.length);
          spans.push({ text: piece.trimStart(), start: now.length - piece.trimStart().length, end: now.length });
          sent = now;
          ctx.partial(sent);
        } else {
          spans.push({ text: '', start: sent.length, end: sent.length });
        }
        const p = progress(sent, ids.length);
        ctx.progress(p.message, Math.min(0.95, p.fraction));
      },
    },
  };
}
