/**
 * Summarize Document with an encoder-decoder from the Hub, or a local folder in transformers.js's
 * layout: e.g. a distilbart-cnn, the backbone TAAS fine-tunes. transformers.js downloads,
 * caches and tokenizes; our beam search writes the summary (hub/seq2seqStep.ts), with the length
 * settings of the command. Such a model has no topic model and no topic-aware attention, so it
 * writes abstractive summaries only, and the panel says what it cannot show.
 */
import type { SummarizeRequest, SummarizeResult } from '../../protocol';
import { beamSearch } from '../decode/beam';
import { EngineError } from '../errors';
import { HubSystemBase, openSeq2seq, openSummarizer, type Seq2seqLm, type HubLoad } from '../hub/hubSystems';
import { InstructSummarizeSystem } from './instructSummarize';
import { unreadableMessage } from '../text/origin';
import type { RunContext } from './context';
import { beamDecoding } from './decodingOptions';
import { maxLengthHit } from './lengthLimit';
import { SUMMARIZE_INPUT } from './summarize';
import { forcedFirstToken, mergeBeamDefaults, modelBeamDefaults, taskPrefix } from '../hub/generationDefaults';
import type { System } from './system';
import { fittingPrefix } from '../text/fitting';
import { readDocument } from '../text/markdown';
import { summarizeSections, type UnitModel } from './sectioned';
import type { DecodingValue } from '../../protocol';
import { modelSummaryResult, sectionedRun, type ModelSummaryRun } from './modelSummary';

/** When the request asks for nothing: 4 beams, a summary of a few sentences (the CNN/DM setting's scale). */
const DEFAULTS = {
  strategy: 'beam' as const,
  beamSize: 4,
  maxLength: 80,
  minLength: 12,
  lengthPenalty: 1.0,
  noRepeatNgramSize: 3,
};

export class HubSummarizeSystem extends HubSystemBase<Seq2seqLm> implements System<'summarize'> {
  private constructor(lm: Seq2seqLm) {
    super(
      lm,
      'summarize',
      'A summarizer',
      'it writes abstractive summaries only, and has no topics or topic-aware attention to show (the built-in ' +
        'TAAS model has them).',
    );
  }

  static async load(...[choice, hub, runtime, watch]: HubLoad): Promise<HubSummarizeSystem> {
    return new HubSummarizeSystem(await openSeq2seq(choice, 'Summarize Document', hub, runtime, watch));
  }

  /**
   * The summarizer `choice` names, whichever kind it is: an encoder-decoder runs here, an instruct
   * model (a Hub model, a folder or a GGUF file with a chat template) through instructSummarize.ts.
   */
  static async open(...[choice, hub, runtime, watch]: HubLoad): Promise<HubSummarizeSystem | InstructSummarizeSystem> {
    const opened = await openSummarizer(choice, 'Summarize Document', hub, runtime, watch);
    return opened.kind === 'seq2seq' ? new HubSummarizeSystem(opened.lm) : InstructSummarizeSystem.on(opened.lm);
  }

  private encode(text: string): number[] {
    return this.lm.opened.tokenizer.encode(this.prefix + text);
  }

  /** The model's task prefix (T5's "summarize: "), read before the text. */
  private get prefix(): string {
    return taskPrefix(this.lm.opened.model.config, 'summarization');
  }

  /**
   * The start of the text that fits `window` tokens of the encoder (the task prefix and special tokens
   * besides): its ids, and how many characters of the text they cover.
   */
  private readSource(text: string, window: number): { ids: number[]; usedChars: number; total: number | null } {
    const most = window + this.encode('').length;
    const all = this.encode(text);
    if (all.length <= most) return { ids: all, usedChars: text.length, total: all.length };
    const best = fittingPrefix(text, (prefix) => this.encode(prefix).length <= most);
    return {
      ids: best ? this.encode(text.slice(0, best)) : all.slice(0, most),
      usedChars: best || text.length,
      total: all.length,
    };
  }

  /** The tokens one part holds: the encoder's input less the task prefix, at most the request's maxInputTokens. */
  private window(req: SummarizeRequest): number {
    return Math.max(1, Math.min(req.maxInputTokens ?? Infinity, this.lm.maxSource - this.encode('').length));
  }

