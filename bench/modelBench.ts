/**
 * One encoder-decoder model, measured in this process (which plays the engine's worker): load time,
 * time to first token, decoding speed of the command's own path (its default beam and beam 1)
 * against the floor (the time inside onnxruntime's session.run), greedy decoding of a fixed number
 * of tokens against the same floor, against the memory-bandwidth floor, and against the same model
 * run by transformers.js's generate() (bench/peer.ts), and the peak RSS.
 *
 * env: THREADS (intra-op threads, default 1; 0 lets onnxruntime choose), MODEL_DIR (default the
 * shipped folder), VARIANT (its label), RUNS (repetitions, default 5), GREEDY_TOKENS (default 64).
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { sessionTime } from './sessionTimer';
import { greedy } from '../extension/engine/decode/sampling';
import type { StepModel } from '../extension/engine/decode/types';
import type { RunContext } from '../extension/engine/systems/context';
import { copyBandwidth } from './bandwidth';
import { onnxInitializers } from './onnxWeights';
import { loadPeer } from './peer';
import { median, peakRssMB, Reporter } from './report';

export const root = path.resolve(__dirname, '..', '..');

export interface BenchInput<S> {
  /** Encodes the (already tokenized) input and returns one row of the decoder at its start. */
  decoder(): Promise<{ model: StepModel<S>; state: S; bos: number }>;
  /** What the peer's generate() gets as input_ids for the same input (bench/peer.ts). */
  peerInput: number[];
  /** Positions of the cross-attention memory (a step reads all of them). */
  memoryPositions: number;
}

export interface LoadedModel<S> {
  name: string;
  defaultBeam: number;
  decoderLayers: number;
  dModel: number;
  /** The command's own path (system.run) at `beam`, with the given progress hooks. */
  run(beam: number, ctx: RunContext): Promise<{ outputTokens: number; encodeMs: number; decodeMs: number }>;
  /** The bench input, tokenized (outside the timings: the peer is given ids too). */
  input(): BenchInput<S>;
}

