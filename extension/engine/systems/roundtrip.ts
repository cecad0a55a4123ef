/**
 * Round-Trip Paragraph: a paragraph encoded into one vector and decoded back (Li, Luong & Jurafsky
 * 2015, "A Hierarchical Neural Autoencoder for Paragraphs and Documents"). Three models
 * (models/train/draftsmith_train/roundtrip_model.py, trained by roundtrip.py, exported by export_roundtrip.py):
 *   standard   one LSTM over the paragraph's tokens as one sequence, one LSTM decoder (Sec. 3.1)
 *   hier       WordEncoder -> sentence vectors -> SentenceEncoder; the decoder mirrors it: a
 *              SentenceDecoder step whose state starts a WordDecoder that writes up to </s> (Sec. 3.2)
 *   hier-attn  hier, plus attention over the input sentences at every sentence step (Eqs. 10-15)
 * Inputs reversed as in training (Sec. 4: tokens within each sentence, and the sentences' order).
 * Greedy decoding, as the paper decodes; the loop is RoundTrip.greedy's, step for step (the parity
 * test holds it to the PyTorch ids), and check_roundtrip_onnx.cjs is the same loop in plain JS.
 *
 * Long inputs: the model reads the paragraph's first sentences, up to the request's maxSentences
 * (default: the most the model was trained on) and the manifest's maxInputTokens, and the result
 * says how many it read (truncatedBy); Apply replaces only that part. A first sentence longer than
 * maxInputTokens on its own (text without sentence punctuation) is refused with a message.
 */
