/**
 * Summarize Document: TAAS (topic-aware abstractive summarization, Zheng et al. 2020).
 * The encoder graph runs the Transformer encoder, the topic-aware attention (Eqs. 7-12) and the
 * decoder's cross-attention projections of the memory [s; h]; the decoder graph is one step of the
 * Transformer decoder with past key/values (and the pointer-generator mixture when the model has
 * one). Decoding is beam search (decode/beam.ts).
 */
import { EXPERIMENTAL } from './experimental';
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { SummarizeRequest, SummarizeResult } from '../../protocol';
import { beamSearch } from '../decode/beam';
import { decodingGuard, endAtLastSentence, guardSetup, type GuardSetup } from './decodingGuards';
import { forcedLogProbs } from '../decode/forced';
import { YieldClock, type StepModel } from '../decode/types';
import type { LikelihoodModel } from '../metrics/perplexity';
import { EngineError } from '../errors';
import { Manifest } from '../runtime/manifest';
import { checkIO, floatData, int64Tensor, Tensor, TensorSpec } from '../runtime/onnx';
import { cacheSpecs, crossAttentionSpecs, LayerCaches, reorderCaches } from '../runtime/layerCaches';
import type { RunContext, RuntimeOptions } from './context';
import { EncoderDecoderSystem, openEncoderDecoder, type OpenedEncoderDecoder } from './encoderDecoder';
import type { System } from './system';
import { maxLengthHit } from './lengthLimit';
import { beamDecoding, neverWritten } from './decodingOptions';
import { attendedTokens, topPhrases } from './topicAwareAttention';
import { DEFAULT_EXTRACTIVE, extractiveSummary, wordBudget, type ExtractiveOptions } from './extractive';
import { checkReadable, unreadableMessage, type InputTask } from '../text/origin';
import { sentenceSpans } from '../text/reader';
import { readDocument } from '../text/markdown';
import { summarizeSections, type UnitModel } from './sectioned';
import { parseSynopsisWeights, synopsis, type SynopsisWeights } from './synopsis';
import type { AttendedToken } from '../../protocol';

/** What Summarize Document says of text it cannot read (the engine checks it before any model loads). */
export const SUMMARIZE_INPUT: InputTask = {
  nothing: 'There is no text to summarize',
  editorWhere: 'the selection (or document)',
  kind: 'prose',
  outcome: 'nothing was summarized',
};

const Topics = z.object({ topics: z.array(z.object({ id: z.number().int(), words: z.array(z.string()) })) });

/** The decoder's self-attention caches, one row per beam. */
type DecoderState = LayerCaches;

type Taas = Extract<Manifest['architecture'], { type: 'taas-encoder-decoder' }>;

export class SummarizeSystem extends EncoderDecoderSystem<Taas> implements LikelihoodModel, System<'summarize'> {
  private constructor(
    opened: OpenedEncoderDecoder<Taas>,
    private readonly topics: { id: number; words: string[] }[],
    guards: GuardSetup,
    /** The synopsis mode's trained scorer (synopsis.json); a folder without one has no synopsis mode. */
    private readonly synopsisWeights: SynopsisWeights | undefined,
  ) {
    super('summarize', opened, guards);
  }

