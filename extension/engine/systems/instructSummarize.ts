/**
 * Summarize Document (abstractive) on an instruct model the writer chose: a Hub model or a folder in
 * transformers.js's layout, or a GGUF file through llama.cpp — the same kind of model Rewrite
 * Selection runs. The text goes to the model as one user turn through its chat template, under a
 * system prompt that asks for a faithful summary of a few sentences (about as many words as the
 * text's first three sentences, the Lead-3 baseline's length); greedy decoding streams it.
 *
 * Nothing invented: our loop writes the summary, so the decoding guards the built-in summarizer
 * runs with (decode/guards.ts, sourceNames on) hold here too, read over the model's own vocabulary
 * (hub/guardPieces.ts): a capitalised word inside a sentence, or a number, is one the text has. What
 * the guards cannot see (a name opening a sentence) is flagged in the result as Rewrite flags what it
 * invents (rewriteText.ts inventedItems: one check for both).
 *
 * A long document is read section by section as the built-in model reads it (sectioned.ts), in parts
 * of at most the request's maxInputTokens; the summary of the whole is written from the parts'.
 */
import type { DecodingValue, SummarizeRequest, SummarizeResult } from '../../protocol';
import { greedy } from '../decode/sampling';
import { EngineError } from '../errors';
import { chatText, SYSTEM_PROMPTS } from '../hub/chatPrompt';
import { guardPieces } from '../hub/guardPieces';
import { HubSystemBase, type CausalLm } from '../hub/hubSystems';
import type { LmTokenizer } from '../hub/causalLm';
import { leadSentences } from '../metrics/lead';
import { readDocument } from '../text/markdown';
import { checkReadable, unreadableMessage } from '../text/origin';
import { countWords } from '../text/words';
import type { RunContext } from './context';
import { decodingGuard, endAtLastSentence } from './decodingGuards';
import { lengthLimit, maxLengthHit } from './lengthLimit';
import { cleanRewrite, inventedItems } from './rewriteText';
import { summarizeSections, type UnitModel, type UnitSummary } from './sectioned';
import { SUMMARIZE_INPUT } from './summarize';
import type { System } from './system';
import { replyDecoding, replyStream } from './instructReply';
import { fittingPrefix } from '../text/fitting';
import { modelSummaryResult, sectionedRun, type ModelSummaryRun } from './modelSummary';

/** Tokens of text read at once when the request says nothing (the host always does: draftsmith.maxInputTokens). */
const DEFAULT_WINDOW = 1024;

/** How long a summary is asked to be: sentences, and words (the text's Lead-3 length, within bounds). */
export interface SummaryLength {
  sentences: number;
  words: number;
}

/**
 * The length asked of a summary of `text`: three sentences of about as many words as the text's
 * first three (the Lead-3 baseline's length), 25 to 100 words; the summary of a whole document, made
 * from its parts' summaries, up to five sentences and 150 words.
 */
export function summaryLength(text: string, whole = false): SummaryLength {
  const lead = countWords(leadSentences(text, 3).join(' '));
  return whole
    ? { sentences: 5, words: Math.max(40, Math.min(150, lead)) }
    : { sentences: 3, words: Math.max(25, Math.min(100, lead)) };
}

/** The user turn: how long, then the text, marked off so that the model tells them apart. */
export function summaryUserTurn(text: string, length: SummaryLength): string {
  return `Summarize the text in at most ${length.sentences} sentences, about ${length.words} words.\n\nText:\n${text}`;
}

/** The prompt as text: the summary's system prompt, then the length and the text as the user's turn. */
export function summaryPromptText(tokenizer: LmTokenizer, text: string, length: SummaryLength): string {
  return chatText(tokenizer, SYSTEM_PROMPTS.summary, summaryUserTurn(text, length));
}

/** Said when a summary is asked of a language model that is no instruct model. */
export const NEEDS_INSTRUCT_SUMMARIZER =
  'Summarize Document runs on an encoder-decoder summarizer (such as Xenova/distilbart-cnn-6-6) or an instruct model ' +
  '(one with a chat template, such as HuggingFaceTB/SmolLM2-360M-Instruct or a GGUF file of one): choose one with ' +
  'Draftsmith: Choose Model… (draftsmith.summarize.model), or give --model on the command line.';

export class InstructSummarizeSystem extends HubSystemBase<CausalLm> implements System<'summarize'> {
  private constructor(lm: CausalLm) {
    super(
      lm,
      'summarize',
      'An instruct model',
      'it writes abstractive summaries only, through its chat template, and has no topics or topic-aware ' +
        'attention to show (the built-in TAAS model has them).',
    );
  }

  /** The system on a model already opened; refused (and released) unless it is an instruct model. */
  static async on(lm: CausalLm): Promise<InstructSummarizeSystem> {
    if (!lm.chat) {
      await lm.opened.model.dispose();
      throw new EngineError(
        'bad-model',
        `${lm.opened.id} has no chat template, so it is no instruct model. ${NEEDS_INSTRUCT_SUMMARIZER}`,
      );
    }
    return new InstructSummarizeSystem(lm);
  }

  private encode(text: string): number[] {
    return this.lm.opened.tokenizer.encode(text, { add_special_tokens: false });
  }

  private decode(ids: readonly number[]): string {
    return this.lm.opened.tokenizer.decode([...ids], { skip_special_tokens: true });
  }

  /** The most tokens a summary is written in: the request's, or room for the words asked and a sentence more. */
  private maxTokens(req: SummarizeRequest, length: SummaryLength): number {
    return req.decoding?.maxLength ?? Math.ceil(2 * length.words) + 32;
  }

