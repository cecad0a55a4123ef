/**
 * Suggest Replies: ESED, sequence-to-sequence with an external semantic memory, and its NRM baseline
 * (models/train/draftsmith_train/reply_model.py, trained by reply.py, exported by export_reply.py).
 *
 * The post is encoded once (encoder.onnx: the bidirectional GRU's outputs, the decoder's first state,
 * and ESED's query p). Its semantic keys (text/keys.ts: nouns and adjectives) are mapped to keys the
 * memory holds (keyMapper.ts: identity, synonym, antonym, neighbour, or a typed key); for each key the
 * memory block M_k = [m_1..m_L] is read (memoryRead: Eqs. 11-12, β = 100) and beam search writes one
 * candidate with the read r appended to every encoder output (Eq. 13, inside decoder_step.onnx). The
 * encoder outputs are ONE row shared by every beam of every key (the step graph broadcasts them); only
 * the GRU state [beams, H] and r [beams, D] have a row per beam. Candidates are ranked by their
 * length-normalised log-likelihood. NRM has no memory: its candidates are the beam's best hypotheses.
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { ReplyCandidate, ReplyMapper, ReplyPostKey, ReplyRequest, ReplyResult } from '../../protocol';
import { beamSearch } from '../decode/beam';
import type { RowGuard } from '../decode/guards';
import { decodingGuard, guardSetup, type GuardSetup } from './decodingGuards';
import { greedy } from '../decode/sampling';
import { YieldClock, type DecodeHooks, type Hypothesis, type StepModel } from '../decode/types';
import { EngineError } from '../errors';
import { readFloat16File } from '../runtime/float16';
import { type Manifest, type ModelFolder } from '../runtime/manifest';
import {
  checkIO,
  float32Tensor,
  floatData,
  int32Data,
  int64Tensor,
  openSession,
  type Session,
  type Tensor,
} from '../runtime/onnx';
import { reorderAxis } from '../runtime/tensorOps';
import { semanticKeys } from '../text/keys';
import { ask, checkReadable, unreadableMessage, type InputTask } from '../text/origin';
import { mostlyUnknownScript, scriptShare } from '../text/reader';
import { Tokenizer } from '../text/tokenizer';
import type { RunContext, RuntimeOptions } from './context';
import { FolderSystem, loadFolderModel, releaseOnce, type System } from './system';
import { maxLengthHit, type LengthLimit } from './lengthLimit';
import { beamDecoding, neverWritten } from './decodingOptions';
import { KeyMapper, type MappedKey } from './keyMapper';

/** What Suggest Replies says of a post it cannot read (the engine checks it before any model loads). */
export const REPLY_INPUT: InputTask = {
  nothing: 'There is no post to reply to',
  editorWhere: 'the selection (or document)',
  kind: 'a message',
  outcome: 'no replies were written',
};

type ReplyArchitecture = Extract<Manifest['architecture'], { type: 'reply-esed' | 'reply-nrm' }>;

/** keys.json, as export_reply.py writes it. */
const KeysFile = z.object({
  keys: z.array(z.string().min(1)).min(1),
  slots: z.number().int().positive(),
  dim: z.number().int().positive(),
  beta: z.number().positive(),
  counts: z.array(z.number().int()),
  examples: z.array(z.string()).nullable(),
});

const DEFAULT_CANDIDATES = 8;

/**
 * Eqs. 11-12: r = Σ_l softmax_l(β pᵀm_l) m_l over the L rows of one block (memory[offset ..]), rows
 * of zeros (padding of a key with fewer than L sentences) left out. Returns r [D] and the weights [L].
 */
export function memoryRead(
  query: Float32Array,
  memory: Float32Array,
  offset: number,
  L: number,
  D: number,
  beta: number,
): { read: Float32Array; weights: number[] } {
  const scores = new Array<number>(L).fill(-Infinity);
  for (let l = 0; l < L; l++) {
    let dot = 0;
    let any = false;
    for (let d = 0; d < D; d++) {
      const m = memory[offset + l * D + d];
      if (m !== 0) any = true;
      dot += query[d] * m;
    }
    if (any) scores[l] = beta * dot;
  }
  const top = Math.max(...scores);
  const exp = scores.map((s) => (s === -Infinity ? 0 : Math.exp(s - top)));
  const z = exp.reduce((a, b) => a + b, 0) || 1;
  const weights = exp.map((e) => e / z);
  const read = new Float32Array(D);
  for (let l = 0; l < L; l++) {
    if (weights[l] === 0) continue;
    for (let d = 0; d < D; d++) read[d] += weights[l] * memory[offset + l * D + d];
  }
  return { read, weights };
}

