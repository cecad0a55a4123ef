/**
 * Expand Topic Words into Essay: PC-SAN (Lin et al. 2020). The encoder graph runs the pretrained
 * encoder over the topic words joined into one input, the DynamicWeightedSum of its layers for every
 * decoder layer (Eq. 2), joined with the topics' word vectors, and the decoder's cross-attention
 * projections; the decoder graph is one step of the decoder whose self-attention queries see the
 * target-side history (ContextualSelfAttention, Eqs. 8-12), carried as a running sum. Decoding is
 * beam search with beam 5, as in the paper (decode/beam.ts).
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { EssayRequest, EssayResult } from '../../protocol';
import { beamSearch } from '../decode/beam';
import { constrainedBeamSearch } from '../decode/constrainedBeam';
import { decodingGuard, guardSetup, type GuardSetup } from './decodingGuards';
import type { StepModel } from '../decode/types';
import { EngineError, errorMessage } from '../errors';
import { porterStem } from '../metrics/porterStemmer';
import { Manifest } from '../runtime/manifest';
import { checkIO, float32Tensor, floatData, int64Tensor, Tensor, TensorSpec } from '../runtime/onnx';
import { cacheSpecs, crossAttentionSpecs, LayerCaches, reorderCaches } from '../runtime/layerCaches';
import { reorderAxis } from '../runtime/tensorOps';
import { ask, whereText } from '../text/origin';
import { noKnownLetter, scriptShare } from '../text/reader';
import { parseTopics } from '../text/topics';
import type { RunContext, RuntimeOptions } from './context';
import { EncoderDecoderSystem, openEncoderDecoder, type OpenedEncoderDecoder } from './encoderDecoder';
import type { System } from './system';
import { maxLengthHit } from './lengthLimit';
import { beamDecoding, neverWritten } from './decodingOptions';

// Kept importable from here, where the rest of the essay logic is.
export { parseTopics };

type Pcsan = Extract<Manifest['architecture'], { type: 'pcsan-encoder-decoder' }>;

/** The model was trained on five topic words; a few more still work, fifty do not. */
export const MAX_TOPICS = 10;
/** A topic word or short phrase; anything longer is not one (and would only slow the tokenizer down). */
export const MAX_TOPIC_CHARS = 64;

/**
 * The request's topic words, refused when there are none, more than MAX_TOPICS, or one longer than
 * MAX_TOPIC_CHARS. `tooMany`: what the model adds to the message about too many.
 */
export function checkedTopics(req: EssayRequest, tooMany = ''): string[] {
  const topics = parseTopics(req.topics);
  if (topics.length === 0)
    throw new EngineError(
      'bad-input',
      `${ask(req.origin)} a few topic words (for example "bee, swallow, geese, flower, frog"): ` +
        `${whereText(req.origin)} has no words.`,
    );
  if (topics.length > MAX_TOPICS)
    throw new EngineError(
      'bad-input',
      `${ask(req.origin)} at most ${MAX_TOPICS} topic words; ${whereText(req.origin)} has ${topics.length}.${tooMany}`,
    );
  const tooLong = topics.find((t) => t.length > MAX_TOPIC_CHARS);
  if (tooLong)
    throw new EngineError(
      'bad-input',
      `A topic word is too long (${tooLong.length} characters; at most ${MAX_TOPIC_CHARS}): ` +
        `"${tooLong.slice(0, 24)}…". ${ask(req.origin)} a few words or short phrases.`,
    );
  return topics;
}

interface DecoderState {
  /** The self-attention caches, one row per beam. */
  past: LayerCaches;
  /** Σ of every decoder layer's inputs so far [L, B, d]: the target-side history of Eq. 8. */
  sum: Float32Array;
  sumDims: number[];
}

const stemsOf = (text: string) => new Set((text.toLowerCase().match(/\p{L}+/gu) ?? []).map(porterStem));