  /**
   * A text with a format (every command's) is read whole, section by section (systems/sectioned.ts), in
   * parts of the encoder's window; one without (an API caller's) is read up to one window, and the
   * result says how much.
   */
  async run(req: SummarizeRequest, ctx: RunContext): Promise<SummarizeResult> {
    const text = req.text;
    // Unreadable text (empty, no words, binary) is refused by the engine before the model loads (engine.ts).
    const t0 = performance.now();
    if (req.format) {
      ctx.progress('Reading the document…', 0);
      let ran: DecodingValue[] = [];
      const unit: UnitModel = {
        window: this.window(req),
        countTokens: (part) => this.encode(part).length - this.encode('').length,
        summarize: async (part, c) => {
          // Every part fits the window (planParts); a sentence longer than it is its own summary, never read here.
          const u = await this.summarizeUnit(req, this.readSource(part, this.window(req)).ids, c);
          ran = u.ran;
          return { ...u, extracted: undefined, tokens: [] };
        },
      };
      const s = await summarizeSections(readDocument(text, req.format), unit, ctx, req.sectionTimeLimitMs);
      const ms = performance.now() - t0;
      return this.result(req, { ...sectionedRun(s, text.length, ms), ran });
    }
    ctx.progress('Reading the text…', 0);
    const { ids, usedChars, total } = this.readSource(text, this.window(req));
    if (ids.length === 0) throw new EngineError('bad-input', unreadableMessage('empty', SUMMARIZE_INPUT, req.origin));
    const u = await this.summarizeUnit(req, ids, ctx);
    return this.result(req, {
      summary: u.summary,
      truncated: usedChars < text.length,
      usedChars,
      hitMaxLength: u.hitMaxLength,
      stats: { inputTokens: total, usedInputTokens: ids.length, outputTokens: u.outputTokens },
      encodeMs: u.encodeMs,
      decodeMs: u.decodeMs,
      tokensPerSecond: (u.outputTokens + 1) / Math.max(u.decodeMs / 1000, 1e-6),
      ran: u.ran,
    });
  }

  private result(req: SummarizeRequest, r: ModelSummaryRun & { ran: DecodingValue[] }): SummarizeResult {
    const { device, id } = this.lm.opened;
    return modelSummaryResult(
      req,
      r,
      { device, id, external: this.external(), decoding: r.ran },
      { inputLimit: this.window(req) },
    );
  }

  /** One summary of the encoder's input `ids` (at most one window): beam search, the model's defaults merged. */
  private async summarizeUnit(req: SummarizeRequest, ids: number[], ctx: RunContext) {
    const config = this.lm.opened.model.config;
    const generation = this.lm.opened.model.generation_config;
    const forced = forcedFirstToken(generation, config);
    const { defaults, ran } = mergeBeamDefaults(req.decoding, modelBeamDefaults(generation, forced), DEFAULTS);
    // The request's own values are already in `defaults`: the merge says which won.
    const d = beamDecoding(defaults, undefined, this.lm.maxTarget - 1 - (forced !== undefined ? 1 : 0));
    const t0 = performance.now();
    let state = await this.lm.step.encode(ids, d.beamSize);
    // A forced first token (BART's <s>) is read by every beam before the search starts from it.
    if (forced !== undefined)
      state = (await this.lm.step.step(new Array<number>(d.beamSize).fill(this.lm.start), state)).state;
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const decode = (t: readonly number[]) =>
      this.lm.opened.tokenizer.decode([...t], { skip_special_tokens: true }).trim();
    const c = config;
    const banned = [
      c.pad_token_id,
      c.decoder_start_token_id !== this.lm.eos ? c.decoder_start_token_id : undefined,
    ].filter((x): x is number => typeof x === 'number');
    const t1 = performance.now();
    let lastPartial = 0;
    const hyps = await beamSearch(
      this.lm.step,
      state,
      {
        bos: forced ?? this.lm.start,
        eos: this.lm.eos,
        beamSize: d.beamSize,
        maxLength: d.maxLength,
        minLength: d.minLength,
        lengthPenalty: d.lengthPenalty,
        noRepeatNgramSize: d.noRepeatNgramSize,
        banned,
      },
      {
        clock: ctx.clock,
        checkCancelled: () => ctx.checkCancelled(),
        onStep: (step, best) => {
          ctx.progress(
            `Writing the summary with ${this.lm.opened.id} (${step + 1} tokens)…`,
            Math.min(0.95, (step + 1) / d.maxLength),
          );
          const now = performance.now();
          if (now - lastPartial > 200) {
            lastPartial = now;
            ctx.partial(decode(best));
          }
        },
      },
    );
    const decodeMs = performance.now() - t1;
    const best = hyps[0];
    const summary = best ? decode(best.tokens) : '';
    if (!summary) throw new EngineError('internal', `${this.lm.opened.id} produced an empty summary.`);
    return {
      summary,
      hitMaxLength: maxLengthHit(best, d.limit),
      inputTokens: ids.length,
      outputTokens: best.tokens.length,
      encodeMs,
      decodeMs,
      ran,
    };
  }
}