  static async load(dir: string, opts: RuntimeOptions): Promise<SummarizeSystem> {
    const opened = await openEncoderDecoder(dir, 'summarize', ['taas-encoder-decoder'], 'TAAS', opts);
    const { loaded, enc, dec } = opened;
    const { folder, arch, tokenizer } = loaded;
    const ids: TensorSpec = { type: 'int64', dims: [null, null] };
    const perPosition: TensorSpec = { type: 'float32', dims: [null, null] };
    const { keyValues, layerCache } = crossAttentionSpecs(arch);
    checkIO(
      enc.session,
      folder.file('encoder'),
      { input_ids: ids, attention_mask: ids },
      {
        cross_key_values: keyValues,
        memory_mask: ids,
        topic_attention: perPosition,
        topic_scores: { type: 'float32', dims: [null, arch.numTopics, null] },
      },
    );
    // source_ids feeds the copy mechanism; a model without one has no such input.
    checkIO(
      dec.session,
      folder.file('decoder'),
      {
        input_ids: { type: 'int64', dims: [null, 1] },
        memory_mask: ids,
        ...cacheSpecs('cross_key_values', arch.decoderLayers, layerCache),
        ...cacheSpecs('past_key_values', arch.decoderLayers, layerCache),
        ...(arch.copy ? { source_ids: ids } : {}),
      },
      {
        log_probs: { type: 'float32', dims: [null, arch.vocabSize] },
        cross_attention: perPosition,
        ...cacheSpecs('present', arch.decoderLayers, layerCache),
      },
    );
    let topics: { id: number; words: string[] }[];
    try {
      topics = Topics.parse(JSON.parse(await fs.readFile(folder.file('topics'), 'utf8'))).topics;
    } catch (e) {
      throw new EngineError(
        'bad-model',
        `${folder.file('topics')} is not a valid topics file: ${e instanceof Error ? e.message.split('\n')[0] : e}`,
      );
    }
    let synopsisWeights: SynopsisWeights | undefined;
    if (folder.manifest.files.synopsis) {
      const file = folder.file('synopsis');
      let json: unknown;
      try {
        json = JSON.parse(await fs.readFile(file, 'utf8'));
      } catch (e) {
        throw new EngineError('bad-model', `${file} is not valid JSON: ${e instanceof Error ? e.message : e}`);
      }
      synopsisWeights = parseSynopsisWeights(json, file);
    }
    opts.log('info', `summarize model "${folder.manifest.name}" loaded from ${dir} on ${enc.provider}`);
    return new SummarizeSystem(opened, topics, await guardSetup(folder, tokenizer), synopsisWeights);
  }

  async run(
    req: SummarizeRequest,
    ctx: RunContext,
    extractive: ExtractiveOptions = DEFAULT_EXTRACTIVE,
  ): Promise<SummarizeResult> {
    checkReadable(req.text, SUMMARIZE_INPUT, req.origin);
    // One sentence of the whole document: the attention is read over all of it, section by section or not.
    if (req.mode === 'synopsis') return this.runSynopsis(req, ctx);
    if (req.format) return this.runSectioned(req, ctx, extractive);
    if (req.mode === 'extractive') return (await this.runExtractive(req, ctx, extractive)).result;
    return (await this.runAbstractive(req, ctx)).result;
  }

  /**
   * A whole document, section by section (systems/sectioned.ts): read as Markdown or plain text,
   * each section's prose summarized in parts of one window, the whole from the sections nearest the
   * document's topics. Offsets in the result are the document's.
   */
  private async runSectioned(
    req: SummarizeRequest,
    ctx: RunContext,
    extractive: ExtractiveOptions,
  ): Promise<SummarizeResult> {
    const m = this.folder.manifest;
    const window = Math.min(req.maxInputTokens ?? m.maxInputTokens, m.maxInputTokens, this.arch.maxSourcePositions);
    ctx.progress('Reading the document…', 0);
    const doc = readDocument(req.text, req.format ?? 'plain');
    const unit: UnitModel = {
      window,
      countTokens: (text, limit) => this.tokenizer.encodePrefix(text, limit + 1).spans.length,
      summarize: async (text, c, whole) => {
        const sub: SummarizeRequest = { ...req, text, format: undefined, maxInputTokens: window };
        // The summary of the whole gets the word budget of the whole document, not of the joined summaries.
        const opts = whole
          ? { ...extractive, minWords: Math.max(extractive.minWords, wordBudget(whole.documentWords, extractive)) }
          : extractive;
        const { result, topicMeans } =
          req.mode === 'extractive' ? await this.runExtractive(sub, c, opts) : await this.runAbstractive(sub, c);
        return {
          summary: result.summary,
          extracted: result.extracted?.map(({ start, end }) => ({ start, end })),
          tokens: result.tokens,
          topicMeans,
          hitMaxLength: result.hitMaxLength,
          inputTokens: result.stats.usedInputTokens,
          outputTokens: result.stats.outputTokens,
          encodeMs: result.stats.encodeMs,
          decodeMs: result.stats.decodeMs,
        };
      },
    };
    const t0 = performance.now();
    const s = await summarizeSections(doc, unit, ctx, req.sectionTimeLimitMs);
    const ms = performance.now() - t0;
    return {
      op: 'summarize',
      mode: req.mode === 'extractive' ? 'extractive' : 'abstractive',
      ...(req.mode === 'extractive' ? {} : { experimental: EXPERIMENTAL.abstractiveSummary.note }),
      summary: s.summary,
      source: req.text,
      truncated: false,
      usedChars: req.text.length,
      inputLimit: window,
      hitMaxLength: s.hitMaxLength,
      tokens: s.tokens,
      topPhrases: topPhrases(req.text, s.tokens, 5),
      topics: this.topics,
      ...(s.extracted ? { extracted: s.extracted.map((x) => ({ ...x, score: 0 })) } : {}),
      sections: s.sections,
      readNotes: s.notes,
      stats: {
        inputTokens: s.inputTokens,
        usedInputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        encodeMs: s.encodeMs,
        decodeMs: s.decodeMs,
        tokensPerSecond: s.outputTokens / Math.max(1e-3, ms / 1000),
        device: this.device,
        model: m.name,
      },
    };
  }

