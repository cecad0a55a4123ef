/**
 * The decoder-only model families Draftsmith runs from the Hub, one entry each, keyed by
 * config.json's model_type. What differs between families is read from transformers.js's
 * normalised config (heads, key/value heads, layers, head size), never guessed from a graph's axis
 * names; whether a plain prompt begins with a start token is read from the model's tokenizer
 * (startToken.ts). Every family here has a fixture repository in its layout that the unit tests load
 * (test/fixtures/hub, hubFamilies.test.ts). Adding a family: docs/contributing.md.
 */
import { EngineError } from '../errors';
import type { NormalizedConfig } from './tjsInternals';

export interface CausalFamily {
  /** As the docs and messages name it. */
  label: string;
}

/**
 * Every family's key/value cache is [batch, key/value heads, past length, head size] (optimum's and
 * onnxruntime-genai's exports alike); grouped-query families have fewer key/value heads than
 * attention heads, which the normalised config's num_heads already is. Gemma's and Qwen3's head size
 * is config.json's head_dim, not hidden size / heads.
 */
export const CAUSAL_FAMILIES: Readonly<Record<string, CausalFamily>> = {
  gpt2: { label: 'GPT-2' },
  llama: { label: 'Llama (SmolLM2, Llama 3.2, TinyLlama)' },
  qwen2: { label: 'Qwen2 / Qwen2.5' },
  qwen3: { label: 'Qwen3' },
  mistral: { label: 'Mistral' },
  phi3: { label: 'Phi-3' },
  gemma: { label: 'Gemma' },
  gemma2: { label: 'Gemma 2' },
  gemma3_text: { label: 'Gemma 3' },
  smollm3: { label: 'SmolLM3' },
  olmo2: { label: 'OLMo 2' },
  granite: { label: 'Granite' },
};

export interface CausalLayout {
  family: CausalFamily;
  modelType: string;
  layers: number;
  kvHeads: number;
  headDim: number;
}

/**
 * The family and cache sizes of a decoder-only model; a family we do not know gets a message that names the ones we do.
 */
export function causalLayout(n: NormalizedConfig, modelType: string | undefined): CausalLayout {
  const type = modelType ?? n.model_type ?? 'unknown';
  const family = CAUSAL_FAMILIES[type];
  if (!family) {
    throw new EngineError(
      'bad-model',
      `Draftsmith does not run ${type} models yet; it runs these families: ${Object.keys(CAUSAL_FAMILIES).join(', ')}.`,
    );
  }
  if (n.multi_query) throw new EngineError('bad-model', `${type} with a multi-query cache is not supported`);
  const layers = n.num_layers;
  const kvHeads = n.num_heads;
  const attentionHeads = n.num_attention_heads ?? n.num_heads;
  const headDim = n.dim_kv ?? (n.hidden_size && attentionHeads ? n.hidden_size / attentionHeads : undefined);
  if (!layers || !kvHeads || !headDim || !Number.isInteger(headDim)) {
    throw new EngineError(
      'bad-model',
      `config.json of this ${type} model does not give its layers, key/value heads and head size (got ` +
        `${layers}, ${kvHeads}, ${headDim})`,
    );
  }
  return { family, modelType: type, layers, kvHeads, headDim };
}

/**
 * The encoder families BERTScore reads token embeddings from, keyed by config.json's model_type: their
 * ONNX export (onnx/model*.onnx) takes input_ids, attention_mask (and token_type_ids) and gives
 * last_hidden_state, the last layer's output. BERT's layout is the one the fixtures test
 * (all-MiniLM-L6-v2, bert-base-uncased and their Xenova conversions are model_type bert).
 */
export const ENCODER_FAMILIES: Readonly<Record<string, { label: string }>> = {
  bert: { label: 'BERT (MiniLM, bert-base)' },
};
