/**
 * The story model as a LikelihoodModel (metrics/perplexity.ts): teacher forcing through its decoder,
 * for `draftsmith eval story --perplexity` and prompt ranking, and for the perplexity of any draft
 * (Score Draft, Score Drafts in Folder and `draftsmith score --perplexity`).
 * Imports the story system's type only, so the scoring system can use it without a cycle.
 */
import { forcedLogProbs } from '../decode/forced';
import type { DecodeHooks } from '../decode/types';
import type { LikelihoodModel } from '../metrics/perplexity';
import type { StorySystem } from '../systems/story';

/** A draft's perplexity under the story model, and what it is made of (so drafts can be pooled). */
export interface TextPerplexity {
  /** Summed negative log-likelihood (nats) of the draft's tokens and its end. */
  nll: number;
  /** Subword tokens scored (the end token included). */
  tokens: number;
  /** Whitespace words + 1 for the end: the story card's unit. */
  words: number;
  /** The model's windows of at most maxTargetTokens the draft was read in. */
  windows: number;
}

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean).length;

export class StoryLikelihood implements LikelihoodModel {
  private constructor(private readonly system: StorySystem) {}

  static of(system: StorySystem): StoryLikelihood {
    return new StoryLikelihood(system);
  }

  /** The prompt's last pieces that fit, then </s> (the recipe's story.encode_source). */
  private source(context: string): number[] {
    const { tokenizer, manifest, arch } = this.system.forcing;
    const room = Math.min(manifest.maxInputTokens, arch.maxSourcePositions) - (arch.sourceEndsWithEos ? 1 : 0);
    return [...tokenizer.encode(context).slice(-room), ...(arch.sourceEndsWithEos ? [manifest.specialTokens.eos] : [])];
  }

  /**
   * story.encode_source and the target cut at maxTargetTokens predicted tokens, as the recipe's
   * story_nll. A cut target's end is not scored, so its last token is not fed: a model whose prompt
   * and story share one set of positions has room for the longest prompt and the longest story only so.
   */
  async tokenLogProbs(context: string, target: string): Promise<number[]> {
    const { tokenizer, manifest, arch } = this.system.forcing;
    const ids = tokenizer.encode(target);
    const max = arch.maxTargetTokens;
    const { model, start } = await this.system.storyModel(this.source(context));
    const cut = ids.length >= max;
    return forcedLogProbs(
      model,
      start,
      manifest.specialTokens.bos,
      ids.slice(0, max),
      cut ? null : manifest.specialTokens.eos,
    );
  }

  /**
   * A whole draft scored as a story with an empty prompt. The decoder has positions for
   * maxTargetTokens only, so a longer draft is read in windows of that many tokens, each from the
   * start of a story (the model never saw a longer one); the end token is scored once, after the
   * last window. Every token of the draft counts, however long it is.
   */
  async textPerplexity(text: string, hooks: DecodeHooks = {}): Promise<TextPerplexity> {
    const { tokenizer, manifest, arch } = this.system.forcing;
    const ids = tokenizer.encode(text);
    const max = arch.maxTargetTokens;
    const { model, start } = await this.system.storyModel(this.source(''));
    let nll = 0;
    let tokens = 0;
    let windows = 0;
    for (let at = 0; at === 0 || at < ids.length; at += max) {
      const window = ids.slice(at, at + max);
      const last = at + max >= ids.length;
      const lps = await forcedLogProbs(
        model,
        start,
        manifest.specialTokens.bos,
        window,
        last ? manifest.specialTokens.eos : null,
        hooks,
      );
      for (const lp of lps) nll -= lp;
      tokens += lps.length;
      windows++;
    }
    return { nll, tokens, words: wordsOf(text) + 1, windows };
  }
}
