/**
 * What the built-in encoder-decoders (PC-SAN, TAAS) share: the folder opened with its encoder and
 * decoder sessions, released together, and the decoder's step over its layer caches: the encoder's
 * cross-attention keys and values fed once, each step's self-attention past fed and its present read
 * (runtime/layerCaches.ts names and shapes).
 */
import { emptyCaches, feedCaches, layerViews, readCaches, type LayerCaches } from '../runtime/layerCaches';
import {
  floatData,
  int64Tensor,
  openSession,
  type OpenedSession,
  type Session,
  type SessionOptions,
  type Tensor,
} from '../runtime/onnx';
import type { Tokenizer } from '../text/tokenizer';
import type { GuardSetup } from './decodingGuards';
import { FolderSystem, loadFolderModel, releaseOnce, type Architecture, type LoadedFolder } from './system';

/** An encoder-decoder folder loaded (loadFolderModel), with its encoder's and decoder's sessions open. */
export interface OpenedEncoderDecoder<A> {
  loaded: LoadedFolder<A>;
  enc: OpenedSession;
  dec: OpenedSession;
}

export async function openEncoderDecoder<T extends Architecture['type']>(
  dir: string,
  system: string,
  types: readonly T[],
  what: string,
  opts: SessionOptions,
): Promise<OpenedEncoderDecoder<Extract<Architecture, { type: T }>>> {
  const loaded = await loadFolderModel(dir, system, types, what);
  const enc = await openSession(loaded.folder.file('encoder'), opts);
  const dec = await openSession(loaded.folder.file('decoder'), opts);
  return { loaded, enc, dec };
}

/** The shape every encoder-decoder manifest states (runtime/manifest.ts TransformerShape). */
interface Shape {
  vocabSize: number;
  dModel: number;
  heads: number;
  decoderLayers: number;
}

export abstract class EncoderDecoderSystem<A extends Shape> extends FolderSystem {
  protected readonly arch: A;
  protected readonly tokenizer: Tokenizer;
  protected readonly encoder: Session;
  protected readonly decoder: Session;

  protected constructor(system: string, { loaded, enc, dec }: OpenedEncoderDecoder<A>, guards: GuardSetup) {
    super(system, loaded.folder, enc.provider, guards);
    this.arch = loaded.arch;
    this.tokenizer = loaded.tokenizer;
    this.encoder = enc.session;
    this.decoder = dec.session;
  }

  readonly dispose = releaseOnce(() => [this.encoder, this.decoder]);

  /** The self-attention caches before the first step, one row per beam. */
  protected emptyCaches(rows: number): LayerCaches {
    return emptyCaches(this.arch.decoderLayers, rows, this.arch.heads, this.arch.dModel / this.arch.heads);
  }

  /**
   * The feeds every step shares: the memory mask, the encoder's stacked cross-attention keys and
   * values as one tensor per layer, and the source ids when the decoder copies from the source.
   */
  protected sourceFeeds(memoryMask: Tensor, cross: Tensor, copyIds?: readonly number[]): Record<string, Tensor> {
    const feeds: Record<string, Tensor> = { memory_mask: memoryMask };
    feedCaches(feeds, 'cross_key_values', layerViews(cross, 'cross_key_values'));
    if (copyIds) feeds.source_ids = int64Tensor(copyIds, [1, copyIds.length]);
    return feeds;
  }

  /**
   * One decoder step for `tokens` (one per row): the shared feeds and `past`, then the log-probs and
   * the present caches. The log-probs are ours (a new array per run, runtime/onnx.ts floatData): the
   * strategies may write to them. `out` is the whole output, for what a system's decoder adds.
   */
  protected async decoderStep(
    feeds: Record<string, Tensor>,
    tokens: readonly number[],
    past: LayerCaches,
  ): Promise<{ logProbs: Float32Array; past: LayerCaches; out: Record<string, Tensor> }> {
    const stepFeeds: Record<string, Tensor> = { ...feeds, input_ids: int64Tensor(tokens, [tokens.length, 1]) };
    feedCaches(stepFeeds, 'past_key_values', past);
    const out = await this.decoder.run(stepFeeds);
    return {
      logProbs: floatData(out.log_probs, 'log_probs'),
      past: readCaches(out, 'present', this.arch.decoderLayers),
      out,
    };
  }
}
