/**
 * The parts of transformers.js that are not its documented API but that our decoding loops need:
 * the ONNX sessions a model opened and the normalised config (heads, layers, head size per family).
 * They are read here and nowhere else, each checked, so that an upgrade that renames one fails at
 * load with a message naming the field (and test/unit/tjsInternals.test.ts fails first). A session's
 * input and output metadata is onnxruntime's own public API, read where it is used.
 */
import { EngineError } from '../errors';
import type { Session } from '../runtime/onnx';
import type { TjsModel, TjsTokenizer } from './transformersJs';

/** The numbers transformers.js's getNormalizedConfig gives every family (configs.js). */
export interface NormalizedConfig {
  model_type?: string;
  is_encoder_decoder?: boolean;
  multi_query?: boolean;
  /** Key/value heads (grouped-query attention: fewer than the attention heads). */
  num_heads?: number;
  num_attention_heads?: number;
  num_layers?: number;
  hidden_size?: number;
  /** The head size where the config states it (head_dim). */
  dim_kv?: number;
  num_decoder_layers?: number;
  num_decoder_heads?: number;
  num_encoder_heads?: number;
  encoder_hidden_size?: number;
  decoder_hidden_size?: number;
}

/** config.normalized_config: transformers.js's reading of each family's config fields. */
export function normalizedConfigOf(config: Record<string, unknown>): NormalizedConfig {
  const n = config.normalized_config;
  if (!n || typeof n !== 'object') throw upgraded('config.normalized_config');
  return n as NormalizedConfig;
}

function upgraded(what: string): EngineError {
  return new EngineError(
    'internal',
    `transformers.js no longer exposes ${what}; this version of @huggingface/transformers is not one ` +
      `Draftsmith was built for`,
  );
}

/**
 * The sessions transformers.js opened for a model, by its session names ('model'; 'decoder_model_merged' for seq2seq).
 */
export function sessionsOf(model: TjsModel): Record<string, Session> {
  const sessions = (model as unknown as { sessions?: unknown }).sessions;
  if (!sessions || typeof sessions !== 'object') throw upgraded('model.sessions');
  return sessions as Record<string, Session>;
}

/**
 * The ids of the tokenizer's added tokens (special or not: Qwen's <|fim_pad|> and <tool_call> are
 * added tokens marked non-special), none of which belongs in prose. transformers.js keeps them on
 * its inner tokenizer (get_added_tokens_decoder, a Map of id to token).
 */
export function addedTokenIdsOf(tokenizer: TjsTokenizer): number[] {
  const inner = (tokenizer as unknown as { _tokenizer?: { get_added_tokens_decoder?: () => Map<number, unknown> } })
    ._tokenizer;
  if (typeof inner?.get_added_tokens_decoder !== 'function') throw upgraded("the tokenizer's added tokens");
  return [...inner.get_added_tokens_decoder().keys()].map(Number);
}
