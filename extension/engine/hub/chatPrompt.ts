/**
 * What an instruct model reads: the command's system prompt and the writer's text as one user turn,
 * through the model's own chat template (tokenizer_config.json's chat_template, or a GGUF file's
 * tokenizer.chat_template, rendered by the same Jinja), ending where the assistant's reply starts. A
 * model without a template (a plain language model) reads the text as it is, after its start token
 * where its family needs one.
 */
import type { LmTokenizer } from './causalLm';

/** The commands a Hub language model serves, each with what its system prompt asks. */
export const SYSTEM_PROMPTS = {
  story:
    'You are a fiction writer. Continue the story the user gives, in the same voice, tense and point of view. ' +
    'Reply with the continuation only: no title, no preamble, no comments.',
  premise:
    'You write premises for short stories. ' +
    'Reply with one or two sentences that set up a story: who, where, and what goes wrong. No preamble.',
  essay:
    'You write short essays. Write one essay of a few paragraphs that uses every word the user lists. ' +
    'Reply with the essay only: no title, no preamble, no comments.',
  summary:
    'You write faithful summaries. Summarize the text the user gives as asked, saying only what the text says: ' +
    'every name, number and date as the text gives it, and none the text does not have. ' +
    'Reply with the summary only, as plain sentences: no title, no preamble, no list, no comments.',
} as const;

export type PromptCommand = keyof typeof SYSTEM_PROMPTS;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Whether the tokenizer carries a chat template (an instruct model). */
export function hasChatTemplate(tokenizer: LmTokenizer): boolean {
  const t = tokenizer.chat_template;
  return typeof t === 'string' ? t.length > 0 : !!t && typeof t === 'object';
}

/**
 * The prompt as text, through the chat template with the generation prompt. Some templates refuse a
 * system turn (Gemma's raise "System role not supported"): the system prompt then opens the user turn.
 */
export function chatPromptText(tokenizer: LmTokenizer, command: PromptCommand, user: string): string {
  return chatText(tokenizer, SYSTEM_PROMPTS[command], user);
}

/**
 * A system prompt and a user turn through the chat template, with the generation prompt. Models that
 * reason before they answer (Qwen3, SmolLM3) are asked not to, as their templates allow: a writer
 * waits for the text, and the think block would be written into the document.
 */
export function chatText(tokenizer: LmTokenizer, system: string, user: string): string {
  const render = (messages: ChatMessage[]) =>
    tokenizer.apply_chat_template(messages, {
      tokenize: false,
      add_generation_prompt: true,
      enable_thinking: false,
    }) as string;
  try {
    return render([
      { role: 'system', content: system },
      { role: 'user', content: user },
    ]);
  } catch {
    return render([{ role: 'user', content: `${system}\n\n${user}` }]);
  }
}

/** The ids of a chat prompt: the template writes the special tokens as text, so none is added again. */
export function chatPromptIds(tokenizer: LmTokenizer, command: PromptCommand, user: string): number[] {
  return tokenizer.encode(chatPromptText(tokenizer, command, user), { add_special_tokens: false });
}

/**
 * The added token a chat template closes the model's turn with (Gemma's <end_of_turn>, Phi-3's <|end|>),
 * found by rendering a short exchange. An instruct model ends its reply there even where config.json
 * names only the end of the text (gemma-1.1-it's <eos>); undefined where the template writes no added
 * token right after the reply, or renders no such exchange.
 */
export function turnEndOf(tokenizer: LmTokenizer, added: readonly number[]): number | undefined {
  if (!hasChatTemplate(tokenizer)) return undefined;
  const reply = 'Done.';
  let text: string;
  try {
    text = tokenizer.apply_chat_template(
      [
        { role: 'user', content: 'Hi.' },
        { role: 'assistant', content: reply },
      ],
      { tokenize: false },
    ) as string;
  } catch {
    return undefined;
  }
  const at = text.lastIndexOf(reply);
  if (at < 0) return undefined;
  const [first] = tokenizer.encode(text.slice(at + reply.length), { add_special_tokens: false });
  return first !== undefined && added.includes(first) ? first : undefined;
}
