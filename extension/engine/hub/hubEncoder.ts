/**
 * An encoder from the Hub (or a folder in transformers.js's layout) read for its token embeddings:
 * what BERTScore compares. Downloaded and opened through hub/hubModel.ts like every Hub model
 * (the listing, fileChoice's files, transformers.js's tokenizer and session); the float32 graph
 * first, since a metric should give the numbers its reference implementation gives, and
 * bert_score reads float32 weights.
 *
 * The embeddings are the graph's last_hidden_state: the output of its last layer, which is
 * config.json's num_hidden_layers (bert_score's num_layers counts the same way).
 */
import type { HubConfig } from '../../protocol';
import { EngineError, errorMessage } from '../errors';
import type { EncodedText } from '../metrics/bertscore';
import type { RuntimeOptions, TextEncoder } from '../systems/context';
import type { System, SystemDescription } from '../systems/system';
import { explainLoad, openHubModel, type ExternalChoice, type LoadWatch, type OpenedHubModel } from './hubModel';

/** What a message names the metric that asked for the encoder. */
const WHAT = 'BERTScore';

const isFloatArray = (x: unknown): x is Float32Array | Float64Array =>
  x instanceof Float32Array || x instanceof Float64Array;

export class HubEncoder implements System<never>, TextEncoder {
  readonly id: string;
  readonly layer: number;
  readonly dtype: string;
  readonly specials: ReadonlySet<number>;
  /** The most tokens one text is read with (bert_score truncates to the tokenizer's model_max_length). */
  private readonly maxTokens: number;
  private disposed = false;

  private constructor(
    private readonly opened: OpenedHubModel,
    layer: number,
    maxTokens: number,
  ) {
    this.id = opened.id;
    this.layer = layer;
    this.dtype = opened.dtype;
    this.maxTokens = maxTokens;
    // The tokens the tokenizer wraps every text in ([CLS] and [SEP] for BERT): bert_score weighs them 0.
    this.specials = new Set(opened.tokenizer.encode('').map(Number));
  }

  static async open(
    choice: ExternalChoice,
    hub: HubConfig,
    runtime: RuntimeOptions,
    watch: LoadWatch,
  ): Promise<HubEncoder> {
    const opened = await openHubModel(choice, 'encoder', WHAT, hub, runtime, watch, { prefer: 'fp32' });
    try {
      const config = opened.model.config;
      const layer = config.num_hidden_layers;
      if (typeof layer !== 'number' || !Number.isInteger(layer) || layer < 1) {
        throw new EngineError('bad-model', `${opened.id}: config.json gives no num_hidden_layers (its layer count).`);
      }
      const positions = typeof config.max_position_embeddings === 'number' ? config.max_position_embeddings : 512;
      const tokMax = opened.tokenizer.model_max_length;
      // Real tokenizers may say 1e30 ("no limit"); the position table is the hard one.
      const maxTokens = Math.min(positions, typeof tokMax === 'number' && tokMax > 0 ? tokMax : positions);
      return new HubEncoder(opened, layer, maxTokens);
    } catch (e) {
      await opened.model.dispose();
      throw e;
    }
  }

  /** The text's tokens ([CLS] … [SEP], cut to the model's length) and their last-layer embeddings. */
  async encode(text: string): Promise<EncodedText> {
    if (this.disposed) throw new EngineError('internal', `${this.id} was released`);
    const { tokenizer, model } = this.opened;
    // bert_score strips the text before encoding it (sent_encode).
    const inputs = tokenizer(text.trim(), { truncation: true, max_length: this.maxTokens });
    let out: Record<string, unknown>;
    try {
      out = await model.forward(inputs);
    } catch (e) {
      throw explainLoad(e, this.id, this.opened.dir);
    }
    const hidden = out.last_hidden_state;
    const row: unknown = inputs.input_ids.tolist()[0];
    if (!Array.isArray(row)) throw new EngineError('bad-model', `${this.id}: its tokenizer gives no token ids`);
    const ids = row.map(Number);
    if (
      !hidden ||
      typeof hidden !== 'object' ||
      !('dims' in hidden) ||
      !('data' in hidden) ||
      !Array.isArray(hidden.dims) ||
      hidden.dims.length !== 3 ||
      hidden.dims[1] !== ids.length
    ) {
      throw new EngineError(
        'bad-model',
        `${this.id} gives no last_hidden_state [1, tokens, size] (its graph's outputs: ` +
          `${Object.keys(out).join(', ')}); BERTScore needs an encoder's token embeddings.`,
      );
    }
    const data = hidden.data;
    if (!isFloatArray(data)) {
      throw new EngineError(
        'bad-model',
        `${this.id} gives its embeddings in ${'type' in hidden ? String(hidden.type) : 'another type'}, not ` +
          `float32; choose a float32 or 8-bit export of it.`,
      );
    }
    return { ids, vectors: data, dim: Number(hidden.dims[2]) };
  }

  run(): never {
    throw new EngineError('bad-request', 'an encoder answers no request of its own');
  }

  describe(): SystemDescription {
    return {
      system: 'encoder',
      name: this.id,
      description: `the encoder BERTScore reads (layer ${this.layer}, ${this.dtype})`,
      architecture: this.opened.architecture,
      dir: this.opened.dir,
      device: this.opened.device,
    };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    try {
      await this.opened.model.dispose();
    } catch (e) {
      throw new EngineError('internal', `releasing ${this.id} failed: ${errorMessage(e)}`);
    }
  }
}
