/**
 * A GGUF model's tokenizer (llama.cpp's, from the file's vocabulary) and chat template
 * (tokenizer.chat_template, rendered with @huggingface/jinja, the Jinja transformers.js renders Hub
 * templates with), behind the same few calls the Hub path makes of transformers.js's tokenizer, so
 * that one prompt path (hub/chatPrompt.ts) serves both runtimes.
 */
import { Template } from '@huggingface/jinja';
import type { LlamaModel } from 'node-llama-cpp';
import type { LmTokenizer } from '../hub/causalLm';

type ChatMessage = { role: string; content: string };

export class GgufTokenizer implements LmTokenizer {
  readonly chat_template: string | null;
  private template: Template | undefined;

  constructor(
    private readonly model: LlamaModel,
    template: string | undefined,
  ) {
    this.chat_template = template && template.trim() ? template : null;
  }

  /**
   * A text's ids. Special tokens written in the text (a chat template's markers) are read as the
   * tokens they name, as transformers.js reads a Hub tokenizer's added tokens; no start token is added.
   */
  encode(text: string): number[] {
    return text ? this.model.tokenize(text, true).map(Number) : [];
  }

  decode(ids: readonly (number | bigint)[], options?: { skip_special_tokens?: boolean }): string {
    const tokens = ids.map(Number) as unknown as Parameters<LlamaModel['detokenize']>[0];
    return this.model.detokenize(tokens, !options?.skip_special_tokens);
  }

  /**
   * The chat as text through the file's template, with the generation prompt: as transformers.js's apply_chat_template.
   */
  apply_chat_template(
    conversation: readonly ChatMessage[],
    options?: { tokenize?: boolean; add_generation_prompt?: boolean; enable_thinking?: boolean },
  ): string {
    if (!this.chat_template) throw new Error('this GGUF file has no chat template (tokenizer.chat_template)');
    this.template ??= new Template(this.chat_template);
    const tokens = this.model.tokens;
    const text = this.template.render({
      messages: conversation.map((m) => ({ ...m })),
      add_generation_prompt: options?.add_generation_prompt ?? false,
      ...(options?.enable_thinking !== undefined ? { enable_thinking: options.enable_thinking } : {}),
      bos_token: tokens.bosString ?? '',
      eos_token: tokens.eosString ?? '',
    });
    if (options?.tokenize) throw new Error('apply_chat_template renders text only here; encode it');
    return text;
  }
}