/** The decoder's state between steps: the GRU state, one row per beam. */
interface StepState {
  h: Float32Array;
}

/** The post as the encoder read it. */
export interface EncodedPost {
  outputs: Tensor;
  state: Float32Array;
  query: Float32Array | null;
  tokens: number;
}

export class ReplySystem extends FolderSystem implements System<'reply'> {
  readonly mapper: KeyMapper;

  private constructor(
    folder: ModelFolder,
    readonly arch: ReplyArchitecture,
    private readonly tokenizer: Tokenizer,
    private readonly encoder: Session,
    private readonly decoder: Session,
    private readonly keysFile: z.infer<typeof KeysFile>,
    private readonly memory: Float32Array,
    private readonly embedding: Float32Array,
    device: string,
    guards: GuardSetup,
  ) {
    super('reply', folder, device, guards);
    this.mapper = new KeyMapper(
      keysFile.keys,
      (w) => this.wordVector(w),
      (w) => semanticKeys(w)[0]?.lemma ?? w,
    );
  }

  static async load(dir: string, opts: RuntimeOptions): Promise<ReplySystem> {
    const { folder, arch, tokenizer } = await loadFolderModel(dir, 'reply', ['reply-esed', 'reply-nrm'], 'reply');
    const keysRaw = KeysFile.safeParse(JSON.parse(await fs.readFile(folder.file('keys'), 'utf8')));
    if (!keysRaw.success)
      throw new EngineError(
        'bad-model',
        `${folder.file('keys')}: ${keysRaw.error.issues[0].path.join('.')}: ${keysRaw.error.issues[0].message}`,
      );
    const keys = keysRaw.data;
    if (keys.keys.length !== arch.keys || keys.slots !== arch.slots || keys.dim !== arch.memoryDim) {
      throw new EngineError(
        'bad-model',
        `${folder.file('keys')} describes ${keys.keys.length} keys x ${keys.slots} slots x ${keys.dim}; ` +
          `model.json says ${arch.keys} x ${arch.slots} x ${arch.memoryDim}.`,
      );
    }
    const memory = await readFloat16File(folder.file('memory'), arch.keys * arch.slots * arch.memoryDim, 'the memory');
    const embedding = await readFloat16File(
      folder.file('embedding'),
      arch.vocabSize * arch.embed,
      'the word embeddings',
    );
    const { hidden: H, encoderDim: C, memoryDim: D, vocabSize: V } = arch;
    const enc = await openSession(folder.file('encoder'), opts);
    const dec = await openSession(folder.file('decoderStep'), opts);
    const outputs = { type: 'float32' as const, dims: [1, null, C] };
    checkIO(
      enc.session,
      folder.file('encoder'),
      { input_ids: { type: 'int64', dims: [1, null] } },
      {
        encoder_outputs: outputs,
        state: { type: 'float32', dims: [1, H] },
        ...(arch.memory ? { query: { type: 'float32', dims: [1, D] } } : {}),
      },
    );
    checkIO(
      dec.session,
      folder.file('decoderStep'),
      {
        input_ids: { type: 'int64', dims: [null, 1] },
        state: { type: 'float32', dims: [null, H] },
        encoder_outputs: outputs,
        ...(arch.memory ? { memory_read: { type: 'float32', dims: [null, D] } } : {}),
      },
      {
        log_probs: { type: 'float32', dims: [null, V] },
        state_out: { type: 'float32', dims: [null, H] },
        // A beam search's step candidates (onnx_graph.top_candidates); a graph without them is scanned in full.
        ...(dec.session.outputNames.includes('top_ids')
          ? { top_ids: { type: 'int32', dims: [null, null] }, top_log_probs: { type: 'float32', dims: [null, null] } }
          : {}),
      },
      true,
    );
    opts.log(
      'info',
      `reply model "${folder.manifest.name}" (${arch.type}, ${arch.keys} keys) loaded from ${dir} on ${enc.provider}`,
    );
    return new ReplySystem(
      folder,
      arch,
      tokenizer,
      enc.session,
      dec.session,
      keys,
      memory,
      embedding,
      enc.provider,
      await guardSetup(folder, tokenizer),
    );
  }

  /** The guards for replies to `post` (undefined when `enabled` is false: the paper's plain beam search). */
  guardFor(post: string, enabled: boolean | undefined): RowGuard | undefined {
    return decodingGuard(this.guards, enabled, post, undefined, { sourceNames: true });
  }

