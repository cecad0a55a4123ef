/**
 * Continue Story from Prompt: hierarchical story generation with fusion (Fan, Lewis & Dauphin 2018).
 *
 * premise.onnx   the language model that writes a premise when the writer has none (section 3.1, the
 *                hierarchical first step: GCNN + self-attention, or the shared backbone), ending at its
 *                end-of-prompt token;
 * encoder.onnx   the gated convolutional encoder over the prompt + </s> (section 3.2), for the fused
 *                model and for the frozen pretrained one (a convolutional seq2seq's encoder, or the
 *                backbone's key/value cache of the prompt);
 * decoder.onnx   one step of the convolutional seq2seq decoder with gated multi-scale self-attention
 *                (3.3), fused with the frozen pretrained seq2seq (3.4): log-probs and the fusion gates.
 *
 * Every step graph takes its incremental state as past_* inputs and returns it as present_*
 * outputs (a causal convolution's last k-1 inputs, self-attention's earlier keys and values); the
 * manifest lists each tensor with its initial shape, so the state is fed back without knowing its
 * layout. Decoding is top-k random sampling with k = 10 and a temperature (section 5.3, decode/sampling.ts),
 * streamed to the caller one token at a time. Names follow models/train/draftsmith_train/gconv.py.
 */
import * as path from 'node:path';
import type {
  FusionGate,
  GeneratedToken,
  PremiseRequest,
  PremiseResult,
  SamplingOptions,
  StoryRequest,
  StoryResult,
} from '../../protocol';
import type { RowGuard } from '../decode/guards';
import { topKSample } from '../decode/sampling';
import { decodingGuard, guardSetup, type GuardSetup } from './decodingGuards';
import type { DecodeHooks, Hypothesis, StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { Manifest, ModelFolder, StateTensor } from '../runtime/manifest';
import {
  checkIO,
  float32Tensor,
  floatData,
  int64Tensor,
  openSession,
  Session,
  Tensor,
  TensorSpec,
} from '../runtime/onnx';
import { hasReadableText, mostlyUnknownScript, noKnownLetter, scriptShare } from '../text/reader';
import { Tokenizer } from '../text/tokenizer';
import { countWords } from '../text/words';
import type { RunContext, RuntimeOptions } from './context';
import { FolderSystem, loadFolderModel, releaseOnce, type System } from './system';
import { lengthLimit, maxLengthHit, type LengthLimit } from './lengthLimit';
import { neverWritten } from './decodingOptions';
import { tokenStream } from './tokenStream';
import {
  endsInWord,
  seedFromText,
  splitAtSentence,
  suggestionEndsBefore,
  suggestionText,
  type InlineLength,
} from './inlineText';

/** sentencepiece's word-start mark. */
const SPACE = '\u2581';

type StoryArch = Extract<Manifest['architecture'], { type: 'story-conv-seq2seq' }>;

/** A step graph's incremental state: every past_* tensor, and the position of the next token fed. */
export interface StepState {
  past: Record<string, Tensor>;
  position: number;
}

export const EMPTY_PROMPT_MESSAGE =
  'There is no prompt to continue. Write a premise first (Draftsmith: Write a Premise, or draftsmith story ' +
  '--premise), or type the opening of a story.';

const presentName = (past: string) => past.replace(/past_/, 'present_');

/** The engine's check of a state tensor: the batch axis and a growing past (0 to start) take any size. */
function stateSpec(s: StateTensor): TensorSpec {
  return { type: 'float32', dims: s.shape.map((d) => (d === 'batch' || d === 0 ? null : d)) };
}

/**
 * What the encoder hands the decoder for fusion's frozen half: a Conv seq2seq's encoder outputs, or the
 * backbone's key/value cache over the prompt [layers, 2, batch, heads, source, head size].
 */
function pretrainedEncoded(pretrained: StoryArch['pretrained']): Record<string, TensorSpec> {
  if (!pretrained) return {};
  if ('type' in pretrained) {
    const { layers, heads, embedDim } = pretrained;
    return {
      pretrained_prompt_key_values: { type: 'float32', dims: [layers, 2, null, heads, null, embedDim / heads] },
    };
  }
  return {
    pretrained_encoder_keys: { type: 'float32', dims: [null, null, pretrained.embedDim] },
    pretrained_encoder_values: { type: 'float32', dims: [null, null, pretrained.embedDim] },
  };
}

/** Zeros of every state tensor's initial shape, for one row (an empty self-attention past). */
function initialState(state: readonly StateTensor[]): StepState {
  const past: Record<string, Tensor> = {};
  for (const s of state) {
    const dims = s.shape.map((d) => (d === 'batch' ? 1 : d));
    past[s.name] = float32Tensor(new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);
  }
  return { past, position: 0 };
}

/**
 * The least share of the words asked for that a continuation has before it may end (within 20 %
 * of the length asked): the end token is never sampled before (min_new_tokens, in words).
 */
export const MIN_WORDS_SHARE = 0.85;

/** Within this many tokens of the model's longest story, the story may end however short it is. */
const END_ROOM_TOKENS = 24;

/** The fewest words a continuation of `words` words may have, unless the user stops it. */
export const minimumWords = (words: number) => Math.max(1, Math.ceil(MIN_WORDS_SHARE * words));

/** A seed for a request that named none (reported in the result, so the text can be written again). */
/** What a story result says of its prompt: the part the model read (from usedFrom on), and the whole's length. */
export function promptRead(
  prompt: string,
  usedFrom: number,
): Pick<StoryResult, 'usedPrompt' | 'truncated' | 'promptChars' | 'usedFrom'> {
  return { usedPrompt: prompt.slice(usedFrom), truncated: usedFrom > 0, promptChars: prompt.length, usedFrom };
}

/** How a written continuation ended: the words asked for, the model's end, or the length limit. */
export function storyEnding(
  hyp: Pick<Hypothesis, 'hitMaxLength'>,
  continuation: string,
  words: number,
  limit: LengthLimit,
): Pick<StoryResult, 'wordCount' | 'endedBy' | 'hitMaxLength'> {
  const wordCount = countWords(continuation);
  return {
    wordCount,
    endedBy: hyp.hitMaxLength ? 'length-limit' : wordCount >= words ? 'words' : 'end',
    hitMaxLength: maxLengthHit(hyp, limit),
  };
}

/** An inline request's answer when there is nothing to suggest. */
export function noSuggestion(): Pick<
  StoryResult,
  'continuation' | 'suggestion' | 'tokens' | 'wordCount' | 'endedBy' | 'hitMaxLength'
> {
  return { continuation: '', suggestion: '', tokens: [], wordCount: 0, endedBy: 'end', hitMaxLength: null };
}

export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 32);
}

