/**
 * Expand Topic Words into Essay with a causal language model from the Hub, or a local folder in
 * transformers.js's layout: e.g. an instruction-tuned model. The model reads an
 * instruction naming the topic words and continues it; our lexically constrained beam search
 * (decode/constrainedBeam.ts, as with the built-in PC-SAN model) makes every topic word appear, or
 * with includeAllTopics false plain beam search writes it and the result names the words missing.
 * Such a model has no per-layer attention weights (PC-SAN's Eq. 2), so the panel says so.
 */
import type { EssayRequest, EssayResult } from '../../protocol';
import { beamSearch } from '../decode/beam';
import { constrainedBeamSearch } from '../decode/constrainedBeam';
import { EngineError } from '../errors';
import { chatPromptIds } from '../hub/chatPrompt';
import { HubSystemBase, openCausalLm, type CausalLm, type HubLoad } from '../hub/hubSystems';
import type { RunContext } from './context';
import { beamDecoding } from './decodingOptions';
import { checkedTopics, coveredTopics } from './essay';
import { maxLengthHit } from './lengthLimit';
import type { System } from './system';

const DEFAULTS = {
  strategy: 'beam' as const,
  beamSize: 4,
  maxLength: 120,
  minLength: 40,
  lengthPenalty: 1.0,
  noRepeatNgramSize: 3,
};

/** What a plain language model reads before it writes, and continues. */
export const essayInstruction = (topics: readonly string[]) =>
  `Write a short essay that uses these words: ${topics.join(', ')}.\n\n`;

/** The user's turn for an instruct model (the system prompt, hub/chatPrompt.ts, says what to write). */
export const essayRequest = (topics: readonly string[]) => `Words: ${topics.join(', ')}`;

export class HubEssaySystem extends HubSystemBase<CausalLm> implements System<'essay'> {
  private readonly startsWord = new Map<number, boolean>();

  private constructor(lm: CausalLm) {
    super(
      lm,
      'essay',
      'A language model',
      'given an instruction naming the topic words; it has no per-layer attention weights to show (PC-SAN, the ' +
        'built-in model, has them).',
    );
  }

  static async load(...[choice, hub, runtime, watch]: HubLoad): Promise<HubEssaySystem> {
    // A GGUF model keeps one llama.cpp sequence per beam (hub/causalLm.ts); more beams share them.
    return new HubEssaySystem(
      await openCausalLm(choice, 'Expand Topic Words into Essay', hub, runtime, watch, { rows: DEFAULTS.beamSize }),
    );
  }

  private encode(text: string): number[] {
    return this.lm.opened.tokenizer.encode(text, { add_special_tokens: false });
  }

  private decode(ids: readonly number[]): string {
    return this.lm.opened.tokenizer.decode([...ids], { skip_special_tokens: true }).trim();
  }

  /**
   * Whether a token begins a new word (or is punctuation, or the end): a topic word spelled by the
   * constraints is met only when the next token does not continue it. The tokenizer gives no word
   * boundaries, so each token is decoded after a letter once and remembered.
   */
  private endsWord(token: number): boolean {
    if (token === this.lm.eos) return true;
    let known = this.startsWord.get(token);
    if (known === undefined) {
      const x = this.encode('x');
      const after = this.lm.opened.tokenizer.decode([...x, token], { skip_special_tokens: true });
      const own = after.slice(this.lm.opened.tokenizer.decode(x, { skip_special_tokens: true }).length);
      known = own.length === 0 || /^[\s\p{P}]/u.test(own);
      this.startsWord.set(token, known);
    }
    return known;
  }

  /** The token spellings of a topic word as the essay may write it: inside a sentence, and capitalised at its start. */
  private spellings(topic: string): number[][] {
    const forms = new Set([topic, topic.toLowerCase(), topic.charAt(0).toUpperCase() + topic.slice(1)]);
    const out: number[][] = [];
    for (const f of forms) {
      // After a space: a word inside the text. (A byte-level BPE spells a word without its space
      // as the rest of the word before it, so the bare spelling would glue the topic onto it.)
      for (const ids of [this.encode(`a ${f}`).slice(this.encode('a').length)]) {
        if (ids.length > 0 && !out.some((o) => o.join() === ids.join())) out.push(ids);
      }
    }
    return out;
  }

  async run(req: EssayRequest, ctx: RunContext): Promise<EssayResult> {
    const topics = checkedTopics(req);
    ctx.progress('Reading the topic words…', 0);
    // An instruct model reads the instruction as a user turn through its chat template; a plain LM continues it.
    const prompt = this.lm.chat
      ? chatPromptIds(this.lm.opened.tokenizer, 'essay', essayRequest(topics))
      : [...(this.lm.bos !== undefined ? [this.lm.bos] : []), ...this.encode(essayInstruction(topics))];
    const d = beamDecoding(DEFAULTS, req.decoding, Math.max(1, this.lm.contextTokens - prompt.length - 1));
    const wanted = req.candidates ?? 1;
    const K = Math.max(d.beamSize, wanted);
    const t0 = performance.now();
    // The instruction but its last token, once; the beams then start from its last token.
    const read = await this.lm.step.run(prompt.slice(0, -1), this.lm.step.initial());
    const start = this.lm.step.tile(read.state, K);
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const beam = {
      bos: prompt[prompt.length - 1],
      eos: this.lm.eos,
      beamSize: K,
      maxLength: d.maxLength,
      minLength: d.minLength,
      lengthPenalty: d.lengthPenalty,
      noRepeatNgramSize: d.noRepeatNgramSize,
      banned: this.lm.banned,
    };
    const hooks = {
      clock: ctx.clock,
      checkCancelled: () => ctx.checkCancelled(),
      onStep: (step: number, best: number[]) => {
        ctx.progress(
          `Writing the essay with ${this.lm.opened.id} (${step + 1} tokens)…`,
          Math.min(0.95, (step + 1) / d.maxLength),
        );
        if (step % 8 === 0) ctx.partial(this.decode(best));
      },
    };
    const t1 = performance.now();
    const hyps =
      req.includeAllTopics === false
        ? await beamSearch(this.lm.step, start, beam, hooks)
        : await constrainedBeamSearch(
            this.lm.step,
            start,
            topics.map((t) => this.spellings(t)),
            { ...beam, endsWord: (t) => this.endsWord(t) },
            hooks,
          );
    const decodeMs = performance.now() - t1;
    const seen = new Set<string>();
    const candidates = hyps
      .map((h) => ({
        text: this.decode(h.tokens),
        logProb: h.logProb,
        score: h.score,
        hitMaxLength: maxLengthHit(h, d.limit),
      }))
      .filter((x) => x.text.length > 0 && !seen.has(x.text) && seen.add(x.text))
      .slice(0, wanted)
      .map((x) => ({ ...x, covered: coveredTopics(x.text, topics) }));
    if (candidates.length === 0) throw new EngineError('internal', `${this.lm.opened.id} produced an empty essay.`);
    const steps = (hyps[0]?.tokens.length ?? 0) + 1;
    return {
      op: 'essay',
      topics,
      unknownTopics: [],
      skippedTopics: [],
      candidates,
      layerWeights: [],
      encoderLayers: [],
      stats: {
        inputTokens: prompt.length,
        usedInputTokens: prompt.length,
        outputTokens: hyps[0]?.tokens.length ?? 0,
        encodeMs,
        decodeMs,
        tokensPerSecond: steps / Math.max(decodeMs / 1000, 1e-6),
        device: this.lm.opened.device,
        model: this.lm.opened.id,
      },
      external: this.external(),
    };
  }
}