  readonly dispose = releaseOnce(() => [this.encoder, this.decoder]);

  get variant(): 'esed' | 'nrm' {
    return this.arch.memory ? 'esed' : 'nrm';
  }

  get keys(): readonly string[] {
    return this.keysFile.keys;
  }

  /** The unit-length mean of the word's subword embeddings, or null when it has no known subword. */
  private wordVector(word: string): Float32Array | null {
    const E = this.arch.embed;
    const unk = this.folder.manifest.specialTokens.unk;
    const ids = this.tokenizer.encode(word).filter((id) => id !== unk);
    if (ids.length === 0) return null;
    const v = new Float32Array(E);
    for (const id of ids) for (let d = 0; d < E; d++) v[d] += this.embedding[id * E + d];
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }

  /** The post's subword ids as the model reads them: its last maxInputTokens (training kept a post's end). */
  tokenize(text: string): number[] {
    return this.tokenizer
      .encodeSuffix(text, this.folder.manifest.maxInputTokens)
      .spans.slice(-this.folder.manifest.maxInputTokens)
      .map((s) => s.id);
  }

  detokenize(ids: number[]): string {
    return this.tokenizer.decode(ids);
  }

  /** encoder.onnx on the post's subword ids (at most maxInputTokens of them). */
  async encode(ids: readonly number[]): Promise<EncodedPost> {
    const r = await this.encoder.run({ input_ids: int64Tensor(ids, [1, ids.length]) });
    const outputs = r.encoder_outputs;
    if (!outputs) throw new EngineError('bad-model', 'model output encoder_outputs is missing');
    return {
      outputs,
      state: floatData(r.state, 'state'),
      query: this.arch.memory ? floatData(r.query, 'query') : null,
      tokens: ids.length,
    };
  }

  /** The memory read (Eqs. 11-12) of one key for an encoded post. */
  read(post: EncodedPost, key: string): { read: Float32Array; weights: number[] } {
    if (!post.query) throw new EngineError('internal', 'the NRM baseline has no memory to read');
    const { slots: L, memoryDim: D, beta } = this.arch;
    return memoryRead(post.query, this.memory, this.mapper.indexOf(key) * L * D, L, D, beta);
  }

  /**
   * The n memory keys whose blocks hold the rows nearest the post's query p (the best pᵀm_l of each
   * block): what the evaluation falls back to for a post without a key the memory holds.
   */
  nearestBlocks(post: EncodedPost, n: number): string[] {
    if (!post.query) return [];
    const { slots: L, memoryDim: D } = this.arch;
    const q = post.query;
    const best = this.keys.map((key, k) => {
      let top = -Infinity;
      for (let l = 0; l < L; l++) {
        let dot = 0;
        for (let d = 0; d < D; d++) dot += q[d] * this.memory[(k * L + l) * D + d];
        if (dot !== 0) top = Math.max(top, dot);
      }
      return { key, top };
    });
    return best
      .sort((a, b) => b.top - a.top)
      .slice(0, n)
      .map((b) => b.key);
  }

  /** decoder_step.onnx as a StepModel for `rows` rows: the state [rows, H] per row, the encoder outputs shared. */
  private stepModel(post: EncodedPost, read: Float32Array | null, rows: number): StepModel<StepState> {
    const H = this.arch.hidden;
    const reads = read ? float32Tensor(tile(read, rows), [rows, read.length]) : null;
    const session = this.decoder;
    const feeds = (tokens: number[], state: StepState) => ({
      input_ids: int64Tensor(tokens, [tokens.length, 1]),
      state: float32Tensor(state.h, [tokens.length, H]),
      encoder_outputs: post.outputs,
      ...(reads ? { memory_read: reads } : {}),
    });
    // No copy: state_out is ours (a new array per run, runtime/onnx.ts floatData), so reorder may change it in place.
    const next = (r: Record<string, Tensor>): StepState => ({ h: floatData(r.state_out, 'state_out') });
    const stepTop = session.outputNames.includes('top_ids')
      ? async (tokens: number[], state: StepState) => {
          // Only what the beam search reads comes back: not the [rows, vocabulary] log-probs.
          const r = await session.run(feeds(tokens, state), ['top_log_probs', 'top_ids', 'state_out']);
          const ids = int32Data(r.top_ids, 'top_ids');
          return {
            top: { perRow: ids.length / tokens.length, ids, logProbs: floatData(r.top_log_probs, 'top_log_probs') },
            state: next(r),
          };
        }
      : undefined;
    return {
      vocabSize: this.arch.vocabSize,
      async step(tokens, state) {
        const r = await session.run(feeds(tokens, state), ['log_probs', 'state_out']);
        return { logProbs: floatData(r.log_probs, 'log_probs'), state: next(r) };
      },
      ...(stepTop ? { stepTop } : {}),
      reorder(state, order) {
        return { h: reorderAxis(state.h, [order.length, H], 0, order).data };
      },
    };
  }