/** The topic words an essay mentions: every word of the topic, or its Porter stem, appears in it. */
export function coveredTopics(essay: string, topics: readonly string[]): string[] {
  const stems = stemsOf(essay);
  return topics.filter((t) => {
    const words = t.toLowerCase().match(/\p{L}+/gu) ?? [];
    return words.length > 0 && words.every((w) => stems.has(porterStem(w)));
  });
}

export class EssaySystem extends EncoderDecoderSystem<Pcsan> implements System<'essay'> {
  private constructor(
    opened: OpenedEncoderDecoder<Pcsan>,
    private readonly wordIndex: ReadonlyMap<string, number>,
    guards: GuardSetup,
  ) {
    super('essay', opened, guards);
  }

  static async load(dir: string, opts: RuntimeOptions): Promise<EssaySystem> {
    const opened = await openEncoderDecoder(dir, 'essay', ['pcsan-encoder-decoder'], 'PC-SAN', opts);
    const { loaded, enc, dec } = opened;
    const { folder, arch, tokenizer } = loaded;
    const ids: TensorSpec = { type: 'int64', dims: [null, null] };
    const { keyValues, layerCache } = crossAttentionSpecs(arch);
    const contextSum: TensorSpec = { type: 'float32', dims: [arch.decoderLayers, null, arch.dModel] };
    const sourceContext: TensorSpec = { type: 'float32', dims: [null, arch.dModel] };
    checkIO(
      enc.session,
      folder.file('encoder'),
      { input_ids: ids, word_ids: ids, attention_mask: ids },
      {
        cross_key_values: keyValues,
        memory_mask: ids,
        source_context: sourceContext,
        layer_weights: { type: 'float32', dims: [arch.decoderLayers, arch.encoderLayers + 1] },
      },
    );
    // source_context feeds only the -Source-context ablation (the exporter drops an unused input);
    // source_ids only a model that copies topic subwords.
    checkIO(
      dec.session,
      folder.file('decoder'),
      {
        input_ids: { type: 'int64', dims: [null, 1] },
        memory_mask: ids,
        past_context_sum: contextSum,
        ...cacheSpecs('cross_key_values', arch.decoderLayers, layerCache),
        ...cacheSpecs('past_key_values', arch.decoderLayers, layerCache),
        ...(arch.context === 'source' ? { source_context: sourceContext } : {}),
        ...(arch.copy ? { source_ids: ids } : {}),
      },
      {
        log_probs: { type: 'float32', dims: [null, arch.vocabSize] },
        present_context_sum: contextSum,
        ...cacheSpecs('present', arch.decoderLayers, layerCache),
      },
    );
    let words: string[];
    try {
      words = z.array(z.string()).parse(JSON.parse(await fs.readFile(folder.file('words'), 'utf8')));
    } catch (e) {
      throw new EngineError(
        'bad-model',
        `${folder.file('words')} is not a list of words: ${errorMessage(e).split('\n')[0]}`,
      );
    }
    opts.log('info', `essay model "${folder.manifest.name}" loaded from ${dir} on ${enc.provider}`);
    return new EssaySystem(opened, new Map(words.map((w, i) => [w, i + 1])), await guardSetup(folder, tokenizer));
  }

  /** The topic words joined into ONE input, as training did (essay.py encode_topics): each word's
   * subwords, the separator between words; every subword carries its word's vector index. */
  private joinTopics(topics: readonly string[]): { ids: number[]; wordIds: number[] } {
    const ids: number[] = [];
    const wordIds: number[] = [];
    topics.forEach((t, i) => {
      if (i > 0) {
        ids.push(this.arch.separatorId);
        wordIds.push(0);
      }
      const pieces = this.tokenizer.encode(t);
      for (const id of pieces) ids.push(id); // not push(...pieces): a long word would overflow the stack
      for (let k = 0; k < pieces.length; k++) wordIds.push(this.wordIndex.get(t.toLowerCase()) ?? 0);
    });
    return { ids, wordIds };
  }