  /** Tokens of text read at once: the request's, within what the context holds besides the prompt and the summary. */
  private window(req: SummarizeRequest): number {
    const overhead = this.encode(summaryPromptText(this.lm.opened.tokenizer, '', summaryLength('', true))).length;
    const room = this.lm.contextTokens - overhead - this.maxTokens(req, summaryLength('', true)) - 1;
    if (room < 16)
      throw new EngineError(
        'bad-model',
        `${this.lm.opened.id} reads ${this.lm.contextTokens} tokens in all, too few for a summary's prompt and ` +
          `the summary.`,
      );
    return Math.min(req.maxInputTokens ?? DEFAULT_WINDOW, room);
  }

  /** The start of `text` that fits `window` tokens: how many characters, at a word's end. */
  private fitting(text: string, window: number): number {
    if (this.encode(text).length <= window) return text.length;
    return fittingPrefix(text, (prefix) => this.encode(prefix).length <= window);
  }

  async run(req: SummarizeRequest, ctx: RunContext): Promise<SummarizeResult> {
    checkReadable(req.text, SUMMARIZE_INPUT, req.origin);
    const window = this.window(req);
    const t0 = performance.now();
    if (req.format) {
      ctx.progress('Reading the document…', 0);
      const doc = readDocument(req.text, req.format);
      const unit: UnitModel = {
        window,
        countTokens: (text) => this.encode(text).length,
        // Each part's summary streams as it is written (the sections' progress says which part).
        summarize: (text, c, whole) =>
          this.summarizeUnit(req, text, { ...c, partial: ctx.partial }, whole !== undefined),
      };
      const s = await summarizeSections(doc, unit, ctx, req.sectionTimeLimitMs);
      const ms = performance.now() - t0;
      return this.result(req, sectionedRun(s, req.text.length, ms));
    }
    ctx.progress('Reading the text…', 0);
    // Text without a format is read as one piece: its start, up to the window, and the result says so.
    const used = this.fitting(req.text, window);
    if (used === 0) throw new EngineError('bad-input', unreadableMessage('empty', SUMMARIZE_INPUT, req.origin));
    const u = await this.summarizeUnit(req, req.text.slice(0, used), ctx, false);
    return this.result(req, {
      summary: u.summary,
      truncated: used < req.text.length,
      usedChars: used,
      hitMaxLength: u.hitMaxLength ?? null,
      stats: {
        inputTokens: used < req.text.length ? null : u.inputTokens,
        usedInputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
      },
      encodeMs: u.encodeMs,
      decodeMs: u.decodeMs,
      tokensPerSecond: u.outputTokens / Math.max(u.decodeMs / 1000, 1e-6),
    });
  }

  private result(req: SummarizeRequest, r: ModelSummaryRun): SummarizeResult {
    const decoding: DecodingValue[] = [
      { name: 'beamSize', value: 1, from: 'draftsmith' },
      {
        name: 'maxLength',
        value: this.maxTokens(req, summaryLength(req.text)),
        from: req.decoding?.maxLength !== undefined ? 'setting' : 'draftsmith',
      },
    ];
    const { device, id } = this.lm.opened;
    return modelSummaryResult(
      req,
      r,
      { device, id, external: this.external(), decoding },
      { invented: inventedItems(r.summary, req.text) },
    );
  }

  /**
   * One summary of `text` (a part, the whole of a short text, or the parts' summaries together when
   * `whole`): the prompt read, then greedy decoding under the guards, streamed, cleaned of any
   * preamble, and ended at its last complete sentence.
   */
  private async summarizeUnit(
    req: SummarizeRequest,
    text: string,
    ctx: RunContext,
    whole: boolean,
  ): Promise<UnitSummary> {
    const length = summaryLength(text, whole);
    const prompt = this.encode(summaryPromptText(this.lm.opened.tokenizer, text, length));
    const limit = lengthLimit(this.maxTokens(req, length), Math.max(1, this.lm.contextTokens - prompt.length - 1));
    const t0 = performance.now();
    const read = await this.lm.step.run(prompt.slice(0, -1), this.lm.step.initial());
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    // The guards read the model's own vocabulary: the width of its output row.
    const pieces = guardPieces(this.lm.opened.tokenizer, read.logProbs.length);
    // A summary's names and numbers come from its text, as the built-in summarizer's do.
    const guard = decodingGuard(
      { tokenizer: { pieces: () => pieces }, known: undefined, eos: this.lm.eos },
      req.guards,
      text,
      undefined,
      {
        sourceNames: true,
      },
    );
    const stream = replyStream(
      ctx,
      text,
      (ids) => this.decode(ids),
      (_text, n) => ({
        message: `Writing the summary with ${this.lm.opened.id} (${n} tokens)…`,
        fraction: n / Math.max(1, Math.min(limit.maxLength, 2 * length.words)),
      }),
    );
    const t1 = performance.now();
    const hyp = await greedy(
      this.lm.step,
      read.state,
      { ...replyDecoding(this.lm, prompt, limit.maxLength), noRepeatNgramSize: req.decoding?.noRepeatNgramSize, guard },
      stream.hooks,
    );
    const decodeMs = performance.now() - t1;
    const summary = endAtLastSentence(cleanRewrite(stream.text(hyp.tokens), text).text).trim();
    // Said, not thrown as a failure: in a long document the other parts go on, and this one says why it has none.
    if (!summary)
      throw new EngineError(
        'bad-input',
        `${this.lm.opened.id} wrote no summary of this text (it ended before writing any); try another instruct model.`,
      );
    return {
      summary,
      tokens: [],
      hitMaxLength: maxLengthHit(hyp, limit),
      inputTokens: prompt.length,
      outputTokens: hyp.tokens.length,
      encodeMs,
      decodeMs,
    };
  }
}