export class StorySystem extends FolderSystem implements System<'story' | 'premise'> {
  private constructor(
    folder: ModelFolder,
    private readonly arch: StoryArch,
    private readonly tokenizer: Tokenizer,
    private readonly encoder: Session,
    private readonly decoder: Session,
    private readonly premiseLm: Session,
    device: string,
    guards: GuardSetup,
  ) {
    super('story', folder, device, guards);
  }

  static async load(dir: string, opts: RuntimeOptions): Promise<StorySystem> {
    const { folder, arch, tokenizer } = await loadFolderModel(dir, 'story', ['story-conv-seq2seq'], 'story');
    const manifestPath = path.join(dir, 'model.json');
    if (arch.fusion && !arch.pretrained)
      throw new EngineError(
        'bad-model',
        `${manifestPath}: a fusion model needs architecture.pretrained (the frozen seq2seq's shape)`,
      );
    if (arch.premise.vocabSize !== arch.vocabSize) {
      throw new EngineError(
        'bad-model',
        `${manifestPath}: the premise model's vocabulary (${arch.premise.vocabSize}) is not the story model's ` +
          `(${arch.vocabSize}); they share one tokenizer`,
      );
    }
    const enc = await openSession(folder.file('encoder'), opts);
    const dec = await openSession(folder.file('decoder'), opts);
    const pre = await openSession(folder.file('premise'), opts);
    const ids: TensorSpec = { type: 'int64', dims: [null, null] };
    const step = {
      input_ids: { type: 'int64', dims: [null, 1] },
      position: { type: 'int64', dims: [1] },
    } satisfies Record<string, TensorSpec>;
    const encoded: Record<string, TensorSpec> = {
      encoder_keys: { type: 'float32', dims: [null, null, arch.embedDim] },
      encoder_values: { type: 'float32', dims: [null, null, arch.embedDim] },
      ...pretrainedEncoded(arch.pretrained),
    };
    const pasts = (state: readonly StateTensor[]) => Object.fromEntries(state.map((s) => [s.name, stateSpec(s)]));
    const presents = (state: readonly StateTensor[]) =>
      Object.fromEntries(state.map((s) => [presentName(s.name), stateSpec(s)]));
    // Each graph must need no input the step loop does not feed (a decoder in the premise's place would).
    checkIO(enc.session, folder.file('encoder'), { input_ids: ids, attention_mask: ids }, encoded, true);
    checkIO(
      dec.session,
      folder.file('decoder'),
      { ...step, attention_mask: ids, ...encoded, ...pasts(arch.state) },
      {
        log_probs: { type: 'float32', dims: [null, arch.vocabSize] },
        ...(arch.fusion ? { fusion_gates: { type: 'float32', dims: [null, 2] } } : {}),
        ...presents(arch.state),
      },
      true,
    );
    checkIO(
      pre.session,
      folder.file('premise'),
      { ...step, ...pasts(arch.premise.state) },
      { log_probs: { type: 'float32', dims: [null, arch.premise.vocabSize] }, ...presents(arch.premise.state) },
      true,
    );
    opts.log(
      'info',
      `story model "${folder.manifest.name}" loaded from ${dir} on ${enc.provider}${arch.fusion ? ' (fusion)' : ''}`,
    );
    return new StorySystem(
      folder,
      arch,
      tokenizer,
      enc.session,
      dec.session,
      pre.session,
      enc.provider,
      await guardSetup(folder, tokenizer),
    );
  }