  private get special() {
    const s = this.folder.manifest.specialTokens;
    return { bos: s.bos, eos: s.eos, banned: neverWritten(s) };
  }

  /** Beam search for one key's read (or none, NRM): its hypotheses, best first. */
  async decode(
    post: EncodedPost,
    read: Float32Array | null,
    decoding: ReplyRequest['decoding'],
    hooks: DecodeHooks = {},
    guard?: RowGuard,
  ): Promise<Hypothesis[]> {
    const d = beamDecoding(this.folder.manifest.decoding, decoding, this.arch.maxReplyTokens);
    const K = d.beamSize;
    // Only the state and r have a row per beam; the encoder outputs stay one row (broadcast in the graph).
    return beamSearch(
      this.stepModel(post, read, K),
      { h: tile(post.state, K) },
      {
        ...this.special,
        beamSize: K,
        maxLength: d.maxLength,
        minLength: d.minLength,
        lengthPenalty: d.lengthPenalty,
        noRepeatNgramSize: d.noRepeatNgramSize,
        guard,
      },
      hooks,
    );
  }

  /**
   * Greedy decoding with no constraints: reply_model.py Seq2Seq.greedy step for step (the parity test
   * holds it to PyTorch's ids).
   */
  async greedy(post: EncodedPost, read: Float32Array | null, maxLength = this.arch.maxReplyTokens): Promise<number[]> {
    const { bos, eos } = this.special;
    return (await greedy(this.stepModel(post, read, 1), { h: Float32Array.from(post.state) }, { bos, eos, maxLength }))
      .tokens;
  }

  /** The longest reply decoded: what was asked (or the manifest's), capped at what the model was trained for. */
  lengthLimitFor(req: ReplyRequest['decoding']): LengthLimit {
    return beamDecoding(this.folder.manifest.decoding, req, this.arch.maxReplyTokens).limit;
  }

  /** The keys a request asks for: the typed one, or each post key under each mapper (a key once). */
  mappedKeys(
    postKeys: readonly ReturnType<typeof semanticKeys>[number][],
    mappers: readonly ReplyMapper[],
    typed?: string,
  ): MappedKey[] {
    if (typed !== undefined) return [this.mapper.typed(typed)];
    const out: MappedKey[] = [];
    const add = (m: MappedKey | null) => {
      if (m && !out.some((o) => o.key === m.key)) out.push(m);
    };
    for (const k of postKeys) {
      const before = out.length;
      for (const mapper of mappers) add(this.mapper.map(k, mapper));
      // A key the memory lacks still steers, by its nearest neighbour, unless neighbours were asked for anyway.
      if (out.length === before && mappers.length === 1 && mappers[0] === 'identity')
        add(this.mapper.map(k, 'neighbour'));
    }
    return out;
  }