  /**
   * The token spellings of a topic word as the essay may write it: as selected, lower case, and
   * capitalised (a sentence start).
   */
  private spellings(topic: string): number[][] {
    const forms = new Set([topic, topic.toLowerCase(), topic.charAt(0).toUpperCase() + topic.slice(1)]);
    return [...forms].map((f) => this.tokenizer.encode(f)).filter((ids) => ids.length > 0);
  }

  async run(req: EssayRequest, ctx: RunContext): Promise<EssayResult> {
    const selected = checkedTopics(req, ' The model was trained on five.');
    // A word in a script the vocabulary lacks encodes to the unknown piece only: it would feed the
    // model noise, so it is left out and reported.
    const unk = this.folder.manifest.specialTokens.unk;
    const skippedTopics = selected.filter((t) => noKnownLetter(scriptShare(t, this.tokenizer.encodeWithSpans(t), unk)));
    const topics = selected.filter((t) => !skippedTopics.includes(t));
    if (topics.length === 0) {
      throw new EngineError(
        'bad-input',
        `The essay model reads English words only, and knows none of the letters in ` +
          `"${skippedTopics.join(', ')}". ${ask(req.origin)} English topic words.`,
      );
    }
    const m = this.folder.manifest;
    const { ids, wordIds } = this.joinTopics(topics);
    if (ids.length > m.maxInputTokens)
      throw new EngineError(
        'bad-input',
        `The topic words are too long together (${ids.length} subwords; at most ${m.maxInputTokens}).`,
      );
    ctx.progress('Reading the topic words…', 0);
    const t0 = performance.now();
    const enc = await this.encode(ids, wordIds);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const d = beamDecoding(m.decoding, req.decoding, this.arch.maxTargetPositions - 1);
    const wanted = req.candidates ?? 1;
    const K = Math.max(d.beamSize, wanted);
    const model = this.stepModel(enc, ids);
    const L = this.arch.decoderLayers;
    const dModel = this.arch.dModel;
    const { limit, maxLength } = d;
    const t1 = performance.now();
    const special = m.specialTokens;
    const start = {
      past: this.emptyCaches(K),
      sum: new Float32Array(L * K * dModel),
      sumDims: [L, K, dModel],
    };
    const beam = {
      bos: special.bos,
      eos: special.eos,
      beamSize: K,
      maxLength,
      minLength: d.minLength,
      lengthPenalty: d.lengthPenalty,
      noRepeatNgramSize: d.noRepeatNgramSize,
      banned: neverWritten(special),
      // The topic words are the input: the guards let the essay write them.
      guard: decodingGuard(this.guards, req.guards, topics.join(' '), undefined, { sourceNames: true }),
    };
    const hooks = {
      clock: ctx.clock,
      checkCancelled: () => ctx.checkCancelled(),
      onStep: (step: number, best: number[]) => {
        ctx.progress(`Writing the essay (${step + 1} tokens)…`, Math.min(0.95, (step + 1) / maxLength));
        if (step % 8 === 0) ctx.partial(this.tokenizer.decode(best));
      },
    };
    // The paper decodes with plain beam search; a writer asked for an essay that covers all the
    // words, so by default each topic word is a lexical constraint (the model still writes every token).
    const hyps =
      req.includeAllTopics === false
        ? await beamSearch(model, start, beam, hooks)
        : await constrainedBeamSearch(
            model,
            start,
            topics.map((t) => this.spellings(t)),
            { ...beam, endsWord: (t) => this.tokenizer.endsWord(t) },
            hooks,
          );
    const decodeMs = performance.now() - t1;
    const seen = new Set<string>();
    const candidates = hyps
      .map((h) => ({
        text: this.tokenizer.decode(h.tokens),
        logProb: h.logProb,
        score: h.score,
        hitMaxLength: maxLengthHit(h, limit),
      }))
      .filter((c) => c.text.length > 0 && !seen.has(c.text) && seen.add(c.text))
      .slice(0, wanted)
      .map((c) => ({ ...c, covered: coveredTopics(c.text, topics) }));
    if (candidates.length === 0) throw new EngineError('internal', 'The model produced an empty essay.');
    const lw = floatData(enc.layer_weights, 'layer_weights');
    const S = this.arch.encoderLayers + 1;
    const steps = (hyps[0]?.tokens.length ?? 0) + 1;
    return {
      op: 'essay',
      topics,
      unknownTopics: topics.filter((t) => !this.wordIndex.has(t.toLowerCase())),
      skippedTopics,
      candidates,
      layerWeights: Array.from({ length: L }, (_, l) => Array.from(lw.subarray(l * S, (l + 1) * S))),
      encoderLayers: ['embeddings', ...Array.from({ length: S - 1 }, (_, i) => `layer ${i + 1}`)],
      stats: {
        inputTokens: ids.length,
        usedInputTokens: ids.length,
        outputTokens: hyps[0]?.tokens.length ?? 0,
        encodeMs,
        decodeMs,
        tokensPerSecond: steps / (decodeMs / 1000),
        device: this.device,
        model: m.name,
      },
    };
  }

