/**
 * Rewrite Selection on an instruct model from the Hub, or a local folder in transformers.js's
 * layout: the instruction (a preset's or the writer's) and the text as one user turn through the
 * model's chat template, greedy decoding to any of its end tokens (a rewrite should say the same
 * thing the same way twice), streamed as it is written; the reply cleaned to the rewritten text
 * alone, diffed word by word against the text, and what it changed unasked flagged.
 *
 * The built-in models are no instruct models: with no instruct model chosen, the request is refused
 * with what to choose (the editor offers Choose Model, or Round-Trip for a plain rephrasing).
 */
import type { RewriteRequest, RewriteResult } from '../../protocol';
import { greedy } from '../decode/sampling';
import { EngineError } from '../errors';
import { chatText } from '../hub/chatPrompt';
import { HubSystemBase, openCausalLm, type CausalLm, type HubLoad } from '../hub/hubSystems';
import { REWRITE_SYSTEM_PROMPT, rewritePreset, rewriteUserTurn } from '../hub/rewritePresets';
import type { LmTokenizer } from '../hub/causalLm';
import type { InputTask } from '../text/origin';
import { ask, checkReadable, whereText } from '../text/origin';
import type { RunContext } from './context';
import { lengthLimit, maxLengthHit } from './lengthLimit';
import { offeredRewrite } from './rewriteText';
import type { System } from './system';
import { replyDecoding, replyStream } from './instructReply';

export const REWRITE_INPUT: InputTask = {
  nothing: 'There is no text to rewrite',
  editorWhere: 'the selection (or paragraph)',
  kind: 'prose',
  outcome: 'nothing was rewritten',
};

/** Said when a rewrite is asked of a model that is no instruct model (the built-in ones included). */
export const NEEDS_INSTRUCT_MODEL =
  'Rewrite Selection runs on an instruct model (one with a chat template), such as ' +
  'HuggingFaceTB/SmolLM2-360M-Instruct or ' +
  'onnx-community/Qwen2.5-0.5B-Instruct: choose one for rewriting with Draftsmith: Choose Model… ' +
  '(draftsmith.rewrite.model), or give --model on the command line.';

/** The prompt as text: the rewrite's system prompt, then the instruction and the text as the user's turn. */
export function rewritePromptText(tokenizer: LmTokenizer, instruction: string, text: string): string {
  return chatText(tokenizer, REWRITE_SYSTEM_PROMPT, rewriteUserTurn(instruction, text));
}

/** The instruction a request asks for: its preset's, or its own; exactly one of the two. */
export function rewriteInstruction(req: Pick<RewriteRequest, 'preset' | 'instruction' | 'origin'>): string {
  const own = req.instruction?.trim();
  if (req.preset !== undefined && own)
    throw new EngineError('bad-request', 'Give a preset or an instruction for the rewrite, not both.');
  if (req.preset !== undefined) {
    const preset = rewritePreset(req.preset);
    if (!preset) throw new EngineError('bad-request', `There is no rewrite preset "${req.preset}".`);
    return preset.instruction;
  }
  // An empty instruction is what the writer typed: unusable input, like an empty text.
  if (!own) throw new EngineError('bad-input', 'Say how to rewrite the text: a preset or an instruction.');
  return own;
}

/**
 * The built-in choice: Draftsmith's own models follow no instructions, so every request is refused,
 * saying what to choose.
 */
export class NoInstructModel implements System<'rewrite'> {
  run(): Promise<RewriteResult> {
    return Promise.reject(new EngineError('bad-request', NEEDS_INSTRUCT_MODEL));
  }

  describe() {
    return { system: 'rewrite', name: 'none', description: '', architecture: 'none', dir: null, device: 'none' };
  }

  async dispose(): Promise<void> {}
}

export class HubRewriteSystem extends HubSystemBase<CausalLm> implements System<'rewrite'> {
  private constructor(lm: CausalLm) {
    super(lm, 'rewrite', 'An instruct model', 'the changes are shown as a diff; the model exports no attention.');
  }