  /**
   * Abstractive mode on one window: the encoder, then beam search. topicMeans: per topic, the mean of
   * h_t·P_kᵀ over the tokens read.
   */
  private async runAbstractive(
    req: SummarizeRequest,
    ctx: RunContext,
  ): Promise<{ result: SummarizeResult; topicMeans: Float64Array }> {
    const text = req.text;
    const m = this.folder.manifest;
    const special = m.specialTokens;
    const limit = Math.min(req.maxInputTokens ?? m.maxInputTokens, m.maxInputTokens, this.arch.maxSourcePositions);
    ctx.progress('Reading the text…', 0);
    // A long document is tokenized only as far as the model reads (a megabyte takes ~10 s in full).
    const { spans, complete } = this.tokenizer.encodePrefix(text, limit + 1);
    if (spans.length === 0) throw new EngineError('bad-input', unreadableMessage('empty', SUMMARIZE_INPUT, req.origin));
    // Longer text than the model reads: summarize its beginning (news puts the essentials first) and say so.
    const used = spans.slice(0, limit);
    const truncated = used.length < spans.length || !complete;
    const ids = used.map((s) => s.id);
    const t0 = performance.now();
    const encoded = await this.encode(ids);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();

    const d = beamDecoding(m.decoding, req.decoding, this.arch.maxTargetPositions - 1);
    const K = d.beamSize;
    const model = this.stepModel(encoded, ids);
    const t1 = performance.now();
    let lastPartial = 0;
    const hyps = await beamSearch(
      model,
      this.emptyCaches(K),
      {
        bos: special.bos,
        eos: special.eos,
        beamSize: K,
        maxLength: d.maxLength,
        minLength: d.minLength,
        lengthPenalty: d.lengthPenalty,
        noRepeatNgramSize: d.noRepeatNgramSize,
        banned: neverWritten(special),
        // A summary's names come from its source, as its numbers do (faithful to the source).
        guard: decodingGuard(this.guards, req.guards, text, undefined, { sourceNames: true }),
      },
      {
        clock: ctx.clock,
        checkCancelled: () => ctx.checkCancelled(),
        onStep: (step, best) => {
          ctx.progress(`Writing the summary (${step + 1} tokens)…`, Math.min(0.95, (step + 1) / d.maxLength));
          const now = performance.now();
          if (now - lastPartial > 200) {
            lastPartial = now;
            ctx.partial(this.tokenizer.decode(best));
          }
        },
      },
    );
    const decodeMs = performance.now() - t1;
    const best = hyps[0];
    const written = best ? this.tokenizer.decode(best.tokens) : '';
    // With the guards on, a summary ends at its last whole sentence (cut by the limit or ended early).
    const summary = req.guards !== false ? endAtLastSentence(written) : written;
    if (!summary) {
      // With the guards on, every word the model could write may be a name or number the text lacks
      // ("zA Mlg"): the text gives it nothing to restate, which is the text's limit, not a fault.
      if (req.guards !== false)
        throw new EngineError(
          'bad-input',
          'The abstractive model found nothing in this text it could restate in a whole sentence without ' +
            'inventing names or numbers. The extractive summary (draftsmith.summarize.mode) quotes the text instead.',
        );
      throw new EngineError('internal', 'The model produced an empty summary.');
    }
    const tokens = attendedTokens(used, encoded.alpha);
    const steps = best.tokens.length + 1;
    const result: SummarizeResult = {
      op: 'summarize',
      mode: 'abstractive',
      experimental: EXPERIMENTAL.abstractiveSummary.note,
      summary,
      source: text,
      truncated,
      usedChars: truncated ? used[used.length - 1].end : text.length,
      inputLimit: limit,
      hitMaxLength: maxLengthHit(best, d.limit),
      tokens,
      topPhrases: topPhrases(text, tokens, 5),
      topics: this.topics,
      stats: {
        inputTokens: complete ? spans.length : null,
        usedInputTokens: used.length,
        outputTokens: best.tokens.length,
        encodeMs,
        decodeMs,
        tokensPerSecond: steps / (decodeMs / 1000),
        device: this.device,
        model: m.name,
      },
    };
    return { result, topicMeans: encoded.topicMeans };
  }

