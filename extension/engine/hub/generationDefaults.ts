/**
 * A Hub model's own generation settings (generation_config.json, and config.json's task prefix) are
 * its defaults: distilbart-cnn's 4 beams, 56 to 142 tokens, length penalty 2.0, no repeated 3-gram
 * and forced <s> are what its summaries were tuned with. A value the request states (a setting the
 * user set) overrides one of them explicitly; Draftsmith's own defaults fill the rest. Each value
 * that ran says where it came from, for the panel.
 */
import type { BeamOptions, DecodingValue } from '../../protocol';
import type { DecodingDefaults } from '../runtime/manifest';

type BeamField = 'beamSize' | 'maxLength' | 'minLength' | 'lengthPenalty' | 'noRepeatNgramSize';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The model's beam settings in our terms. Hugging Face counts an encoder-decoder's lengths with the
 * decoder's start token (and a forced first token) included; ours count the tokens written after them.
 */
export function modelBeamDefaults(
  generationConfig: Record<string, unknown> | null | undefined,
  forced: number | undefined,
): Partial<Record<BeamField, number>> {
  const g = generationConfig ?? {};
  const counted = 1 + (forced !== undefined ? 1 : 0);
  const length = (v: unknown) => (num(v) !== undefined ? Math.max(0, num(v)! - counted) : undefined);
  const out: Partial<Record<BeamField, number>> = {
    beamSize: num(g.num_beams),
    maxLength: length(g.max_length),
    minLength: length(g.min_length),
    lengthPenalty: num(g.length_penalty),
    noRepeatNgramSize: num(g.no_repeat_ngram_size),
  };
  for (const k of Object.keys(out) as BeamField[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** The token generation is forced to start with (BART's <s>), from generation_config or config.json. */
export function forcedFirstToken(
  generationConfig: Record<string, unknown> | null | undefined,
  config: Record<string, unknown>,
): number | undefined {
  return num(generationConfig?.forced_bos_token_id) ?? num(config.forced_bos_token_id);
}

/** The text a model expects before its input for a task (T5's "summarize: "). */
export function taskPrefix(config: Record<string, unknown>, task: 'summarization'): string {
  const params = config.task_specific_params as Record<string, { prefix?: unknown }> | undefined;
  const prefix = params?.[task]?.prefix ?? config.prefix;
  return typeof prefix === 'string' ? prefix : '';
}

/**
 * A causal model's sampling settings: generation_config's temperature and top_k (Qwen2.5-Instruct
 * ships 0.7 and 20, Llama 3.2-Instruct 0.6). top_k 0 is Hugging Face's "no top-k": not a k for us.
 */
export function modelSamplingDefaults(
  generationConfig: Record<string, unknown> | null | undefined,
): Partial<Record<SamplingField, number>> {
  const g = generationConfig ?? {};
  const out: Partial<Record<SamplingField, number>> = {};
  const temperature = num(g.temperature);
  const topK = num(g.top_k);
  if (temperature !== undefined && temperature > 0) out.temperature = temperature;
  if (topK !== undefined && topK >= 1) out.topK = Math.round(topK);
  return out;
}

type SamplingField = 'topK' | 'temperature';

/**
 * The request's values over the model's over ours, field by field, and where each came from.
 * `requested` holds only what the user set.
 */
function mergeDefaults<F extends string>(
  fields: readonly F[],
  requested: Partial<Record<F, number>> | undefined,
  model: Partial<Record<F, number>>,
  ours: Record<F, number>,
): { values: Record<F, number>; ran: DecodingValue[] } {
  const values = { ...ours };
  const ran: DecodingValue[] = [];
  for (const f of fields) {
    const r = requested?.[f];
    const m = model[f];
    const value = r ?? m ?? ours[f];
    values[f] = value;
    ran.push({ name: f, value, from: r !== undefined ? 'setting' : m !== undefined ? 'model' : 'draftsmith' });
  }
  return { values, ran };
}

/** A beam search's settings: the request's over the model's over ours. */
export function mergeBeamDefaults(
  requested: BeamOptions | undefined,
  model: Partial<Record<BeamField, number>>,
  ours: DecodingDefaults,
): { defaults: DecodingDefaults; ran: DecodingValue[] } {
  const fields: BeamField[] = ['beamSize', 'minLength', 'maxLength', 'lengthPenalty', 'noRepeatNgramSize'];
  const { values, ran } = mergeDefaults(fields, requested, model, ours);
  return { defaults: { ...ours, ...values }, ran };
}

/** Top-k sampling's k and temperature: the request's over the model's over ours. */
export function mergeSamplingDefaults(
  requested: Partial<Record<SamplingField, number>> | undefined,
  model: Partial<Record<SamplingField, number>>,
  ours: Record<SamplingField, number>,
): { sampling: Record<SamplingField, number>; ran: DecodingValue[] } {
  const { values, ran } = mergeDefaults(['topK', 'temperature'] as const, requested, model, ours);
  return { sampling: values, ran };
}
