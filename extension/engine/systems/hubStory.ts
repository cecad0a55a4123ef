/**
 * Continue Story and Write a Premise with a causal language model from the Hub, or a local folder in
 * transformers.js's layout: a plain LM in place of the fusion model, so the panel has no
 * fusion gates to show and says so. transformers.js downloads, caches and tokenizes; our own loop
 * samples (decode/sampling.ts through hub/causalStep.ts), so a seed writes the same story again, the
 * length is held in words as with the built-in model, and the text streams into the editor.
 */
import type {
  DecodingValue,
  ExternalModel,
  PremiseRequest,
  PremiseResult,
  SamplingOptions,
  StoryRequest,
  StoryResult,
} from '../../protocol';
import { topKSample, type TopKOptions } from '../decode/sampling';
import type { DecodeHooks, Hypothesis } from '../decode/types';
import { EngineError } from '../errors';
import { chatPromptIds } from '../hub/chatPrompt';
import { mergeSamplingDefaults } from '../hub/generationDefaults';
import { HubSystemBase, openCausalLm, type CausalLm, type HubLoad } from '../hub/hubSystems';
import { PrefixCache } from '../hub/prefixCache';
import { hasReadableText } from '../text/reader';
import { countWords } from '../text/words';
import type { RunContext } from './context';
import { lengthLimit, maxLengthHit } from './lengthLimit';
import { EMPTY_PROMPT_MESSAGE, freshSeed, minimumWords, noSuggestion, promptRead, storyEnding } from './story';
import type { System } from './system';
import { tokenStream } from './tokenStream';
import { endsInWord, seedFromText, suggestionEndsBefore, type InlineLength } from './inlineText';
import { fittingSuffixStart } from '../text/fitting';

/** The continuation's default length in words, as the built-in model's manifest gives it. */
const DEFAULT_WORDS = 150;
/** Tokens kept free for the continuation when a long prompt is cut to the model's context. */
const CONTINUATION_ROOM = 320;
/** The built-in story model's sampling, for a model without its own. */
const OUR_SAMPLING = { topK: 10, temperature: 0.8 };
/** A premise: one or two sentences. */
const PREMISE_TOKENS = 60;

export class HubStorySystem extends HubSystemBase<CausalLm> implements System<'story' | 'premise'> {
  /** The last prompt read: a story continued again, or typed on, reads only what is new. */
  private readonly prefix: PrefixCache;

  private constructor(lm: CausalLm) {
    super(
      lm,
      'story',
      'A plain language model',
      'no fusion gates (the fusion model is the built-in one), no attention weights (its graph does not export them).',
    );
    this.prefix = new PrefixCache(lm.step);
  }

  static async load(...[choice, hub, runtime, watch]: HubLoad): Promise<HubStorySystem> {
    return new HubStorySystem(await openCausalLm(choice, 'Continue Story', hub, runtime, watch));
  }

  run(req: StoryRequest, ctx: RunContext): Promise<StoryResult>;
  run(req: PremiseRequest, ctx: RunContext): Promise<PremiseResult>;
  run(req: StoryRequest | PremiseRequest, ctx: RunContext): Promise<StoryResult | PremiseResult>;
  run(req: StoryRequest | PremiseRequest, ctx: RunContext): Promise<StoryResult | PremiseResult> {
    return req.op === 'premise' ? this.premise(req, ctx) : this.continueStory(req, ctx);
  }

  private encode(text: string): number[] {
    return this.lm.opened.tokenizer.encode(text, { add_special_tokens: false });
  }

  private decode(ids: readonly number[]): string {
    return this.lm.opened.tokenizer.decode([...ids], { skip_special_tokens: true });
  }

  /**
   * The end of the prompt that fits the model's context with room to write (and `overhead` tokens
   * of chat template around it): where it starts, and its ids.
   */
  private readPrompt(prompt: string, overhead = 0): { usedFrom: number; ids: number[]; total: number | null } {
    const room = Math.max(16, this.lm.contextTokens - CONTINUATION_ROOM - 1 - overhead);
    const all = this.encode(prompt);
    if (all.length <= room) return { usedFrom: 0, ids: all, total: all.length };
    const best = fittingSuffixStart(prompt, (suffix) => this.encode(suffix).length <= room);
    return { usedFrom: best, ids: this.encode(prompt.slice(best)).slice(-room), total: all.length };
  }

  /**
   * The k and temperature that run: a setting the user set, else the model's generation_config,
   * else the built-in story model's (k = 10, 0.8); `ran` says whose each was, for the panel.
   */
  private sampling(req: SamplingOptions | undefined): { sampling: StoryResult['sampling']; ran: DecodingValue[] } {
    const { sampling, ran } = mergeSamplingDefaults(req, this.lm.sampling, OUR_SAMPLING);
    return { sampling: { ...sampling, seed: req?.seed ?? freshSeed() }, ran };
  }

