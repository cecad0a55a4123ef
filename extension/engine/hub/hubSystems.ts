/**
 * What the three Hub-model systems (systems/hubStory.ts, hubSummarize.ts, hubEssay.ts) share: a
 * model opened for our decoding loops (its graphs as step models, its start and end tokens, its
 * context), how it describes itself, what the panel is told about it, and its release.
 */
import type { ExternalModel, HubConfig } from '../../protocol';
import { openGgufLm, type GgufOpenOptions } from '../gguf/ggufModel';
import { EngineError } from '../errors';
import type { Session } from '../runtime/onnx';
import type { RuntimeOptions } from '../systems/context';
import type { SystemDescription } from '../systems/system';
import { DEFAULT_CONTEXT_CAP, type CausalLm, type OpenedLm } from './causalLm';
import { CausalStepModel } from './causalStep';
import { hasChatTemplate, turnEndOf } from './chatPrompt';
import { endTokensOf, neverInText } from './endTokens';
import { modelSamplingDefaults } from './generationDefaults';
import { causalLayout, type CausalLayout } from './families';
import { openHubModel, type ExternalChoice, type LoadWatch, type OpenedHubModel, type OpenOptions } from './hubModel';
import { Seq2seqStepModel } from './seq2seqStep';
import { startTokenOf } from './startToken';
import { addedTokenIdsOf, normalizedConfigOf, sessionsOf as tjsSessions } from './tjsInternals';

/** config.json's first number among `keys`. */
export function configNumber(config: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof config[k] === 'number') return config[k] as number;
  return undefined;
}

/** The graphs transformers.js opened for the model, by its session names. */
const sessionsOf = (opened: OpenedHubModel): Record<string, Session> => tjsSessions(opened.model);

export { DEFAULT_CONTEXT_CAP } from './causalLm';

/** Builds on an opened model; a failure releases it (its sessions hold the weights). */
async function building<T>(opened: OpenedHubModel, build: () => T): Promise<T> {
  try {
    return build();
  } catch (e) {
    await opened.model.dispose();
    throw e;
  }
}

/**
 * What every Hub system's load takes: the model chosen, the Hub's and the runtime's settings, and who
 * watches the download.
 */
export type HubLoad = [choice: ExternalChoice, hub: HubConfig, runtime: RuntimeOptions, watch: LoadWatch];

export type { CausalLm } from './causalLm';

/** A causal LM that transformers.js opened: its graph as our step model, its family's layout. */
export interface HubCausalLm extends CausalLm {
  opened: OpenedHubModel;
  step: CausalStepModel;
  layout: CausalLayout;
}

/**
 * The causal LM `choice` names: a GGUF file through llama.cpp (gguf/ggufModel.ts), or a Hub model
 * or folder through transformers.js. `options.rows`: the rows the command decodes at once (beams).
 */
export function openCausalLm(
  choice: ExternalChoice,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
  options: OpenOptions & GgufOpenOptions = {},
): Promise<CausalLm> {
  if (choice.kind === 'gguf') return openGgufLm(choice, what, hub, runtime, watch, options);
  return openHubCausalLm(choice, what, hub, runtime, watch, options);
}

/**
 * A Hub model or folder through transformers.js, with its graph and family layout (what the Hub tests
 * and benches read).
 */
export async function openHubCausalLm(
  choice: Extract<ExternalChoice, { kind: 'hub' | 'folder' }>,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
  options: OpenOptions = {},
): Promise<HubCausalLm> {
  const opened = await openHubModel(choice, 'causal-lm', what, hub, runtime, watch, options);
  return building(opened, () => hubCausalLmOf(opened, hub));
}

/** A causal LM transformers.js opened, for our loops (its graph as our step model, its ends, its context). */
function hubCausalLmOf(opened: OpenedHubModel, hub: HubConfig): HubCausalLm {
  const config = opened.model.config;
  const { step, layout, ends } = causalStepOf(opened);
  const bos = configNumber(config, 'bos_token_id');
  const own = configNumber(config, 'n_positions', 'max_position_embeddings') ?? 1024;
  const cap = hub.contextTokens ?? DEFAULT_CONTEXT_CAP;
  return {
    opened,
    layout,
    step,
    eos: ends[0],
    ends,
    // The start token and padding, and every added token (chat markers, tool and fill-in-the-middle
    // tokens): none belongs in prose. Never an end token.
    banned: [...new Set([...neverInText(config, ends), ...addedTokenIdsOf(opened.tokenizer)])].filter(
      (t) => !ends.includes(t),
    ),
    contextTokens: Math.min(own, cap),
    contextCapped: cap < own,
    chat: hasChatTemplate(opened.tokenizer),
    sampling: modelSamplingDefaults(opened.model.generation_config),
    bos: startTokenOf(opened.tokenizer, bos, ends),
  };
}

