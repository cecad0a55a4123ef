/**
 * The measurements of a model whose command runs its own decoding loop over step sessions that are
 * not a Transformer's (Continue Story's convolutional decoder, Round-Trip's LSTMs, Suggest Replies'
 * GRU): load time, time to first token, tokens per second of the command's own path at batch 1 (and
 * per beam), that loop's time against the floor (the time inside session.run), the memory-bandwidth
 * floor of a step, the peak RSS; as rows and one line of the summary table. transformers.js has no
 * generate() for these layouts, so there is no peer row.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { sessionTime } from './sessionTimer';
import { copyBandwidth } from './bandwidth';
import { onnxInitializers } from './onnxWeights';
import { median, peakRssMB, Reporter } from './report';

export const root = path.resolve(__dirname, '..', '..');

const mb = (bytes: number) => bytes / 1024 / 1024;

/** What one run of the command reports back (its own stats). */
export interface LoopRunStats {
  /** Tokens written (for a beam search: those of the hypotheses kept). */
  outputTokens: number;
  encodeMs: number;
  decodeMs: number;
}

export interface LoopTarget {
  system: string;
  /** The model's name (model.json), for the table. */
  name: string;
  loadMs: number;
  dir: string;
  /** Every ONNX file of the folder (the size column). */
  files: string[];
  /**
   * The session(s) writing a token runs, and how many times per token (the bandwidth floor), given what the runs wrote.
   */
  stepFiles(written: { tokens: number; steps: number }): { file: string; perToken: number }[];
  /** Initializers a step reads one row of (embedding tables), left out of the bytes a step must read. */
  rowLookups: RegExp;
  /** How the command decodes: 'greedy', 'sampling' (one token per step) or the beam size. */
  decoding: 'greedy' | 'sampling' | number;
  /** session.run calls of the encoder (before the decoding loop's). */
  encoderCalls: number;
  /** The session.run call (0-based) at whose end the first token exists. */
  firstTokenCall: number;
  /** The inputs, in words for the report. */
  input: string;
  /** Runs the command once on input i. */
  run(i: number): Promise<LoopRunStats>;
  inputs: number;
  /** More rows after the measurements (the same reporter). */
  extra?(r: Reporter): Promise<void>;
}