import { EXPERIMENTAL } from './experimental';
import type {
  RoundTripInputSentence,
  RoundTripOutputSentence,
  RoundTripRequest,
  RoundTripResult,
  RoundTripScores,
  RoundTripVariant,
} from '../../protocol';
import { greedy } from '../decode/sampling';
import { trimUnfinishedWord } from '../decode/guards';
import { decodingGuard, guardSetup, type GuardSetup } from './decodingGuards';
import { YieldClock, type DecodeHooks, type StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { bleuSummary, sentenceBleu } from '../metrics/bleu';
import { coherence } from '../metrics/coherence';
import { rougeScores } from '../metrics/rouge';
import { Manifest, ModelFolder } from '../runtime/manifest';
import { checkIO, floatData, int64Tensor, openSession, Session, Tensor, TensorSpec } from '../runtime/onnx';
import { analyseEach } from '../text/nlp';
import { ask, checkReadable, unreadableMessage, type InputTask } from '../text/origin';
import { mostlyUnknownScript, notProse, scriptShare, sentenceSpans, splitSentences } from '../text/reader';
import { Tokenizer, type TokenSpan } from '../text/tokenizer';
import type { RunContext, RuntimeOptions } from './context';
import { FolderSystem, loadFolderModel, releaseOnce, type System } from './system';

/** What Round-Trip Paragraph says of text it cannot read (the engine checks it before any model loads). */
export const ROUNDTRIP_INPUT: InputTask = {
  nothing: 'There is no paragraph to round-trip',
  editorWhere: 'the selection (or paragraph)',
  kind: 'prose',
  outcome: 'nothing was round-tripped',
};

type RoundTripArchitecture = Extract<
  Manifest['architecture'],
  { type: 'roundtrip-standard' | 'roundtrip-hier' | 'roundtrip-hier-attn' }
>;

/** The word-level LSTM decoder's state between steps, and its top-layer output at the last step. */
interface WordState {
  h: Tensor;
  c: Tensor;
  /** [1, H]: the next sentence step's input e_t (null before the first step). */
  output: Tensor | null;
}

/** What greedy decoding of one paragraph's ids gives. */
export interface Decoded {
  /** Output token ids per sentence (the standard model writes one sequence). */
  sentences: number[][];
  /** Per output sentence: attention over the memory positions, as the graph gives them (the input
   * sentences in REVERSED order, as they were fed); null without attention. */
  attention: number[][] | null;
  /** Per output sentence: it hit its word limit before </s>. */
  cut: boolean[];
  stopped: RoundTripResult['stopped'];
  limits: RoundTripResult['limits'];
  encodeMs: number;
  decodeMs: number;
}

/**
 * ROUGE-1 against the input under which a round-trip is labelled experimental: between the cards'
 * general paragraphs (0.27) and stories (0.37).
 */
const KEPT_LITTLE = 0.3;

/** BLEU, ROUGE-1/2/W and coherence L of the reconstruction against the sentences the model read. */
export function roundTripScores(input: readonly string[], output: readonly string[]): RoundTripScores {
  const ref = input.join(' ');
  const hyp = output.join(' ');
  // One paragraph: sacreBLEU's sentence BLEU (exp smoothing), since most short paragraphs share no 4-gram.
  const b = sentenceBleu(hyp, [ref]);
  const r = rougeScores(hyp, ref);
  return {
    bleu: bleuSummary(b),
    rouge1: r.rouge1,
    rouge2: r.rouge2,
    rougeW: r.rougeW,
    // The alignment is between the sentences the model read and the sentences it wrote, not a re-split.
    coherence: coherence(analyseEach(input), analyseEach(output)),
  };
}

export class RoundTripSystem extends FolderSystem implements System<'roundtrip'> {
  private constructor(
    folder: ModelFolder,
    private readonly arch: RoundTripArchitecture,
    private readonly tokenizer: Tokenizer,
    private readonly encoder: Session,
    private readonly sentenceStep: Session | undefined,
    private readonly wordStep: Session,
    device: string,
    guards: GuardSetup,
  ) {
    super('roundtrip', folder, device, guards);
  }

  static async load(dir: string, opts: RuntimeOptions, expected?: RoundTripVariant): Promise<RoundTripSystem> {
    const { folder, arch, tokenizer } = await loadFolderModel(
      dir,
      'roundtrip',
      ['roundtrip-standard', 'roundtrip-hier', 'roundtrip-hier-attn'],
      'Round-Trip',
    );
    if (expected && arch.type !== `roundtrip-${expected}`) {
      throw new EngineError(
        'bad-model',
        `${dir}/model.json describes a ${arch.type} model, not roundtrip-${expected}.`,
      );
    }
    const { layers: L, hidden: H, vocabSize: V } = arch;
    const state: TensorSpec = { type: 'float32', dims: [L, null, H] };
    const ids: TensorSpec = { type: 'int64', dims: [null, null] };
    const enc = await openSession(folder.file('encoder'), opts);
    const word = await openSession(folder.file('wordStep'), opts);
    let sentence: Session | undefined;
    if (arch.type === 'roundtrip-standard') {
      checkIO(enc.session, folder.file('encoder'), { input_ids: ids }, { h: state, c: state });
    } else {
      const memory: TensorSpec = { type: 'float32', dims: [null, null, H] };
      const vector: TensorSpec = { type: 'float32', dims: [null, H] };
      checkIO(
        enc.session,
        folder.file('encoder'),
        { input_ids: ids, lengths: { type: 'int64', dims: [null] } },
        { memory, h: state, c: state, start: vector },
      );
      sentence = (await openSession(folder.file('sentenceStep'), opts)).session;
      const attn = arch.attention;
      checkIO(
        sentence,
        folder.file('sentenceStep'),
        { prev: vector, h: state, c: state, ...(attn ? { memory } : {}) },
        {
          h_out: state,
          c_out: state,
          end_logit: { type: 'float32', dims: [null] },
          ...(attn ? { attention: { type: 'float32', dims: [null, null] } } : {}),
        },
      );
    }
    checkIO(
      word.session,
      folder.file('wordStep'),
      { input_ids: { type: 'int64', dims: [null, 1] }, h: state, c: state },
      {
        log_probs: { type: 'float32', dims: [null, V] },
        output: { type: 'float32', dims: [null, H] },
        h_out: state,
        c_out: state,
      },
    );
    opts.log('info', `roundtrip model "${folder.manifest.name}" (${arch.type}) loaded from ${dir} on ${enc.provider}`);
    return new RoundTripSystem(
      folder,
      arch,
      tokenizer,
      enc.session,
      sentence,
      word.session,
      enc.provider,
      await guardSetup(folder, tokenizer),
    );
  }

  readonly dispose = releaseOnce(() => [this.encoder, this.sentenceStep, this.wordStep]);

  get variant(): RoundTripVariant {
    return this.arch.type.slice('roundtrip-'.length) as RoundTripVariant;
  }

  /** The subword ids of one sentence, as training tokenized it (sp.encode). */
  encodeSentence(sentence: string): number[] {
    return this.tokenizer.encode(sentence);
  }

  async run(req: RoundTripRequest, ctx: RunContext): Promise<RoundTripResult> {
    const text = req.text;
    checkReadable(text, ROUNDTRIP_INPUT, req.origin);
    const why = notProse(text);
    if (why)
      throw new EngineError(
        'bad-input',
        `${why}: Round-Trip Paragraph reconstructs sentences, and its model was trained on prose paragraphs. ` +
          `${ask(req.origin)} a paragraph.`,
      );
    const m = this.folder.manifest;
    const maxSentences = req.maxSentences ?? this.arch.maxSentences;
    ctx.progress('Reading the paragraph…', 0);
    const spans = sentenceSpans(text);
    // The first sentences, up to the sentence limit and the model's token limit (Apply replaces only these).
    const input: (RoundTripInputSentence & { ids: number[]; pieces: TokenSpan[] })[] = [];
    let tokens = 0;
    let truncatedBy: RoundTripResult['truncatedBy'] = null;
    for (const span of spans) {
      if (input.length >= maxSentences) {
        truncatedBy = 'sentences';
        break;
      }
      // Tokenized only as far as the model could read (a megabyte without a full stop is one "sentence").
      const room = m.maxInputTokens - tokens;
      const { spans: pieces, complete } = this.tokenizer.encodePrefix(span.text, room + 1);
      const ids = pieces.map((p) => p.id);
      if (ids.length > room || !complete) {
        if (input.length === 0) {
          throw new EngineError(
            'bad-input',
            `The first sentence is ${complete ? ids.length : `more than ${ids.length}`} subwords long, more ` +
              `than the ${m.maxInputTokens} the model reads at once (it was trained on sentences of up to ` +
              (`${this.arch.maxSentenceTokens}). Is the text without sentence punctuation? ${ask(req.origin)} a ` +
                `paragraph of shorter sentences.`),
          );
        }
        truncatedBy = 'tokens';
        break;
      }
      input.push({ ...span, tokens: ids.length, ids, pieces });
      tokens += ids.length;
    }
    if (input.length === 0) throw new EngineError('bad-input', unreadableMessage('empty', ROUNDTRIP_INPUT, req.origin));
    // Letters the vocabulary lacks (another script) reach the model as <unk> (text/reader.ts scriptShare).
    const unk = m.specialTokens.unk;
    const unknownTokens = input.reduce((n, s) => n + s.ids.filter((id) => id === unk).length, 0);
    const script = scriptShare(
      input.map((s) => s.text).join(' '),
      input.flatMap((s) => s.pieces),
      unk,
    );
    if (mostlyUnknownScript(script)) {
      throw new EngineError(
        'bad-input',
        `The round-trip model reads English text: ${script.unknownLetters} of the ${script.letters} letters of ` +
          `this paragraph are unknown to it ` +
          `(another script). ${ask(req.origin)} an English paragraph.`,
      );
    }
    ctx.checkCancelled();

    // Each sentence is detokenized once, when it is written (the partial text grows by one sentence).
    const written: string[] = [];
    const decoded = await this.decodeIds(
      input.map((s) => s.ids),
      {
        // The guards (on unless the request turns them off): the paragraph's own words are allowed.
        guards: { input: input.map((s) => s.text).join(' '), enabled: req.guards },
        clock: ctx.clock,
        checkCancelled: () => ctx.checkCancelled(),
        onSentence: (k, limit, soFar) => {
          ctx.progress(`Writing sentence ${k + 1}…`, Math.min(0.95, (k + 1) / limit));
          const text = this.tokenizer.decode(soFar[soFar.length - 1]);
          if (text) written.push(text);
          ctx.partial(written.join(' '));
        },
      },
    );
    const output = this.outputSentences(decoded);
    const reconstruction = output.map((s) => s.text).join(' ');
    ctx.progress('Scoring the reconstruction…', 0.97);
    const outputTokens = decoded.sentences.reduce((n, s) => n + s.length, 0);
    const steps = outputTokens + decoded.sentences.length;
    const scores = roundTripScores(
      input.map((s) => s.text),
      output.map((s) => s.text),
    );
    // Labelled where it did what the card measures on general paragraphs: kept little of the words.
    const experimental =
      scores.rouge1.f1 < KEPT_LITTLE
        ? `${EXPERIMENTAL.roundTrip.note} This one: ROUGE-1 ${scores.rouge1.f1.toFixed(2)}.`
        : undefined;
    return {
      op: 'roundtrip',
      source: text,
      architecture: this.variant,
      input: input.map((s) => ({ text: s.text, start: s.start, end: s.end, tokens: s.tokens })),
      totalSentences: spans.length,
      usedStart: input[0].start,
      usedEnd: input[input.length - 1].end,
      truncatedBy,
      maxSentences,
      inputLimit: m.maxInputTokens,
      unknownTokens,
      reconstruction,
      ...(experimental ? { experimental } : {}),
      output,
      stopped: decoded.stopped,
      limits: decoded.limits,
      scores,
      stats: {
        inputTokens: truncatedBy ? null : tokens,
        usedInputTokens: tokens,
        outputTokens,
        encodeMs: decoded.encodeMs,
        decodeMs: decoded.decodeMs,
        tokensPerSecond: steps / Math.max(decoded.decodeMs / 1000, 1e-6),
        device: this.device,
        model: m.name,
      },
    };
  }

  /** The decoded sentences as text: empty ones dropped (with their attention), attention in input order. */
  outputSentences(d: Decoded): RoundTripOutputSentence[] {
    if (this.arch.type === 'roundtrip-standard') {
      // One sequence: its sentences are found the way the input's are.
      const ids = d.sentences[0] ?? [];
      const text = this.tokenizer.decode(ids);
      return splitSentences(text).map((s, i, all) => ({
        text: s,
        tokens: this.tokenizer.encode(s).length,
        cut: d.cut[0] === true && i === all.length - 1,
        attention: null,
      }));
    }
    const out: RoundTripOutputSentence[] = [];
    d.sentences.forEach((ids, k) => {
      const text = this.tokenizer.decode(ids);
      if (!text) return;
      // The memory holds the input sentences last first (they were fed reversed): read it back in input order.
      const attention = d.attention ? d.attention[k].slice().reverse() : null;
      out.push({ text, tokens: ids.length, cut: d.cut[k], attention });
    });
    return out;
  }

  /**
   * Greedy decoding of one paragraph given as subword ids per sentence (RoundTrip.greedy): at most
   * ceil(1.5 x input tokens) tokens in all; hierarchical models also at most ceil(1.5 x input
   * sentences) sentence steps, each sentence at most ceil(1.5 x the longest input sentence) words.
   * hooks.guards: the decoding guards over the paragraph `input` (each sentence's repetition rules
   * also see the sentences before it); without it, plain greedy decoding (what parity tests hold to PyTorch).
   */
  async decodeIds(
    sentences: readonly (readonly number[])[],
    hooks: DecodeHooks & {
      onSentence?: (k: number, limit: number, soFar: number[][]) => void;
      guards?: { input: string; enabled?: boolean };
    } = {},
  ): Promise<Decoded> {
    const guardFor = (before: readonly number[]) =>
      hooks.guards
        ? decodingGuard(this.guards, hooks.guards.enabled, hooks.guards.input, before, { sourceNames: true })
        : undefined;
    const ratio = this.folder.manifest.decoding.maxLengthRatio ?? 1.5;
    const { bos, eos } = this.folder.manifest.specialTokens;
    const total = sentences.reduce((n, s) => n + s.length, 0);
    const budget = Math.ceil(ratio * total);
    const t0 = performance.now();
    const word = this.wordModel();
    const checkCancelled = hooks.checkCancelled;
    // One clock for the paragraph's greedy loops (one per sentence), so they share the event loop's turns.
    const clock = hooks.clock ?? new YieldClock();

    if (this.arch.type === 'roundtrip-standard' || !this.sentenceStep) {
      // Sec. 3.1: the whole paragraph as one sequence, reversed (as Sutskever et al. 2014 feed the source).
      const ids = sentences.flat().reverse();
      const enc = await this.encoder.run({ input_ids: int64Tensor(ids, [1, ids.length]) });
      const t1 = performance.now();
      checkCancelled?.();
      const guard = guardFor([]);
      const hyp = await greedy(
        word,
        { h: need(enc.h, 'h'), c: need(enc.c, 'c'), output: null },
        { bos, eos, maxLength: budget, guard },
        { checkCancelled, clock },
      );
      return {
        sentences: [hyp.hitMaxLength && guard ? trimUnfinishedWord(hyp.tokens, guard) : hyp.tokens],
        attention: null,
        cut: [hyp.hitMaxLength],
        stopped: hyp.hitMaxLength ? 'max-tokens' : 'end',
        limits: { maxTokens: budget, maxSentences: null },
        encodeMs: t1 - t0,
        decodeMs: performance.now() - t1,
      };
    }

    // Sec. 3.2: one row per sentence, the sentences last first and each row's tokens last first, right-padded.
    const rows = sentences
      .slice()
      .reverse()
      .map((s) => s.slice().reverse());
    const T = Math.max(...rows.map((r) => r.length));
    const pad = this.folder.manifest.specialTokens.pad;
    const flat = rows.flatMap((r) => r.concat(new Array<number>(T - r.length).fill(pad)));
    const enc = await this.encoder.run({
      input_ids: int64Tensor(flat, [rows.length, T]),
      lengths: int64Tensor(
        rows.map((r) => r.length),
        [rows.length],
      ),
    });
    const t1 = performance.now();
    const memory = need(enc.memory, 'memory');
    let h = need(enc.h, 'h');
    let c = need(enc.c, 'c');
    let prev = need(enc.start, 'start');
    const perSentence = Math.ceil(ratio * Math.max(...sentences.map((s) => s.length)));
    const maxSteps = Math.ceil(ratio * sentences.length);
    const out: number[][] = [];
    const attention: number[][] = [];
    const cut: boolean[] = [];
    let used = 0;
    let stopped: Decoded['stopped'] = 'max-sentences';
    for (let k = 0; k < maxSteps; k++) {
      checkCancelled?.();
      const s = await this.sentenceStep.run({ prev, h, c, ...(this.arch.attention ? { memory } : {}) });
      h = need(s.h_out, 'h_out');
      c = need(s.c_out, 'c_out');
      // The end-of-paragraph decision (the paper's ending_D token as a binary flag): sigmoid > 0.5.
      if (floatData(s.end_logit, 'end_logit')[0] > 0) {
        stopped = 'end';
        break;
      }
      if (used >= budget) {
        stopped = 'max-tokens';
        break;
      }
      if (this.arch.attention) attention.push(Array.from(floatData(s.attention, 'attention')));
      // The word decoder starts from the sentence step's state (Sec. 3.2) and writes up to </s>.
      const cap = Math.min(perSentence, budget - used);
      word.last = undefined;
      const guard = guardFor(out.flat());
      const hyp = await greedy(
        word,
        { h, c, output: null },
        { bos, eos, maxLength: cap, guard },
        { checkCancelled, clock },
      );
      let last = word.last as WordState | undefined;
      // Cut at the cap: one more step over the last word gives the output e_t the next sentence step reads,
      // as training read it at the step that predicts </s>.
      if (hyp.hitMaxLength && last) last = (await word.step([hyp.tokens[hyp.tokens.length - 1]], last)).state;
      used += hyp.tokens.length;
      // A sentence cut at the cap loses the word it was in the middle of (the state above read it all).
      out.push(hyp.hitMaxLength && guard ? trimUnfinishedWord(hyp.tokens, guard) : hyp.tokens);
      cut.push(hyp.hitMaxLength);
      prev = need(last?.output ?? undefined, 'output');
      hooks.onSentence?.(k, maxSteps, out);
    }
    return {
      sentences: out,
      attention: this.arch.attention ? attention : null,
      cut,
      stopped,
      limits: { maxTokens: budget, maxSentences: maxSteps },
      encodeMs: t1 - t0,
      decodeMs: performance.now() - t1,
    };
  }

  /** word_step.onnx as a StepModel for decode/sampling.ts; `last` keeps the state after the latest step. */
  private wordModel(): StepModel<WordState> & { last: WordState | undefined } {
    const session = this.wordStep;
    const model = {
      vocabSize: this.arch.vocabSize,
      last: undefined as WordState | undefined,
      async step(tokens: number[], state: WordState) {
        const r = await session.run({ input_ids: int64Tensor(tokens, [tokens.length, 1]), h: state.h, c: state.c });
        const next: WordState = {
          h: need(r.h_out, 'h_out'),
          c: need(r.c_out, 'c_out'),
          output: need(r.output, 'output'),
        };
        model.last = next;
        return { logProbs: floatData(r.log_probs, 'log_probs'), state: next };
      },
      reorder(): WordState {
        throw new Error('greedy decoding has one row and never reorders it');
      },
    };
    return model;
  }
}

function need(t: Tensor | undefined, name: string): Tensor {
  if (!t) throw new EngineError('bad-model', `model output ${name} is missing`);
  return t;
}