export interface Target<S> {
  system: string;
  /** The bench input, in words for the report. */
  input: string;
  load(dir: string, threads: number): Promise<LoadedModel<S>>;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

export async function benchModel<S>(target: Target<S>): Promise<void> {
  const threads = Number(process.env.THREADS ?? 1);
  const dir = path.resolve(process.env.MODEL_DIR ?? path.join(root, 'models', target.system));
  const variant = process.env.VARIANT ?? 'shipped';
  const runs = Number(process.env.RUNS ?? 5);
  const greedyTokens = Number(process.env.GREEDY_TOKENS ?? 64);
  const label = `${target.system} (${variant}, threads ${threads})`;
  const r = new Reporter(label);
  r.section(label);
  const baseRss = peakRssMB();

  const t = performance.now();
  const m = await target.load(dir, threads);
  const loadMs = performance.now() - t;
  const files = ['encoder.onnx', 'decoder.onnx'].map((f) => path.join(dir, f));
  const sizeMB = mb(files.reduce((s, f) => s + statSync(f).size, 0));
  r.row('model', `${m.name} from ${path.relative(root, dir) || dir}`, undefined, target.input);
  r.row('ONNX files (encoder + decoder)', sizeMB, 'MB');
  r.row('model load (both sessions, tokenizer, checks)', loadMs, 'ms');

  // The command's path: time to first token, end to end, and the floor, at the default beam and at beam 1.
  const product = async (beam: number) => {
    const firsts: number[] = [];
    const totals: number[] = [];
    const floors: number[] = [];
    const decodeFloors: number[] = [];
    const loops: number[] = [];
    let steps = 0;
    let tokens = 0;
    let decodeMs = 0;
    for (let i = 0; i < runs; i++) {
      let first = NaN;
      const start = performance.now();
      const ctx: RunContext = {
        // A fraction above 0 is first reported after the first decoding step: the first token exists.
        progress: (_m, f) => {
          if (f !== undefined && f > 0 && Number.isNaN(first)) first = performance.now() - start;
        },
        partial: () => {},
        checkCancelled: () => {},
      };
      sessionTime.reset();
      const res = await m.run(beam, ctx);
      totals.push(performance.now() - start);
      floors.push(sessionTime.ms);
      // The decoding loop alone: its time against the decoder's session.run time (all of it but the encoder's).
      decodeFloors.push(sessionTime.ms - res.encodeMs);
      loops.push(res.decodeMs);
      firsts.push(first);
      tokens = res.outputTokens;
      steps = res.outputTokens + 1;
      decodeMs = res.decodeMs;
    }
    return {
      first: median(firsts),
      coldFirst: firsts[0],
      total: median(totals),
      floor: median(floors),
      steps,
      tokens,
      decodeMs,
      decodeFloor: median(decodeFloors),
      loop: median(loops),
    };
  };
  const beamRun = await product(m.defaultBeam);
  const beam1 = m.defaultBeam === 1 ? beamRun : await product(1);
  r.row(
    'time to first token, first command (model loaded)',
    beamRun.coldFirst,
    'ms',
    `beam ${m.defaultBeam}; the command's own path`,
  );
  r.row('time to first token (median)', beamRun.first, 'ms', `beam ${m.defaultBeam}`);
  r.row(
    'time to first token, cold (load + first command)',
    loadMs + beamRun.coldFirst,
    'ms',
    'without the worker start and onnxruntime-node load (activation bench)',
  );
  const settings: [number, typeof beamRun][] =
    m.defaultBeam === 1
      ? [[1, beamRun]]
      : [
          [m.defaultBeam, beamRun],
          [1, beam1],
        ];
  for (const [beam, x] of settings) {
    r.row(`beam ${beam}: end to end`, x.total, 'ms', `${x.tokens} tokens`);
    r.row(
      `beam ${beam}: decoding steps per second`,
      x.steps / (x.decodeMs / 1000),
      'steps/s',
      beam > 1
        ? `${beam} tokens per step, one per beam: ${((beam * x.steps) / (x.decodeMs / 1000)).toFixed(0)} beam-tokens/s`
        : undefined,
    );
    r.row(
      `beam ${beam}: time inside session.run`,
      x.floor,
      'ms',
      `the command takes ${(x.total / x.floor).toFixed(2)}× that floor (tokenizing, attention readout and all)`,
    );
    r.row(
      `beam ${beam}: decoding loop / its session.run time`,
      x.loop / x.decodeFloor,
      '×',
      `${x.loop.toFixed(0)} ms over ${x.decodeFloor.toFixed(0)} ms in the decoder`,
    );
  }

  // Greedy, a fixed number of tokens (no end-of-text stop): our loop (decode/sampling.ts) against its floor.
  const oursTotal: number[] = [];
  const oursDecode: number[] = [];
  const oursFloor: number[] = [];
  let oursIds: number[] = [];
  const input = m.input();
  /** Returns the encoder's session.run time (the greedy loop's is in sessionTime). */
  const ours = async () => {
    sessionTime.reset();
    const t0 = performance.now();
    const d = await input.decoder();
    const t1 = performance.now();
    const encodeFloor = sessionTime.ms;
    sessionTime.reset();
    const h = await greedy(d.model, d.state, { bos: d.bos, eos: -1, maxLength: greedyTokens });
    const t2 = performance.now();
    oursTotal.push(t2 - t0);
    oursDecode.push(t2 - t1);
    oursFloor.push(sessionTime.ms);
    oursIds = h.tokens;
    return encodeFloor;
  };
  await ours(); // warm
  oursTotal.length = oursDecode.length = oursFloor.length = 0;
  for (let i = 0; i < runs; i++) await ours();
  const msPerToken = median(oursDecode) / greedyTokens;
  const loopOverFloor = median(oursDecode) / median(oursFloor);
  r.row(
    `greedy ${greedyTokens} tokens: decoding`,
    median(oursDecode),
    'ms',
    `${(greedyTokens / (median(oursDecode) / 1000)).toFixed(1)} tokens/s at batch 1`,
  );
  r.row(
    `greedy ${greedyTokens} tokens: time inside session.run`,
    median(oursFloor),
    'ms',
    `the loop takes ${loopOverFloor.toFixed(3)}× that floor`,
  );
  const rss = peakRssMB();
  r.row(
    "peak RSS of this process (the worker's part)",
    rss,
    'MB',
    `a bare Node process here: ${baseRss.toFixed(0)} MB`,
  );

  // The memory-bandwidth floor: every decoder weight (but the position table, of which a step reads
  // one row) and the cross-attention memory are read at least once per token.
  const weights = onnxInitializers(path.join(dir, 'decoder.onnx'));
  const weightBytes = weights.filter((w) => !/pos/.test(w.name)).reduce((s, w) => s + w.bytes, 0);
  const memoryBytes = m.decoderLayers * 2 * m.dModel * input.memoryPositions * 4;
  const bw = copyBandwidth();
  const bandwidthFloor = ((weightBytes + memoryBytes) / bw.bytesPerSecond) * 1000;
  r.row('copy bandwidth (Float32Array.set, 256 MB, read + write)', bw.bytesPerSecond / 1e9, 'GB/s');
  r.row(
    'bytes read per token at least',
    mb(weightBytes + memoryBytes),
    'MB',
    `decoder weights ${mb(weightBytes).toFixed(1)} MB + cross-attention memory ${mb(memoryBytes).toFixed(2)} ` +
      `MB (${input.memoryPositions} positions)`,
  );
  r.row(
    'memory-bandwidth floor per token',
    bandwidthFloor,
    'ms',
    `greedy takes ${msPerToken.toFixed(2)} ms/token: ${(msPerToken / bandwidthFloor).toFixed(1)}× it`,
  );

  // The peer, same input, same number of tokens, greedy; runs interleaved with ours so that load
  // from other processes falls on both alike.
  let peerOverOurs: number | undefined;
  const peer = await loadPeer(root, target.system, threads);
  if ('missing' in peer) {
    r.row('transformers.js generate()', null, undefined, `skipped: ${peer.missing}`);
  } else if (variant !== 'shipped') {
    r.row('transformers.js generate()', null, undefined, 'skipped: the peer is exported from the shipped model');
  } else {
    r.row('transformers.js load (encoder_model + decoder_model_merged)', peer.loadMs, 'ms');
    const peerMs: number[] = [];
    const peerFloor: number[] = [];
    let peerIds = await peer.generate(input.peerInput, greedyTokens); // warm
    oursTotal.length = 0;
    const oursTotalFloor: number[] = [];
    for (let i = 0; i < runs; i++) {
      sessionTime.reset();
      const encodeFloor = await ours();
      oursTotalFloor.push(sessionTime.ms + encodeFloor);
      sessionTime.reset();
      const t0 = performance.now();
      peerIds = await peer.generate(input.peerInput, greedyTokens);
      peerMs.push(performance.now() - t0);
      peerFloor.push(sessionTime.ms);
    }
    const same = peerIds.length === oursIds.length && peerIds.every((x, i) => x === oursIds[i]);
    peerOverOurs = median(peerMs) / median(oursTotal);
    r.row(
      'same greedy tokens as our loop',
      same ? 'yes' : 'NO',
      undefined,
      same ? undefined : `ours ${oursIds.slice(0, 8).join(' ')}…, peer ${peerIds.slice(0, 8).join(' ')}…`,
    );
    r.row(`our loop: encode + greedy ${greedyTokens} tokens`, median(oursTotal), 'ms', 'both are given the token ids');
    r.row(
      `transformers.js generate(): ${greedyTokens} tokens`,
      median(peerMs),
      'ms',
      `its session.run calls: ${median(peerFloor).toFixed(0)} ms (its loop takes ` +
        `${(median(peerMs) / median(peerFloor)).toFixed(3)}× that); ours: ${median(oursTotalFloor).toFixed(0)} ms`,
    );
    r.row(
      'transformers.js time / ours',
      peerOverOurs,
      '×',
      peerOverOurs >= 1
        ? `ours is ${peerOverOurs.toFixed(2)}× as fast`
        : `ours is ${(1 / peerOverOurs).toFixed(2)}× as slow`,
    );
    await peer.dispose();
  }
  r.summary({
    model: `${target.system}: ${m.name}`,
    variant,
    threads,
    loadMs,
    firstTokenMs: beamRun.first,
    greedyTokensPerSecond: greedyTokens / (median(oursDecode) / 1000),
    beam: m.defaultBeam,
    beamTokensPerSecond: (m.defaultBeam * beamRun.steps) / (beamRun.decodeMs / 1000),
    beamLoopOverFloor: beamRun.loop / beamRun.decodeFloor,
    loopOverFloor,
    msPerToken,
    bandwidthFloorMsPerToken: bandwidthFloor,
    peerOverOurs,
    peakRssMB: rss,
    sizeMB,
  });
  r.done();
}