export async function benchLoop(t: LoopTarget, threads: number, variant: string, baseRss: number): Promise<void> {
  const label = `${t.system} (${variant}, threads ${threads})`;
  const r = new Reporter(label);
  r.section(label);
  const sizeMB = mb(t.files.reduce((s, f) => s + statSync(path.join(t.dir, f)).size, 0));
  r.row('model', `${t.name} from ${path.relative(root, t.dir) || t.dir}`, undefined, t.input);
  r.row('ONNX files', sizeMB, 'MB', t.files.join(' + '));
  r.row('model load (sessions, tokenizer, checks)', t.loadMs, 'ms');

  const firsts: number[] = [];
  const wholes: number[] = [];
  const msPerStep: number[] = [];
  const floorPerStep: number[] = [];
  let tokens = 0;
  let steps = 0;
  let decodeMs = 0;
  let decodeFloorMs = 0;
  for (let i = 0; i < t.inputs; i++) {
    sessionTime.reset();
    const start = performance.now();
    const s = await t.run(i);
    wholes.push(performance.now() - start);
    const first = sessionTime.ends[t.firstTokenCall];
    if (first !== undefined) firsts.push(first - start);
    // Every session.run but the encoder's is a decoding step (all beams in one call).
    const encoderFloor = sessionTime.each.slice(0, t.encoderCalls).reduce((a, b) => a + b, 0);
    const n = Math.max(1, sessionTime.calls - t.encoderCalls);
    tokens += s.outputTokens;
    steps += n;
    decodeMs += s.decodeMs;
    decodeFloorMs += sessionTime.ms - encoderFloor;
    msPerStep.push(s.decodeMs / n);
    floorPerStep.push((sessionTime.ms - encoderFloor) / n);
  }
  const beam = typeof t.decoding === 'number' ? t.decoding : 1;
  const stepsPerSecond = steps / (decodeMs / 1000);
  // At batch 1 what the writer sees is tokens per second; a beam step writes one token per beam.
  const perSecond = beam > 1 ? beam * stepsPerSecond : tokens / (decodeMs / 1000);
  const msPerToken = beam > 1 ? decodeMs / steps : decodeMs / tokens;
  const loopOverFloor = decodeMs / decodeFloorMs;
  r.row(
    'time to first token, first command (model loaded)',
    firsts[0],
    'ms',
    "the command's own path: reading the input, the encoder, the first step",
  );
  r.row('time to first token (median)', median(firsts), 'ms');
  r.row(
    'time to first token, cold (load + first command)',
    t.loadMs + firsts[0],
    'ms',
    'without the worker start and onnxruntime-node load (activation bench)',
  );
  r.row('whole command (median)', median(wholes), 'ms', `${t.inputs} inputs`);
  r.row('decoding steps per second', stepsPerSecond, 'steps/s', `${steps} session.run calls after the encoder`);
  r.row(
    beam > 1 ? `beam ${beam}: beam-tokens per second` : `${t.decoding}: tokens per second at batch 1`,
    perSecond,
    'tokens/s',
    beam > 1 ? 'one token per beam per step' : `${tokens} tokens`,
  );
  r.row(
    'ms per step (median over inputs)',
    median(msPerStep),
    'ms',
    `session.run alone: ${median(floorPerStep).toFixed(2)} ms`,
  );
  r.row(
    'decoding loop / its session.run time',
    loopOverFloor,
    '×',
    `${decodeMs.toFixed(0)} ms over ${decodeFloorMs.toFixed(0)} ms in the step sessions, ${steps} steps, ` +
      `${tokens} tokens kept`,
  );
  const rss = peakRssMB();
  r.row(
    "peak RSS of this process (the worker's part)",
    rss,
    'MB',
    `a bare Node process here: ${baseRss.toFixed(0)} MB`,
  );

  // The memory-bandwidth floor: a step reads each weight of its session once, but one row of an embedding table.
  let stepBytes = 0;
  const stepFiles = t.stepFiles({ tokens, steps });
  for (const { file, perToken } of stepFiles) {
    const bytes = onnxInitializers(path.join(t.dir, file))
      .filter((w) => !t.rowLookups.test(w.name))
      .reduce((s, w) => s + w.bytes, 0);
    stepBytes += bytes * perToken;
  }
  const bw = copyBandwidth();
  const bandwidthFloor = (stepBytes / bw.bytesPerSecond) * 1000;
  r.row('copy bandwidth (Float32Array.set, 256 MB, read + write)', bw.bytesPerSecond / 1e9, 'GB/s');
  r.row(
    `bytes read per ${beam > 1 ? 'step' : 'token'} at least`,
    mb(stepBytes),
    'MB',
    stepFiles.map((f) => `${f.file}${f.perToken !== 1 ? ` × ${f.perToken.toFixed(2)}` : ''}`).join(' + ') +
      ', embedding rows aside',
  );
  r.row(
    `memory-bandwidth floor per ${beam > 1 ? 'step' : 'token'}`,
    bandwidthFloor,
    'ms',
    `the loop takes ${msPerToken.toFixed(2)} ms: ${(msPerToken / bandwidthFloor).toFixed(1)}× it`,
  );
  r.row(
    'transformers.js generate()',
    null,
    undefined,
    'not applicable: transformers.js runs Transformer layouts, this model is not one',
  );
  if (t.extra) await t.extra(r);

  r.summary({
    model: `${t.system}: ${t.name}${t.decoding === 'sampling' ? ' (top-k sampling)' : ''}`,
    variant,
    threads,
    loadMs: t.loadMs,
    firstTokenMs: median(firsts),
    ...(beam > 1
      ? { beam, beamTokensPerSecond: perSecond, beamLoopOverFloor: loopOverFloor }
      : { greedyTokensPerSecond: perSecond, loopOverFloor }),
    msPerToken,
    bandwidthFloorMsPerToken: bandwidthFloor,
    peakRssMB: rss,
    sizeMB,
  });
  r.done();
}