  private encode(ids: readonly number[], wordIds: readonly number[]): Promise<Record<string, Tensor>> {
    return this.encoder.run({
      input_ids: int64Tensor(ids, [1, ids.length]),
      word_ids: int64Tensor(wordIds, [1, ids.length]),
      attention_mask: int64Tensor(
        ids.map(() => 1),
        [1, ids.length],
      ),
    });
  }

  /** The topic words joined as run() joins them: subword ids and word-vector indices. */
  topicIds(topics: string): { ids: number[]; wordIds: number[] } {
    return this.joinTopics(parseTopics(topics));
  }

  /**
   * The decoder over one row for the joined topic words, encoded, at its start state: what bench/
   * drives with decode/sampling.ts to compare our loop with the bare session calls and with another runtime.
   */
  async decoderFor(
    ids: number[],
    wordIds: number[],
  ): Promise<{ model: StepModel<DecoderState>; state: DecoderState; bos: number }> {
    const a = this.arch;
    const state = {
      past: this.emptyCaches(1),
      sum: new Float32Array(a.decoderLayers * a.dModel),
      sumDims: [a.decoderLayers, 1, a.dModel],
    };
    return {
      model: this.stepModel(await this.encode(ids, wordIds), ids),
      state,
      bos: this.folder.manifest.specialTokens.bos,
    };
  }

  /**
   * The decoder as a StepModel over K rows (beams). They share one copy of the encoded topics: the
   * decoder broadcasts the memory's single row over the beams, so it is neither tiled nor copied.
   */
  private stepModel(enc: Record<string, Tensor>, ids: readonly number[]): StepModel<DecoderState> {
    const cross = enc.cross_key_values;
    const sourceContext = enc.source_context;
    if (!cross || !sourceContext || !enc.memory_mask) throw new EngineError('bad-model', 'encoder outputs are missing');
    const T = enc.memory_mask.dims[1];
    const mask = int64Tensor(new Array<number>(T).fill(1), [1, T]);
    const feeds = this.sourceFeeds(mask, cross, this.arch.copy ? ids : undefined);
    if (this.arch.context === 'source') feeds.source_context = sourceContext;
    return {
      vocabSize: this.arch.vocabSize,
      step: async (tokens, state) => {
        const contextSum = { past_context_sum: float32Tensor(state.sum, state.sumDims) };
        const { logProbs, past, out } = await this.decoderStep({ ...feeds, ...contextSum }, tokens, state.past);
        const sum = out.present_context_sum as Tensor;
        return { logProbs, state: { past, sum: floatData(sum, 'present_context_sum'), sumDims: sum.dims.slice() } };
      },
      reorder(state, rows) {
        const s = reorderAxis(state.sum, state.sumDims, 1, rows);
        return { past: reorderCaches(state.past, rows), sum: s.data, sumDims: s.dims };
      },
    };
  }
}