  static async load(...[choice, hub, runtime, watch]: HubLoad): Promise<HubRewriteSystem> {
    return HubRewriteSystem.on(await openCausalLm(choice, 'Rewrite Selection', hub, runtime, watch));
  }

  /** The system on a model already opened; refused (and released) unless it is an instruct model. */
  static async on(lm: CausalLm): Promise<HubRewriteSystem> {
    if (!lm.chat) {
      await lm.opened.model.dispose();
      throw new EngineError(
        'bad-model',
        `${lm.opened.id} has no chat template (tokenizer_config.json's chat_template), so it is no instruct ` +
          `model. ${NEEDS_INSTRUCT_MODEL}`,
      );
    }
    return new HubRewriteSystem(lm);
  }

  private decode(ids: readonly number[]): string {
    return this.lm.opened.tokenizer.decode([...ids], { skip_special_tokens: true });
  }

  async run(req: RewriteRequest, ctx: RunContext): Promise<RewriteResult> {
    const t0 = performance.now();
    const source = req.text;
    checkReadable(source, REWRITE_INPUT, req.origin);
    const instruction = rewriteInstruction(req);
    const tokenizer = this.lm.opened.tokenizer;
    ctx.progress('Reading the text…', 0);
    const prompt = tokenizer.encode(rewritePromptText(tokenizer, instruction, source), { add_special_tokens: false });
    const textTokens = tokenizer.encode(source, { add_special_tokens: false }).length;
    const room = this.lm.contextTokens - prompt.length - 1;
    // The rewrite needs about as many tokens as the text; with less room than that it would be cut.
    if (room < Math.min(textTokens, 64))
      throw new EngineError(
        'bad-input',
        `${whereText(req.origin, REWRITE_INPUT.editorWhere)} is too long to rewrite with ${this.lm.opened.id}: ` +
          `${textTokens} tokens, ` +
          `and the model reads ${this.lm.contextTokens} in all. ${ask(req.origin)} a paragraph or two.`,
      );
    const limit = lengthLimit(req.maxTokens ?? 2 * textTokens + 32, Math.max(1, room));
    const state0 = this.lm.step.initial();
    const read = prompt.length > 1 ? await this.lm.step.run(prompt.slice(0, -1), state0) : { state: state0 };
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    let firstTokenMs = -1;
    // The partial text is the rewrite as it will be offered: a preamble is never streamed into view.
    const stream = replyStream(
      ctx,
      source,
      (ids) => this.decode(ids),
      (_text, n) => ({
        message: `Rewriting with ${this.lm.opened.id} (${n} tokens)…`,
        fraction: n / Math.max(1, Math.min(limit.maxLength, textTokens + 16)),
      }),
    );
    const onStep = stream.hooks.onStep;
    const t1 = performance.now();
    const hyp = await greedy(this.lm.step, read.state, replyDecoding(this.lm, prompt, limit.maxLength), {
      ...stream.hooks,
      onStep: (step, ids) => {
        if (firstTokenMs < 0) firstTokenMs = performance.now() - t0;
        onStep?.(step, ids);
      },
    });
    const decodeMs = performance.now() - t1;
    const raw = stream.text(hyp.tokens);
    return {
      op: 'rewrite',
      source,
      instruction,
      ...(req.preset !== undefined ? { preset: req.preset } : {}),
      raw,
      ...offeredRewrite(source, raw, instruction),
      hitMaxLength: maxLengthHit(hyp, limit),
      firstTokenMs: Math.max(0, firstTokenMs),
      stats: {
        inputTokens: prompt.length,
        usedInputTokens: prompt.length,
        outputTokens: hyp.tokens.length,
        encodeMs,
        decodeMs,
        tokensPerSecond: hyp.tokens.length / Math.max(decodeMs / 1000, 1e-6),
        device: this.lm.opened.device,
        model: this.lm.opened.id,
      },
      external: this.external(),
    };
  }
}