/** The decoder graph of an opened causal LM as our step model, with its family's layout and every end token. */
export function causalStepOf(opened: OpenedHubModel): {
  step: CausalStepModel;
  layout: CausalLayout;
  ends: number[];
} {
  // transformers.js opens a decoder-only graph as 'model' whatever its file is called
  // (model_file_name picks decoder_model_merged*.onnx in the older layout).
  const session = sessionsOf(opened).model;
  if (!session)
    throw new EngineError(
      'bad-model',
      `${opened.id} has no decoder graph (onnx/model*.onnx) in the layout transformers.js runs`,
    );
  const config = opened.model.config;
  const layout = causalLayout(normalizedConfigOf(config), config.model_type);
  const ends = endTokensOf(config, opened.model.generation_config, opened.tokenizer.eos_token_id);
  // The chat turn's own end marker ends a reply too, after the end tokens the configs name.
  const turnEnd = turnEndOf(opened.tokenizer, addedTokenIdsOf(opened.tokenizer));
  if (turnEnd !== undefined && !ends.includes(turnEnd)) ends.push(turnEnd);
  if (ends.length === 0)
    throw new EngineError('bad-model', `${opened.id} names no end-of-text token (config.json eos_token_id)`);
  const vocabSize = configNumber(config, 'vocab_size');
  if (vocabSize === undefined) throw new EngineError('bad-model', `${opened.id}'s config.json gives no vocab_size`);
  return { step: new CausalStepModel(session, { layout, vocabSize, ends }), layout, ends };
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
  return building(opened, () => seq2seqOf(opened));
}

/**
 * A model that writes summaries: an encoder-decoder (a BART or T5 summarizer), or a causal LM (an
 * instruct model, asked through its chat template) — a GGUF file or transformers.js's layout;
 * config.json says which before anything large is downloaded.
 */
export async function openSummarizer(
  choice: ExternalChoice,
  what: string,
  hub: HubConfig,
  runtime: RuntimeOptions,
  watch: LoadWatch,
): Promise<{ kind: 'seq2seq'; lm: Seq2seqLm } | { kind: 'causal-lm'; lm: CausalLm }> {
  if (choice.kind === 'gguf') return { kind: 'causal-lm', lm: await openGgufLm(choice, what, hub, runtime, watch) };
  const opened = await openHubModel(choice, ['seq2seq', 'causal-lm'], what, hub, runtime, watch);
  return building(opened, () =>
    opened.kind === 'seq2seq'
      ? { kind: 'seq2seq' as const, lm: seq2seqOf(opened) }
      : { kind: 'causal-lm' as const, lm: hubCausalLmOf(opened, hub) },
  );
}

function seq2seqOf(opened: OpenedHubModel): Seq2seqLm {
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
}

export function describeOpened(system: string, o: OpenedLm): SystemDescription {
  return {
    system,
    name: o.id,
    description: `${o.architecture} (${o.dtype}) run with ${o.source === 'gguf' ? 'llama.cpp' : 'transformers.js'}`,
    architecture: o.architecture,
    dir: o.dir,
    device: o.device,
  };
}

/** What a result says about the model: `what` it is ("A summarizer") and what the panel cannot show for it. */
export function externalModel(o: OpenedLm, what: string, cannot: string): ExternalModel {
  const from =
    o.source === 'hub'
      ? 'from the Hub'
      : o.source === 'gguf'
        ? 'from a GGUF file (llama.cpp)'
        : "in transformers.js's layout";
  return { id: o.id, architecture: o.architecture, note: `${what} ${from}: ${cannot}` };
}

/** A system's dispose(): the model's sessions released once (through the engine's gate, hub/transformersJs.ts). */
export function releaseOpened(o: OpenedLm): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await o.model.dispose();
  };
}

/**
 * What the Hub systems share: the opened model, its release once, its description, and what the
 * panel is told it cannot show (`what` it is, and `cannot`: the insights the built-in model has).
 */
export abstract class HubSystemBase<L extends { opened: OpenedLm }> {
  readonly dispose: () => Promise<void>;

  protected constructor(
    protected readonly lm: L,
    private readonly system: string,
    private readonly what: string,
    private readonly cannot: string,
  ) {
    this.dispose = releaseOpened(lm.opened);
  }

  describe(): SystemDescription {
    return describeOpened(this.system, this.lm.opened);
  }

  protected external(): ExternalModel {
    return externalModel(this.lm.opened, this.what, this.cannot);
  }
}
