/**
 * The peer: the same model exported in the layout @huggingface/transformers runs an encoder-decoder
 * in (models/train/export_peer.sh writes .work/peer/<system>), run by its generate(), greedy. It
 * shares our onnxruntime-node, so bench/sessionTimer.ts times its session calls too.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export interface PeerInfo {
  system: string;
  /** How input_ids carries what our encoder reads (export_peer.py's docstring). */
  inputs: 'placeholder' | 'word-packed';
  vocabSize: number;
  copyOp: string;
  tiedLogits: string;
}

interface TjsTensor {
  data: ArrayLike<bigint>;
}
interface TjsModel {
  generate(options: Record<string, unknown>): Promise<TjsTensor>;
  dispose(): Promise<unknown>;
}
interface Tjs {
  env: Record<string, unknown>;
  Tensor: new (type: string, data: BigInt64Array, dims: number[]) => unknown;
  AutoModelForSeq2SeqLM: { from_pretrained(dir: string, options: Record<string, unknown>): Promise<TjsModel> };
}

export interface Peer {
  info: PeerInfo;
  loadMs: number;
  /** Greedy: exactly `tokens` new tokens (no end-of-text stop), as ids. */
  generate(inputIds: number[], tokens: number): Promise<number[]>;
  dispose(): Promise<unknown>;
}

export const peerDir = (root: string, system: string) => path.join(root, '.work', 'peer', system);
export const PEER_HOWTO = 'bash models/train/export_peer.sh (from the shipped models/summarize and models/essay)';

/** The peer for `system`, or why there is none (the bench still runs without it). */
export async function loadPeer(root: string, system: string, threads: number): Promise<Peer | { missing: string }> {
  const dir = peerDir(root, system);
  if (!existsSync(path.join(dir, 'peer.json')))
    return { missing: `no peer model in ${path.relative(root, dir)}: ${PEER_HOWTO}` };
  const info = JSON.parse(readFileSync(path.join(dir, 'peer.json'), 'utf8')) as PeerInfo;
  let tjs: Tjs;
  try {
    tjs = require('@huggingface/transformers') as Tjs;
  } catch (e) {
    return { missing: `@huggingface/transformers does not load: ${String(e).split('\n')[0]}` };
  }
  // Local files only, no cache copies.
  Object.assign(tjs.env, {
    allowRemoteModels: false,
    allowLocalModels: true,
    useFSCache: false,
    useBrowserCache: false,
  });
  const t0 = performance.now();
  // The same session options as our runtime/onnx.ts openSession.
  const model = await tjs.AutoModelForSeq2SeqLM.from_pretrained(dir, {
    dtype: 'fp32',
    device: 'cpu',
    session_options: {
      graphOptimizationLevel: 'all',
      ...(threads > 0 ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
    },
  });
  const loadMs = performance.now() - t0;
  const ids = (xs: number[]) =>
    new tjs.Tensor(
      'int64',
      BigInt64Array.from(xs, (x) => BigInt(x)),
      [1, xs.length],
    );
  return {
    info,
    loadMs,
    async generate(inputIds, tokens) {
      const out = await model.generate({
        input_ids: ids(inputIds),
        attention_mask: ids(inputIds.map(() => 1)),
        max_new_tokens: tokens,
        do_sample: false,
        num_beams: 1,
        eos_token_id: null,
      });
      return Array.from(out.data, Number).slice(1); // after the decoder start token
    },
    dispose: () => model.dispose(),
  };
}