  /** What teacher forcing needs besides storyModel (perplexity, prompt ranking: eval/storyLikelihood.ts). */
  get forcing(): { tokenizer: Tokenizer; manifest: Manifest; arch: StoryArch } {
    return { tokenizer: this.tokenizer, manifest: this.folder.manifest, arch: this.arch };
  }

  /** The longest story one command writes, in tokens: what the model was trained to write, within its positions. */
  get maxStoryTokens(): number {
    return Math.min(this.arch.maxTargetTokens, this.arch.maxTargetPositions - 1);
  }

  readonly dispose = releaseOnce(() => [this.encoder, this.decoder, this.premiseLm]);

  /** The hierarchical first step: the premise model samples a writing prompt up to its end-of-prompt token. */
  async premise(req: PremiseRequest, ctx: RunContext): Promise<PremiseResult> {
    const sampling = this.sampling(req.sampling);
    const limit = lengthLimit(this.arch.premise.maxTokens, this.arch.premise.maxTargetPositions - 1);
    ctx.progress('Writing a premise…', 0);
    const t0 = performance.now();
    const { model, start } = this.premiseModel();
    const stream = tokenStream(
      ctx,
      (ids) => this.tokenizer.decode([...ids]),
      (_text, n) => ({ message: `Writing a premise (${n} tokens)…`, fraction: n / limit.maxLength }),
    );
    const hyp = await this.sample(
      model,
      start,
      {
        ...sampling,
        eos: this.arch.premise.endOfPromptId,
        maxLength: limit.maxLength,
        guard: decodingGuard({ ...this.guards, eos: this.arch.premise.endOfPromptId }, req.guards, ''),
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t0;
    return {
      op: 'premise',
      premise: stream.text(hyp.tokens),
      hitMaxLength: maxLengthHit(hyp, limit),
      sampling,
      stats: this.stats({ inputTokens: 0, usedInputTokens: 0, outputTokens: hyp.tokens.length, encodeMs: 0, decodeMs }),
    };
  }

  /**
   * Both steps of the hierarchy answer through run: a story request continues a prompt, a premise request writes one.
   */
  run(req: StoryRequest, ctx: RunContext): Promise<StoryResult>;
  run(req: PremiseRequest, ctx: RunContext): Promise<PremiseResult>;
  run(req: StoryRequest | PremiseRequest, ctx: RunContext): Promise<StoryResult | PremiseResult>;
  run(req: StoryRequest | PremiseRequest, ctx: RunContext): Promise<StoryResult | PremiseResult> {
    return req.op === 'premise' ? this.premise(req, ctx) : this.continueStory(req, ctx);
  }

  /** The story from a prompt (or the story so far): the end of it that fits, continued by top-k sampling. */
  async continueStory(req: StoryRequest, ctx: RunContext): Promise<StoryResult> {
    if (req.inline) return this.suggest(req, req.inline, ctx);
    const prompt = req.prompt;
    if (!hasReadableText(prompt)) throw new EngineError('bad-input', EMPTY_PROMPT_MESSAGE);
    const m = this.folder.manifest;
    ctx.progress('Reading the prompt…', 0);
    // A story so far that is longer than the model reads is continued from its end.
    const { used, truncated, usedFrom, sourceIds, read } = this.readSource(prompt);
    // Refused when the model knows no letter of what it reads (digits and symbols only, or another
    // script), or most of them are another script's (text/reader.ts scriptShare).
    const script = scriptShare(used.length > 0 ? prompt.slice(used[0].start) : '', used, m.specialTokens.unk);
    if (used.length === 0 || noKnownLetter(script) || mostlyUnknownScript(script)) {
      throw new EngineError(
        'bad-input',
        'The story model reads English only, and knows too few of the words at the end of the prompt. Write ' +
          'the prompt in English.',
      );
    }

    const sampling = this.sampling(req.sampling);
    const words = req.words ?? this.arch.defaultWords;
    // The length is asked in words only; in tokens the one limit is the longest story the model was
    // trained to write, which no setting raises.
    const limit = lengthLimit(Infinity, this.maxStoryTokens);
    const t0 = performance.now();
    const { model, start, gates } = await this.storyModel(sourceIds);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const t1 = performance.now();
    const stream = tokenStream(
      ctx,
      (ids) => this.tokenizer.decode([...ids]),
      (text) => {
        const written = countWords(text);
        return { message: `Writing the story (${written} of ${words} words)…`, fraction: written / words };
      },
    );
    const minWords = minimumWords(words);
    const hyp = await this.sample(
      model,
      start,
      {
        ...sampling,
        eos: m.specialTokens.eos,
        maxLength: limit.maxLength,
        // The length asked for, in words: a token that starts word `words + 1` ends the story before it,
        // and the model may not end it before minWords.
        endsBefore: (tokens) => countWords(stream.text(tokens)) > words,
        // (or before the last tokens the model can write: a length beyond them is not held to).
        mayEnd: (tokens) =>
          tokens.length >= limit.maxLength - END_ROOM_TOKENS || countWords(stream.text(tokens)) >= minWords,
        // The guards let the story use the prompt's words (names, places).
        guard: decodingGuard(this.guards, req.guards, prompt.slice(usedFrom)),
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t1;
    const continuation = stream.text(hyp.tokens);
    const tokens: GeneratedToken[] = stream.spans
      .slice(0, hyp.tokens.length)
      .map((s, i) => ({ ...s, gate: gates[i] ?? null }));
    return {
      op: 'story',
      ...promptRead(prompt, usedFrom),
      truncated,
      continuation,
      tokens,
      words,
      ...storyEnding(hyp, continuation, words, limit),
      fusion: this.arch.fusion,
      sampling,
      stats: this.stats({ ...read, outputTokens: hyp.tokens.length, encodeMs, decodeMs }),
    };
  }

  /**
   * The end of `text` the encoder reads (story.encode_source): its last pieces that fit, then </s>
   * where the model was trained with it. `usedFrom`: where in `text` the part read begins; `read`:
   * the pieces in the whole text (null when it was not read to its start) and those used.
   */
  private readSource(text: string) {
    const m = this.folder.manifest;
    const room = Math.min(m.maxInputTokens, this.arch.maxSourcePositions) - (this.arch.sourceEndsWithEos ? 1 : 0);
    const { spans, complete } = this.tokenizer.encodeSuffix(text, room + 1);
    const used = spans.slice(-room);
    const truncated = used.length < spans.length || !complete;
    return {
      used,
      truncated,
      usedFrom: used.length > 0 && truncated ? used[0].start : 0,
      sourceIds: [...used.map((s) => s.id), ...(this.arch.sourceEndsWithEos ? [m.specialTokens.eos] : [])],
      read: { inputTokens: complete ? spans.length : null, usedInputTokens: used.length },
    };
  }

  /** The last source encoded for a suggestion, and the decoder state after the sentence so far. */
  private inlineCache?: { source: string; fixed: Record<string, Tensor>; fed: number[]; state: StepState };

  /**
   * An inline suggestion: the complete sentences before the cursor are the source (the
   * story so far), the sentence being written is fed to the decoder as the start of its story
   * (teacher forcing), and the rest is sampled up to a sentence end. While the writer types on
   * inside one sentence the source is unchanged: its encoder output, and the decoder state after
   * the words already fed, are reused and only the new words are fed.
   */
  private async suggest(req: StoryRequest, length: InlineLength, ctx: RunContext): Promise<StoryResult> {
    const prompt = req.prompt;
    const m = this.folder.manifest;
    const sampling = { ...this.sampling(req.sampling), seed: req.sampling?.seed ?? seedFromText(prompt) };
    const { context, partial } = splitAtSentence(prompt);
    const sourceText = hasReadableText(context) ? context : prompt;
    const { used, usedFrom, sourceIds, read } = this.readSource(sourceText);
    const limit = this.maxStoryTokens;
    const base = {
      op: 'story' as const,
      ...promptRead(prompt, usedFrom),
      words: length.maxWords,
      fusion: this.arch.fusion,
      sampling,
    };
    const none = (encodeMs: number): StoryResult => ({
      ...base,
      ...noSuggestion(),
      stats: this.stats({ inputTokens: null, usedInputTokens: used.length, outputTokens: 0, encodeMs, decodeMs: 0 }),
    });
    // Nothing to continue from, or text the model cannot read: no suggestion (not an error: the writer is typing).
    if (used.length === 0 || !hasReadableText(prompt)) return none(0);
    const script = scriptShare(sourceText.slice(used[0].start), used, m.specialTokens.unk);
    if (noKnownLetter(script) || mostlyUnknownScript(script)) return none(0);
    // The sentence so far, as the start of the decoder's story (its latest pieces when it is very long).
    const forced = this.tokenizer.encode(partial.trim()).slice(-Math.max(0, limit - 2 * length.maxWords - 8));
    // The last word may be unfinished ("went to th"): a suggestion would start mid-word, so none. It
    // is finished when the model knows it, or the text used it before (a name).
    const lastWord = /[\p{L}\p{N}'’-]*$/u.exec(prompt)?.[0] ?? '';
    const wordGuard = decodingGuard(this.guards, req.guards, prompt.slice(usedFrom, prompt.length - lastWord.length));
    if (endsInWord(prompt) && forced.length > 0 && wordGuard?.complete && !wordGuard.complete(forced)) return none(0);

    const t0 = performance.now();
    const key = sourceIds.join(',');
    let cache = this.inlineCache;
    if (cache?.source !== key) {
      cache = { source: key, fixed: await this.encode(sourceIds), fed: [], state: initialState(this.arch.state) };
    }
    // The decoder has read BOS and `fed`; it must read BOS and every forced piece but the last, which sampling feeds.
    const toFeed = [m.specialTokens.bos, ...forced].slice(0, -1);
    const feeding = this.stepModel(this.decoder, this.arch.vocabSize, cache.fixed, () => {});
    if (!(cache.fed.length <= toFeed.length && cache.fed.every((t, i) => toFeed[i] === t)))
      cache = { ...cache, fed: [], state: initialState(this.arch.state) };
    let state = cache.state;
    for (const t of toFeed.slice(cache.fed.length)) {
      ctx.checkCancelled();
      state = (await feeding.step([t], state)).state;
    }
    this.inlineCache = { ...cache, fed: toFeed, state };
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();

    const { model, gates } = this.gatedDecoder(cache.fixed);
    const pieces = this.tokenizer.pieces();
    const t1 = performance.now();
    const stream = tokenStream(
      ctx,
      (ids) => this.tokenizer.decode([...ids]),
      (text) => ({ message: 'Suggesting…', fraction: countWords(text) / length.maxWords }),
    );
    // The repetition rules see the sentence so far ("never the same word twice in a row" across the cursor).
    const inner = decodingGuard(this.guards, req.guards, prompt.slice(usedFrom), forced);
    const hyp = await topKSample(
      model,
      state,
      {
        bos: forced.length > 0 ? forced[forced.length - 1] : m.specialTokens.bos,
        eos: m.specialTokens.eos,
        maxLength: Math.max(1, limit - forced.length),
        k: sampling.topK,
        temperature: sampling.temperature,
        seed: sampling.seed,
        minLength: 1,
        banned: neverWritten(m.specialTokens, this.arch.neverSample),
        endsBefore: (tokens) => suggestionEndsBefore(stream.text(tokens.slice(0, -1)), stream.text(tokens), length),
        // The first piece starts a new word: never glued to the word at the cursor.
        guard: {
          forRow: (tokens) => {
            const allow = inner?.forRow(tokens);
            if (tokens.length > 0) return allow ?? (() => true);
            return (t) => pieces[t]?.startsWith(SPACE) === true && (allow?.(t) ?? true);
          },
        },
      },
      stream.hooks,
    );
    const decodeMs = performance.now() - t1;
    const continuation = stream.text(hyp.tokens);
    return {
      ...base,
      continuation,
      suggestion: suggestionText(prompt, continuation, true),
      tokens: stream.spans.slice(0, hyp.tokens.length).map((s, i) => ({ ...s, gate: gates[i] ?? null })),
      wordCount: countWords(continuation),
      endedBy: hyp.hitMaxLength ? 'length-limit' : countWords(continuation) >= length.maxWords ? 'words' : 'end',
      hitMaxLength: null,
      stats: this.stats({ ...read, outputTokens: hyp.tokens.length, encodeMs, decodeMs }),
    };
  }

  /**
   * The story decoder over one prompt (its ids, </s> included): runs the encoders once and returns
   * the decoder as a StepModel from its initial state. `gates` receives each step's fusion gates
   * (trained, pretrained), in step order; it stays empty without fusion.
   */
  async storyModel(
    sourceIds: readonly number[],
  ): Promise<{ model: StepModel<StepState>; start: StepState; gates: FusionGate[] }> {
    const { model, gates } = this.gatedDecoder(await this.encode(sourceIds));
    return { model, start: initialState(this.arch.state), gates };
  }

  /** The encoders run once over a source: what every decoder step is fed besides its token and state. */
  private async encode(sourceIds: readonly number[]): Promise<Record<string, Tensor>> {
    const S = sourceIds.length;
    const attentionMask = int64Tensor(
      sourceIds.map(() => 1),
      [1, S],
    );
    const encoded = await this.encoder.run({
      input_ids: int64Tensor(sourceIds, [1, S]),
      attention_mask: attentionMask,
    });
    return { attention_mask: attentionMask, ...encoded };
  }

  /** The story decoder over an encoded source, and the fusion gates of each step it takes, in order. */
  private gatedDecoder(fixed: Record<string, Tensor>): { model: StepModel<StepState>; gates: FusionGate[] } {
    const gates: FusionGate[] = [];
    const fusion = this.arch.fusion;
    const model = this.stepModel(this.decoder, this.arch.vocabSize, fixed, (out) => {
      if (!fusion) return;
      const g = floatData(out.fusion_gates, 'fusion_gates');
      gates.push({ trained: g[0], pretrained: g[1] });
    });
    return { model, gates };
  }

  /** The premise language model as a StepModel from its initial state. */
  premiseModel(): { model: StepModel<StepState>; start: StepState } {
    return {
      model: this.stepModel(this.premiseLm, this.arch.premise.vocabSize, {}, () => {}),
      start: initialState(this.arch.premise.state),
    };
  }

  /** One row through a step graph: present_* come back as the next past_*, the position advances. */
  private stepModel(
    session: Session,
    vocabSize: number,
    fixed: Record<string, Tensor>,
    onOutputs: (out: Record<string, Tensor>) => void,
  ): StepModel<StepState> {
    return {
      vocabSize,
      async step(tokens, state) {
        if (tokens.length !== 1)
          throw new EngineError('internal', `the story models sample one row at a time, not ${tokens.length}`);
        const out = await session.run({
          ...fixed,
          ...state.past,
          input_ids: int64Tensor(tokens, [1, 1]),
          position: int64Tensor([state.position], [1]),
        });
        onOutputs(out);
        const past: Record<string, Tensor> = {};
        for (const name of Object.keys(state.past)) {
          const present = out[presentName(name)];
          if (!present) throw new EngineError('bad-model', `the step graph returned no ${presentName(name)}`);
          past[name] = present;
        }
        return {
          logProbs: new Float32Array(floatData(out.log_probs, 'log_probs')),
          state: { past, position: state.position + 1 },
        };
      },
      reorder(state, rows) {
        if (rows.length !== 1 || rows[0] !== 0)
          throw new EngineError('internal', 'the story models sample one row at a time');
        return state;
      },
    };
  }

  private sampling(req: SamplingOptions | undefined): StoryResult['sampling'] {
    const d = this.folder.manifest.decoding;
    return {
      topK: req?.topK ?? d.topK ?? 10,
      temperature: req?.temperature ?? d.temperature ?? 0.8,
      seed: req?.seed ?? freshSeed(),
    };
  }

  /**
   * Top-k sampling (section 5.3: k = 10), never a token the manifest bans (<unk>, padding, <s>, the mask), never empty.
   */
  private sample(
    model: StepModel<StepState>,
    start: StepState,
    o: StoryResult['sampling'] & {
      eos: number;
      maxLength: number;
      endsBefore?: (tokens: readonly number[]) => boolean;
      mayEnd?: (tokens: readonly number[]) => boolean;
      guard?: RowGuard;
    },
    hooks: DecodeHooks,
  ): Promise<Hypothesis> {
    const special = this.folder.manifest.specialTokens;
    const banned = neverWritten(special, this.arch.neverSample);
    return topKSample(
      model,
      start,
      {
        bos: special.bos,
        eos: o.eos,
        maxLength: o.maxLength,
        k: o.topK,
        temperature: o.temperature,
        seed: o.seed,
        minLength: 1,
        banned,
        endsBefore: o.endsBefore,
        mayEnd: o.mayEnd,
        guard: o.guard,
      },
      hooks,
    );
  }

  private stats(s: {
    inputTokens: number | null;
    usedInputTokens: number;
    outputTokens: number;
    encodeMs: number;
    decodeMs: number;
  }): StoryResult['stats'] {
    return {
      ...s,
      tokensPerSecond: (s.outputTokens + 1) / Math.max(s.decodeMs / 1000, 1e-6),
      device: this.device,
      model: this.folder.manifest.name,
    };
  }
}
