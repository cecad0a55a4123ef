/**
 * What the three Hub-model systems (systems/hubStory.ts, hubSummarize.ts, hubEssay.ts) share: a
 * model opened for our decoding loops (its graphs as step models, its start and end tokens, its
 * context), how it describes itself, what the panel is told about it, and its release.
 */
import type { ExternalModel, HubConfig } from '../../protocol';
import { EngineError } from '../errors';
import type { Session } from '../runtime/onnx';
import type { RuntimeOptions } from '../systems/context';
import type { SystemDescription } from '../systems/system';
import { CausalStepModel } from './causalStep';
import { openHubModel, type ExternalChoice, type LoadWatch, type OpenedHubModel } from './hubModel';
import { Seq2seqStepModel } from './seq2seqStep';

/** config.json's first number among `keys`. */
export function configNumber(config: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof config[k] === 'number') return config[k] as number;
  return undefined;
}

/** The graphs transformers.js opened for the model, by its session names. */
const sessionsOf = (opened: OpenedHubModel) =>
  (opened.model as unknown as { sessions?: Record<string, Session> }).sessions ?? {};

/** Builds on an opened model; a failure releases it (its sessions hold the weights). */
async function building<T>(opened: OpenedHubModel, build: () => T): Promise<T> {
  try {
    return build();
  } catch (e) {
    await opened.model.dispose();
    throw e;
  }
}

export interface CausalLm {
  opened: OpenedHubModel;
  step: CausalStepModel;
  /** The longest text (prompt + continuation) the model reads, in tokens. */
  contextTokens: number;
  /** The model's own start token, read before a text (ours: <s>); none where it is the end token (GPT-2). */
  bos: number | undefined;
  eos: number;
}

export async function openCausalLm(
  choice: ExternalChoice,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
): Promise<CausalLm> {
  const opened = await openHubModel(choice, 'causal-lm', what, hub, runtime, watch);
  return building(opened, () => {
    const sessions = sessionsOf(opened);
    // model.onnx in transformers.js's own exports; decoder_model_merged.onnx in optimum's older ones.
    const session = sessions.model ?? sessions.decoder_model_merged;
    if (!session)
      throw new EngineError(
        'bad-model',
        `${opened.id} has no decoder graph (onnx/model*.onnx) in the layout transformers.js runs`,
      );
    const config = opened.model.config;
    const eos = configNumber(config, 'eos_token_id') ?? opened.tokenizer.eos_token_id ?? undefined;
    if (eos === undefined)
      throw new EngineError('bad-model', `${opened.id} names no end-of-text token (config.json eos_token_id)`);
    const bos = configNumber(config, 'bos_token_id');
    return {
      opened,
      step: new CausalStepModel(session, config),
      eos,
      contextTokens: configNumber(config, 'n_positions', 'max_position_embeddings') ?? 1024,
      bos: bos !== undefined && bos !== eos ? bos : undefined,
    };
  });
}

export interface Seq2seqLm {
  opened: OpenedHubModel;
  step: Seq2seqStepModel;
  /** The longest source and output, in tokens. */
  maxSource: number;
  maxTarget: number;
  /** The token the decoder starts from, and the one that ends the output. */
  start: number;
  eos: number;
}

export async function openSeq2seq(
  choice: ExternalChoice,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
): Promise<Seq2seqLm> {
  const opened = await openHubModel(choice, 'seq2seq', what, hub, runtime, watch);
  return building(opened, () => {
    const sessions = sessionsOf(opened);
    if (!sessions.model || !sessions.decoder_model_merged) {
      throw new EngineError(
        'bad-model',
        `${opened.id} has no encoder_model and decoder_model_merged graphs in the layout transformers.js runs`,
      );
    }
    const config = opened.model.config;
    const eos = configNumber(config, 'eos_token_id');
    const start = configNumber(config, 'decoder_start_token_id', 'bos_token_id') ?? eos;
    if (eos === undefined || start === undefined)
      throw new EngineError('bad-model', `${opened.id} names no end token or decoder start token (config.json)`);
    const positions = configNumber(config, 'max_position_embeddings', 'n_positions') ?? 512;
    return {
      opened,
      step: new Seq2seqStepModel(sessions.model, sessions.decoder_model_merged, config),
      start,
      eos,
      maxSource: configNumber(config, 'max_source_positions') ?? positions,
      maxTarget: configNumber(config, 'max_target_positions') ?? positions,
    };
  });
}

export function describeOpened(system: string, o: OpenedHubModel): SystemDescription {
  return {
    system,
    name: o.id,
    description: `${o.architecture} (${o.dtype}) run with transformers.js`,
    architecture: o.architecture,
    dir: o.dir,
    device: o.device,
  };
}

/** What a result says about the model: `what` it is ("A summarizer") and what the panel cannot show for it. */
export function externalModel(o: OpenedHubModel, what: string, cannot: string): ExternalModel {
  const from = o.source === 'hub' ? 'from the Hub' : "in transformers.js's layout";
  return { id: o.id, architecture: o.architecture, note: `${what} ${from}: ${cannot}` };
}

/** A system's dispose(): the model's sessions released once (through the engine's gate, hub/transformersJs.ts). */
export function releaseOpened(o: OpenedHubModel): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await o.model.dispose();
  };
}