  /**
   * Extractive mode (systems/extractive.ts): α over the whole document, then the sentences it
   * weighs most, verbatim and in document order. No decoder runs.
   */
  private async runExtractive(
    req: SummarizeRequest,
    ctx: RunContext,
    opts: ExtractiveOptions,
  ): Promise<{ result: SummarizeResult; topicMeans: Float64Array }> {
    const { result, read } = await this.chooseSentences(req, ctx, 'extractive', (readText, tokens) => {
      const ex = extractiveSummary(readText, tokens, opts);
      const chosen = ex.chosen.map((i) => ex.sentences[i]);
      return {
        summary: ex.summary,
        chosen: chosen.map(({ start, end, score, tokens: n }) => ({ start, end, score, tokens: n })),
      };
    });
    return { result, topicMeans: read.topicMeans };
  }

  /**
   * Synopsis mode (systems/synopsis.ts): α over the whole document as the extractive mode reads it,
   * then the one sentence the trained scorer ranks first, verbatim.
   */
  private async runSynopsis(req: SummarizeRequest, ctx: RunContext): Promise<SummarizeResult> {
    const weights = this.synopsisWeights;
    if (!weights)
      throw new EngineError(
        'bad-model',
        `The summarize model in ${this.folder.dir} has no synopsis scorer (synopsis.json in its model.json's ` +
          `files); use the extractive or abstractive mode.`,
      );
    const { result } = await this.chooseSentences(req, ctx, 'synopsis', (readText, tokens) => {
      const s = synopsis(readText, tokens, weights);
      const one = s.sentences[s.chosen];
      const chosen = one
        ? [{ start: one.start, end: one.end, score: s.scores.get(s.chosen) ?? 0, tokens: one.tokens }]
        : [];
      return { summary: s.summary, chosen };
    });
    return result;
  }

  /**
   * What the extractive and synopsis modes share: α over the whole document, window by window to its
   * end, then `choose`'s sentences, verbatim.
   */
  private async chooseSentences(
    req: SummarizeRequest,
    ctx: RunContext,
    mode: 'extractive' | 'synopsis',
    choose: (
      readText: string,
      tokens: AttendedToken[],
    ) => { summary: string; chosen: { start: number; end: number; score: number; tokens: number }[] },
  ): Promise<{ result: SummarizeResult; read: Awaited<ReturnType<SummarizeSystem['documentAttention']>> }> {
    ctx.progress('Reading the text…', 0);
    const t0 = performance.now();
    const read = await this.documentAttention(req.text, req.maxInputTokens, ctx);
    const encodeMs = performance.now() - t0;
    if (read.tokens.length === 0)
      throw new EngineError('bad-input', unreadableMessage('empty', SUMMARIZE_INPUT, req.origin));
    ctx.progress(
      mode === 'synopsis' ? 'Choosing the sentence…' : 'Choosing the sentences the model attends to most…',
      0.95,
    );
    const t1 = performance.now();
    const text = req.text;
    const { summary, chosen } = choose(text, read.tokens);
    const selectMs = performance.now() - t1;
    if (!summary)
      throw new EngineError(
        'internal',
        `No sentence could be chosen for the ${mode === 'synopsis' ? 'synopsis' : 'summary'}.`,
      );
    const result: SummarizeResult = {
      op: 'summarize',
      mode,
      summary,
      source: text,
      truncated: false,
      usedChars: text.length,
      inputLimit: read.limit,
      hitMaxLength: null,
      tokens: read.tokens,
      topPhrases: topPhrases(text, read.tokens, 5),
      topics: this.topics,
      extracted: chosen.map(({ start, end, score }) => ({ start, end, score })),
      stats: {
        inputTokens: read.inputTokens,
        usedInputTokens: read.tokens.length,
        outputTokens: chosen.reduce((n, c) => n + c.tokens, 0),
        encodeMs,
        decodeMs: selectMs,
        tokensPerSecond: 0,
        device: this.device,
        model: this.folder.manifest.name,
      },
    };
    return { result, read };
  }

