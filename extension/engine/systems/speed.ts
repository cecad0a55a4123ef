/**
 * Measure Speed: how fast a chosen language model runs on this machine, timed on the path a rewrite
 * takes (hubRewrite.ts): a prompt read all but its last token, then greedy decoding from that token
 * with every end token held back, so that the count is always reached. The first-token time runs from
 * the prompt given to the first token chosen; tokens per second counts the tokens after the first.
 *
 * A short warm-up runs first, on other tokens: an onnxruntime session's first run allocates its
 * buffers, and llama.cpp's sequence would otherwise already hold the measured prompt's beginning.
 * The built-in models are no language models a writer picks: measuring them is refused.
 */
import type { SpeedRequest, SpeedResult } from '../../protocol';
import { SPEED_DECODE_TOKENS, SPEED_PROMPT_TOKENS } from '../../protocol';
import { greedy } from '../decode/sampling';
import { EngineError } from '../errors';
import type { CausalLm } from '../hub/causalLm';
import { HubSystemBase, openCausalLm, type HubLoad } from '../hub/hubSystems';
import type { RunContext } from './context';
import type { System } from './system';

/** Plain prose, repeated to the prompt's length: what a rewrite reads. */
const PROSE =
  'The town reopened its footbridge on Saturday after two years of repairs. Hundreds of residents walked ' +
  'across the new deck in light rain, and shop owners hope that customers will now return on foot. ';

/** Tokens read and written by the warm-up: enough to allocate every buffer once. */
const WARM_UP_TOKENS = 8;

export const NO_MODEL_TO_MEASURE =
  'Measure Speed runs on a language model chosen for Draftsmith (a downloaded Hub model, a model folder or a ' +
  "GGUF file); Draftsmith's built-in models are not measured.";

/** The built-in choice: nothing to measure. */
export class NothingToMeasure implements System<'speed'> {
  run(): Promise<SpeedResult> {
    return Promise.reject(new EngineError('bad-request', NO_MODEL_TO_MEASURE));
  }

  describe() {
    return { system: 'speed', name: 'none', description: '', architecture: 'none', dir: null, device: 'none' };
  }

  async dispose(): Promise<void> {}
}

/** `count` tokens of plain prose for `lm`, after its start token where it has one. */
export function speedPrompt(lm: CausalLm, count: number): number[] {
  const tokens: number[] = lm.bos === undefined ? [] : [lm.bos];
  const piece = lm.opened.tokenizer.encode(PROSE, { add_special_tokens: false });
  if (piece.length === 0)
    throw new EngineError('bad-model', `${lm.opened.id}'s tokenizer reads no tokens in English prose`);
  while (tokens.length < count) tokens.push(...piece);
  return tokens.slice(0, count);
}

export class SpeedSystem extends HubSystemBase<CausalLm> implements System<'speed'> {
  private constructor(
    lm: CausalLm,
    private readonly loadMs: number,
  ) {
    super(lm, 'speed', 'A language model', 'a speed measurement has no insights to show.');
  }

  static async load(...[choice, hub, runtime, watch]: HubLoad): Promise<SpeedSystem> {
    const t0 = performance.now();
    const lm = await openCausalLm(choice, 'Measure Speed', hub, runtime, watch);
    return new SpeedSystem(lm, performance.now() - t0);
  }

  async run(req: SpeedRequest, ctx: RunContext): Promise<SpeedResult> {
    const lm = this.lm;
    const decodeTokens = req.decodeTokens ?? SPEED_DECODE_TOKENS;
    // The prompt, the first token and the rest must fit the model's context (a tiny model's is small).
    const room = lm.contextTokens - decodeTokens - 2;
    if (room < 2)
      throw new EngineError('bad-model', `${lm.opened.id} reads ${lm.contextTokens} tokens: too few to measure`);
    const prompt = speedPrompt(lm, Math.min(req.promptTokens ?? SPEED_PROMPT_TOKENS, room));
    const id = lm.opened.id;
    ctx.progress(`Measuring ${id}: warming up…`, 0);
    await this.decode(warmUpTokens(prompt), 2, ctx);
    ctx.checkCancelled();
    ctx.progress(`Measuring ${id}: reading a ${prompt.length}-token prompt…`, 0.1);
    const times = await this.decode(prompt, decodeTokens + 1, ctx, (n) =>
      ctx.progress(`Measuring ${id}: ${n} of ${decodeTokens} tokens written…`, 0.1 + (0.9 * n) / decodeTokens),
    );
    const written = times.length - 1;
    if (written < 1) throw new EngineError('bad-model', `${id} stopped before it wrote two tokens`);
    const decodeMs = times[written] - times[0];
    return {
      op: 'speed',
      model: id,
      device: lm.opened.device,
      dtype: lm.opened.dtype,
      loadMs: this.loadMs,
      promptTokens: prompt.length,
      firstTokenMs: times[0],
      decodeTokens: written,
      decodeMs,
      // A step faster than the clock's resolution still counts as a rate.
      tokensPerSecond: (written * 1000) / Math.max(decodeMs, 1e-3),
    };
  }

  /**
   * Reads `prompt` and writes `count` tokens greedily, ends held back: the time (ms from the start)
   * at which each token was chosen.
   */
  private async decode(
    prompt: readonly number[],
    count: number,
    ctx: RunContext,
    onToken?: (written: number) => void,
  ): Promise<number[]> {
    const lm = this.lm;
    const t0 = performance.now();
    const state0 = lm.step.initial();
    const read = prompt.length > 1 ? await lm.step.run(prompt.slice(0, -1), state0) : { state: state0 };
    ctx.checkCancelled();
    const times: number[] = [];
    const options = { bos: prompt[prompt.length - 1], eos: lm.eos, maxLength: count, minLength: count };
    await greedy(
      lm.step,
      read.state,
      { ...options, banned: lm.banned },
      {
        clock: ctx.clock,
        checkCancelled: () => ctx.checkCancelled(),
        onStep: (step) => {
          times.push(performance.now() - t0);
          if (step > 0) onToken?.(step);
        },
      },
    );
    return times;
  }
}

/** A few tokens of the prompt that do not start as it does (llama.cpp would keep them as its beginning). */
function warmUpTokens(prompt: readonly number[]): number[] {
  const from = prompt.findIndex((t) => t !== prompt[0]);
  const rest = from < 0 ? [prompt[0]] : prompt.slice(from);
  return rest.slice(0, WARM_UP_TOKENS);
}