  async run(req: ReplyRequest, ctx: RunContext): Promise<ReplyResult> {
    const text = req.text;
    checkReadable(text, REPLY_INPUT, req.origin);
    const m = this.folder.manifest;
    ctx.progress('Reading the post…', 0);
    // A long post: the model reads its end (training kept a post's last pieces), the part a reply answers.
    const { spans, complete } = this.tokenizer.encodeSuffix(text, m.maxInputTokens + 1);
    const used = spans.slice(-m.maxInputTokens);
    if (used.length === 0) throw new EngineError('bad-input', unreadableMessage('empty', REPLY_INPUT, req.origin));
    const truncated = used.length < spans.length || !complete;
    const usedFrom = truncated ? used[0].start : 0;
    const read = text.slice(usedFrom);
    const unk = m.specialTokens.unk;
    const script = scriptShare(read, used, unk);
    if (mostlyUnknownScript(script)) {
      throw new EngineError(
        'bad-input',
        `The reply model reads English: ${script.unknownLetters} of the ${script.letters} letters of this post ` +
          `are unknown to it (another script). ${ask(req.origin)} an English message.`,
      );
    }
    const notes: string[] = [];
    if (truncated)
      notes.push(
        `The post is longer than the model reads (${m.maxInputTokens} subwords): the replies answer its last ` +
          `${text.length - usedFrom} characters. ${ask(req.origin)} only the part to answer to choose another.`,
      );

    const keys = semanticKeys(read);
    const postKeys: ReplyPostKey[] = keys.map((k) => ({
      word: k.word,
      lemma: k.lemma,
      pos: k.pos,
      inMemory: this.mapper.has(k.lemma),
    }));
    const max = req.maxCandidates ?? DEFAULT_CANDIDATES;
    // The keys mapped (WordNet, embedding neighbours) before the clock starts: decodeMs is the beam searches'.
    const mapped = this.arch.memory ? this.mappedKeys(keys, req.mappers ?? ['identity'], req.key).slice(0, max) : [];
    const t0 = performance.now();
    const post = await this.encode(used.map((s) => s.id));
    const encodeMs = performance.now() - t0;
    ctx.checkCancelled();
    const t1 = performance.now();
    const candidates: ReplyCandidate[] = [];
    let outputTokens = 0;
    // One clock for the run's beam searches (one per key), so they share the event loop's turns.
    const hooks: DecodeHooks = { clock: ctx.clock ?? new YieldClock(), checkCancelled: () => ctx.checkCancelled() };
    const guard = this.guardFor(text, req.guards);
    const limit = this.lengthLimitFor(req.decoding);
    if (!this.arch.memory) {
      // NRM: no keys steer it; its candidates are the beam's best hypotheses.
      const beamSize = Math.max(req.decoding?.beamSize ?? m.decoding.beamSize, Math.min(max, 5));
      const hyps = await this.decode(post, null, { ...req.decoding, beamSize }, hooks, guard);
      for (const h of hyps.slice(0, Math.min(max, beamSize))) {
        outputTokens += h.tokens.length;
        candidates.push(this.candidate(h, { from: '', key: '', mapper: 'none', label: 'NRM — no key' }, null, limit));
      }
    } else {
      if (mapped.length === 0) {
        notes.push(
          keys.length === 0
            ? 'The post has no nouns or adjectives to steer a reply: type a key (a noun or an adjective).'
            : `None of the post's keys (${keys.map((k) => k.lemma).join(', ')}) maps to a key the reply memory ` +
                `holds: type a key.`,
        );
      }
      const missing = postKeys.filter((k) => !k.inMemory).map((k) => k.lemma);
      if (req.key === undefined && missing.length > 0 && mapped.length > 0)
        notes.push(`Not in the reply memory: ${missing.join(', ')}.`);
      for (const [i, key] of mapped.entries()) {
        ctx.checkCancelled();
        ctx.progress(
          `Writing a reply for "${key.key}" (${i + 1} of ${mapped.length})…`,
          Math.min(0.95, i / mapped.length),
        );
        const r = this.read(post, key.key);
        const best = (await this.decode(post, r.read, req.decoding, hooks, guard))[0];
        if (!best) continue;
        outputTokens += best.tokens.length;
        candidates.push(this.candidate(best, key, r.weights, limit));
      }
    }
    candidates.sort((a, b) => b.score - a.score);
    const decodeMs = performance.now() - t1;
    return {
      op: 'reply',
      source: text,
      architecture: this.variant,
      candidates,
      postKeys,
      notes,
      truncated,
      usedFrom,
      unknownTokens: used.filter((s) => s.id === unk).length,
      stats: {
        inputTokens: complete ? spans.length : null,
        usedInputTokens: used.length,
        outputTokens,
        encodeMs,
        decodeMs,
        tokensPerSecond: outputTokens / Math.max(decodeMs / 1000, 1e-6),
        device: this.device,
        model: m.name,
      },
    };
  }

  private candidate(
    h: Hypothesis,
    key: Pick<MappedKey, 'from' | 'key' | 'label'> & { mapper: ReplyCandidate['mapper'] },
    weights: number[] | null,
    limit: LengthLimit,
  ): ReplyCandidate {
    const examples = this.keysFile.examples;
    return {
      text: this.tokenizer.decode(h.tokens),
      key: key.key,
      from: key.from,
      mapper: key.mapper,
      label: key.label,
      score: h.score,
      tokens: h.tokens.length,
      hitMaxLength: maxLengthHit(h, limit),
      readWeights: weights,
      example: key.key && examples ? examples[this.mapper.indexOf(key.key)] || null : null,
    };
  }
}

function tile(row: Float32Array, n: number): Float32Array {
  const out = new Float32Array(row.length * n);
  for (let k = 0; k < n; k++) out.set(row, k * row.length);
  return out;
}