  /**
   * TAAS Eq. 11 over a whole document: the encoder reads it window by window (each at most the
   * model's input length, cut at a sentence boundary when one lies in the window), each window gives
   * ā_t = mean_k h_t·P_kᵀ (Eq. 10, the encoder's topic_scores averaged over the K topics), and
   * α = softmax_t(ā) is taken over all the windows' tokens together. For a document that fits one
   * window this is exactly the encoder's topic_attention output.
   */
  async documentAttention(
    text: string,
    maxInputTokens: number | undefined,
    ctx?: RunContext,
  ): Promise<{
    tokens: AttendedToken[];
    abar: Float64Array;
    topicMeans: Float64Array;
    inputTokens: number;
    windows: number;
    /** The tokens of one window. */
    limit: number;
  }> {
    const m = this.folder.manifest;
    const window = Math.min(maxInputTokens ?? m.maxInputTokens, m.maxInputTokens, this.arch.maxSourcePositions);
    // Every token of the text: a document past any number of windows is still read to its end.
    const used = this.tokenizer.encodeWithSpans(text);
    if (used.length === 0)
      return {
        tokens: [],
        abar: new Float64Array(0),
        topicMeans: new Float64Array(this.arch.numTopics),
        inputTokens: 0,
        windows: 0,
        limit: window,
      };
    const usedChars = used[used.length - 1].end;
    // Token i starts a sentence when it lies past the end of the sentence of token i - 1.
    const ends = sentenceSpans(text.slice(0, usedChars)).map((s) => s.end);
    const startsSentence = new Array<boolean>(used.length).fill(false);
    let si = 0;
    used.forEach((t, i) => {
      let moved = false;
      while (si < ends.length && t.start >= ends[si]) {
        si++;
        moved = true;
      }
      startsSentence[i] = i > 0 && moved;
    });
    const cuts: [number, number][] = [];
    let from = 0;
    while (from < used.length) {
      let to = Math.min(used.length, from + window);
      if (to < used.length) {
        let b = to;
        while (b > from + window / 4 && !startsSentence[b]) b--;
        if (startsSentence[b] && b > from) to = b;
      }
      cuts.push([from, to]);
      from = to;
    }
    const abar = new Float64Array(used.length);
    const topicSums = new Float64Array(this.arch.numTopics);
    const clock = ctx?.clock ?? new YieldClock();
    for (const [w, [a, b]] of cuts.entries()) {
      // A turn for the worker's event loop between windows, so that a cancel is seen mid-document.
      await clock.yield();
      ctx?.checkCancelled();
      ctx?.progress(`Reading the text (part ${w + 1} of ${cuts.length})…`, (w / cuts.length) * 0.9);
      const ids = used.slice(a, b).map((s) => s.id);
      const out = await this.encoder.run({
        input_ids: int64Tensor(ids, [1, ids.length]),
        attention_mask: int64Tensor(
          ids.map(() => 1),
          [1, ids.length],
        ),
      });
      const scores = floatData(out.topic_scores, 'topic_scores'); // [1, K, n]
      const n = ids.length;
      const K = scores.length / n;
      for (let t = 0; t < n; t++) {
        let sum = 0;
        for (let k = 0; k < K; k++) {
          sum += scores[k * n + t];
          topicSums[k] += scores[k * n + t];
        }
        abar[a + t] = sum / K;
      }
    }
    let max = -Infinity;
    for (const x of abar) max = Math.max(max, x);
    let z = 0;
    const e = Array.from(abar, (x) => {
      const v = Math.exp(x - max);
      z += v;
      return v;
    });
    const tokens = used.map((s, i) => ({ text: s.text, start: s.start, end: s.end, weight: e[i] / z }));
    const topicMeans = topicSums.map((v) => v / used.length);
    return { tokens, abar, topicMeans, inputTokens: used.length, windows: cuts.length, limit: window };
  }