  /** What the panel says of the model, with the sampling values that ran. */
  private externalWith(ran: DecodingValue[]): ExternalModel {
    return { ...this.external(), decoding: ran };
  }

  /** Never a start token or padding in the middle of a story (an end token is never among them). */
  private banned(): number[] {
    return this.lm.banned;
  }

  /**
   * The prompt through the model: the cache after all but its last token, which the sampler feeds
   * first. A plain prompt gets the family's start token; a chat prompt has its own.
   */
  private async prefill(ids: readonly number[], chat = false): Promise<{ state: unknown; first: number }> {
    const start = this.lm.bos !== undefined && !chat ? [this.lm.bos, ...ids] : [...ids];
    if (start.length === 0) start.push(this.lm.eos); // an empty prompt: the model's text start
    if (start.length === 1) return { state: this.lm.step.initial(), first: start[0] };
    const { state } = await this.prefix.read(start.slice(0, -1));
    return { state, first: start[start.length - 1] };
  }

  async continueStory(req: StoryRequest, ctx: RunContext): Promise<StoryResult> {
    if (req.inline) return this.suggest(req, req.inline, ctx);
    const prompt = req.prompt;
    if (!hasReadableText(prompt)) throw new EngineError('bad-input', EMPTY_PROMPT_MESSAGE);
    ctx.progress('Reading the prompt…', 0);
    // An instruct model is asked to continue the story (its chat template around the text); a plain LM
    // continues the text itself.
    const tokenizer = this.lm.opened.tokenizer;
    const overhead = this.lm.chat ? chatPromptIds(tokenizer, 'story', '').length : 0;
    const { usedFrom, ids: textIds, total } = this.readPrompt(prompt, overhead);
    const ids = this.lm.chat ? chatPromptIds(tokenizer, 'story', prompt.slice(usedFrom)) : textIds;
    const { sampling, ran } = this.sampling(req.sampling);
    const words = req.words ?? DEFAULT_WORDS;
    const limit = lengthLimit(Infinity, Math.max(1, this.lm.contextTokens - ids.length - 2));
    const t0 = performance.now();
    const { state, first } = await this.prefill(ids, this.lm.chat);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const stream = tokenStream(
      ctx,
      (t) => this.decode(t),
      (text) => {
        const written = countWords(text);
        return {
          message: `Writing the story with ${this.lm.opened.id} (${written} of ${words} words)…`,
          fraction: written / words,
        };
      },
    );
    const t1 = performance.now();
    const minWords = minimumWords(words);
    const hyp = await this.sample(
      state,
      first,
      sampling,
      limit.maxLength,
      {
        endsBefore: (tokens) => countWords(stream.text(tokens)) > words,
        mayEnd: (tokens) => countWords(stream.text(tokens)) >= minWords,
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t1;
    const continuation = stream.text(hyp.tokens);
    return {
      op: 'story',
      ...promptRead(prompt, usedFrom),
      continuation,
      tokens: stream.spans.slice(0, hyp.tokens.length).map((s) => ({ ...s, gate: null })),
      words,
      ...storyEnding(hyp, continuation, words, limit),
      fusion: false,
      sampling,
      stats: this.stats(total, ids.length, hyp.tokens.length, encodeMs, decodeMs),
      external: {
        ...this.externalWith(ran),
        // Cut to the cap rather than to the model's own context: the panel says what was read.
        ...(usedFrom > 0 && this.lm.contextCapped && total !== null
          ? { contextCut: { usedTokens: textIds.length, totalTokens: total } }
          : {}),
      },
    };
  }

  /**
   * An inline suggestion: a causal LM continues the text before the cursor as it is (its
   * trailing whitespace aside: the first token brings its own space), up to a sentence end; the
   * first token starts a new word or is punctuation after a word, never the rest of the word at the cursor.
   */
  private async suggest(req: StoryRequest, length: InlineLength, ctx: RunContext): Promise<StoryResult> {
    const prompt = req.prompt;
    const own = this.sampling(req.sampling);
    const sampling = { ...own.sampling, seed: req.sampling?.seed ?? seedFromText(prompt) };
    const trimmed = prompt.trimEnd();
    const { usedFrom, ids, total } = this.readPrompt(trimmed);
    const base = {
      op: 'story' as const,
      ...promptRead(prompt, usedFrom),
      words: length.maxWords,
      fusion: false,
      sampling,
      external: this.externalWith(own.ran),
    };
    if (!hasReadableText(prompt) || ids.length === 0) {
      return {
        ...base,
        ...noSuggestion(),
        stats: this.stats(total, ids.length, 0, 0, 0),
      };
    }
    const t0 = performance.now();
    const { state, first } = await this.prefill(ids);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const stream = tokenStream(
      ctx,
      (t) => this.decode(t),
      (text) => ({ message: 'Suggesting…', fraction: countWords(text) / length.maxWords }),
    );
    const afterWord = endsInWord(trimmed);
    const t1 = performance.now();
    const hyp = await this.sample(
      state,
      first,
      sampling,
      Math.max(1, Math.min(4 * length.maxWords + 8, this.lm.contextTokens - ids.length - 2)),
      {
        endsBefore: (tokens) => suggestionEndsBefore(stream.text(tokens.slice(0, -1)), stream.text(tokens), length),
        guard: {
          forRow: (tokens) => {
            if (tokens.length > 0) return () => true;
            // A new word (its own leading space), or punctuation right after a word.
            return (t) => {
              const piece = this.decode([t]);
              return /^\s+\S/u.test(piece) || (afterWord && /^[,.;:!?]/u.test(piece));
            };
          },
        },
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t1;
    const raw = stream.text(hyp.tokens);
    const suggestion = /\s$/u.test(prompt) ? raw.trimStart() : raw;
    return {
      ...base,
      continuation: raw.trim(),
      suggestion: suggestion.trim() ? suggestion : '',
      tokens: stream.spans.slice(0, hyp.tokens.length).map((s) => ({ ...s, gate: null })),
      wordCount: countWords(raw),
      endedBy: hyp.hitMaxLength ? 'length-limit' : countWords(raw) >= length.maxWords ? 'words' : 'end',
      hitMaxLength: null,
      stats: this.stats(total, ids.length, hyp.tokens.length, encodeMs, decodeMs),
    };
  }

  /** A premise: the model's own opening, one or two sentences from the start of a text. */
  async premise(req: PremiseRequest, ctx: RunContext): Promise<PremiseResult> {
    const { sampling, ran } = this.sampling(req.sampling);
    const limit = lengthLimit(PREMISE_TOKENS, Math.max(1, this.lm.contextTokens - 2));
    ctx.progress('Writing a premise…', 0);
    const t0 = performance.now();
    // An instruct model is asked for a premise; a plain LM writes the opening of a text.
    const { state, first } = this.lm.chat
      ? await this.prefill(
          chatPromptIds(this.lm.opened.tokenizer, 'premise', 'Write a premise for a short story.'),
          true,
        )
      : await this.prefill([]);
    // A premise opens a text: no leading space (a byte-level BPE's first piece often has one), in the
    // partial texts the editor appends as they come as in the premise itself.
    const stream = tokenStream(
      ctx,
      (t) => this.decode(t).trimStart(),
      (_text, n) => ({ message: `Writing a premise (${n} tokens)…`, fraction: n / limit.maxLength }),
    );
    const hyp = await this.sample(
      state,
      first,
      sampling,
      limit.maxLength,
      {
        // The premise ends with its first sentence of a few words.
        endsBefore: (tokens) => {
          const text = stream.text(tokens.slice(0, -1));
          return countWords(text) >= 6 && /[.!?]["'”’)]?\s*$/.test(text);
        },
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t0;
    return {
      op: 'premise',
      premise: stream.text(hyp.tokens).trim(),
      hitMaxLength: maxLengthHit(hyp, limit),
      sampling,
      stats: this.stats(0, 0, hyp.tokens.length, 0, decodeMs),
      external: this.externalWith(ran),
    };
  }

  /**
   * Top-k sampling after a prefilled prompt (`first`: its last token, not yet fed), with the
   * request's sampling settings and this model's end and banned tokens; `rules`: where the text
   * ends, when it may, and what each step may write.
   */
  private sample(
    state: unknown,
    first: number,
    sampling: StoryResult['sampling'],
    maxLength: number,
    rules: Pick<TopKOptions, 'endsBefore' | 'mayEnd' | 'guard'>,
    hooks: DecodeHooks,
  ): Promise<Hypothesis> {
    const opts: TopKOptions = {
      bos: first,
      eos: this.lm.eos,
      maxLength,
      k: sampling.topK,
      temperature: sampling.temperature,
      seed: sampling.seed,
      minLength: 1,
      banned: this.banned(),
      ...rules,
    };
    return topKSample(this.lm.step, state, opts, hooks);
  }

  private stats(
    inputTokens: number | null,
    used: number,
    outputTokens: number,
    encodeMs: number,
    decodeMs: number,
  ): StoryResult['stats'] {
    return {
      inputTokens,
      usedInputTokens: used,
      outputTokens,
      encodeMs,
      decodeMs,
      tokensPerSecond: (outputTokens + 1) / Math.max(decodeMs / 1000, 1e-6),
      device: this.lm.opened.device,
      model: this.lm.opened.id,
    };
  }
}