  /** Runs the encoder once: α per source token (Eq. 11) and the decoder's cross-attention memory. */
  private async encode(
    ids: number[],
  ): Promise<{ alpha: Float32Array; cross: Tensor; memoryMask: Tensor; topicMeans: Float64Array }> {
    const enc = await this.encoder.run({
      input_ids: int64Tensor(ids, [1, ids.length]),
      attention_mask: int64Tensor(
        ids.map(() => 1),
        [1, ids.length],
      ),
    });
    const cross = enc.cross_key_values;
    const memoryMask = enc.memory_mask;
    if (!cross || !memoryMask) throw new EngineError('bad-model', 'encoder outputs are missing');
    // Per topic, the mean over the tokens of h_t·P_kᵀ (Eq. 10's scores): the text's topic distribution
    // before the softmax.
    const scores = floatData(enc.topic_scores, 'topic_scores'); // [1, K, n]
    const n = ids.length;
    const topicMeans = new Float64Array(scores.length / n);
    for (let k = 0; k < topicMeans.length; k++) {
      let sum = 0;
      for (let t = 0; t < n; t++) sum += scores[k * n + t];
      topicMeans[k] = sum / n;
    }
    return { alpha: floatData(enc.topic_attention, 'topic_attention'), cross, memoryMask, topicMeans };
  }

  /**
   * The decoder as a StepModel over K rows (beams). They share one copy of the encoded source:
   * the decoder broadcasts the memory's single row over the beams, so it is neither tiled nor copied.
   */
  private stepModel(encoded: { cross: Tensor; memoryMask: Tensor }, ids: number[]): StepModel<DecoderState> {
    const feeds = this.sourceFeeds(encoded.memoryMask, encoded.cross, this.arch.copy ? ids : undefined);
    return {
      vocabSize: this.arch.vocabSize,
      step: async (tokens, state) => {
        const { logProbs, past } = await this.decoderStep(feeds, tokens, state);
        return { logProbs, state: past };
      },
      reorder: reorderCaches,
    };
  }

  /** How many characters of `text` one window of the model holds (all of them when it fits). */
  firstWindowChars(text: string): number {
    const limit = Math.min(this.folder.manifest.maxInputTokens, this.arch.maxSourcePositions);
    const { spans, complete } = this.tokenizer.encodePrefix(text, limit + 1);
    return spans.length <= limit && complete ? text.length : spans[limit - 1].end;
  }

  /** The source ids run() reads of `text` (at most the model's input length). */
  sourceIds(text: string): number[] {
    const limit = Math.min(this.folder.manifest.maxInputTokens, this.arch.maxSourcePositions);
    return this.tokenizer
      .encodePrefix(text, limit)
      .spans.slice(0, limit)
      .map((s) => s.id);
  }

  /**
   * The decoder over one row for the source `ids`, encoded, at its start state: what bench/ drives
   * with decode/sampling.ts to compare our loop with the bare session calls and with another runtime.
   */
  async decoderFor(ids: number[]): Promise<{ model: StepModel<DecoderState>; state: DecoderState; bos: number }> {
    if (ids.length === 0) throw new EngineError('bad-input', 'There is no text to summarize.');
    return {
      model: this.stepModel(await this.encode(ids), ids),
      state: this.emptyCaches(1),
      bos: this.folder.manifest.specialTokens.bos,
    };
  }

  /** LikelihoodModel (metrics/perplexity.ts): log p of each subword of `target` (and the end) given
   * the source `context`, by teacher forcing. The source is cut to the model's input length as in run(). */
  async tokenLogProbs(context: string, target: string): Promise<number[]> {
    const limit = Math.min(this.folder.manifest.maxInputTokens, this.arch.maxSourcePositions);
    const ids = this.tokenizer
      .encodePrefix(context, limit)
      .spans.slice(0, limit)
      .map((s) => s.id);
    if (ids.length === 0) throw new EngineError('bad-input', 'There is no source text to score against.');
    const targetIds = this.tokenizer
      .encodeWithSpans(target)
      .map((s) => s.id)
      .slice(0, this.arch.maxTargetPositions - 2);
    const special = this.folder.manifest.specialTokens;
    return forcedLogProbs(
      this.stepModel(await this.encode(ids), ids),
      this.emptyCaches(1),
      special.bos,
      targetIds,
      special.eos,
    );
  }
}
