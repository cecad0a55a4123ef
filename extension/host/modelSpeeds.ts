/**
 * What Manage Models knows of this machine: each downloaded model's measured speed (Measure Speed),
 * kept in the extension's global state per model folder, device and threads, with the folder's stamp
 * (its files' count, bytes and latest change) so that a changed download counts as not measured; the
 * expected time of a 150-word rewrite; and the model recommended for the wait the user accepts
 * (draftsmith.models.targetSeconds). Nothing here runs a model or imports vscode: the numbers come
 * from the engine, and the tests read this module directly.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { SPEED_PROMPT_TOKENS, type SpeedResult } from '../protocol';
import { ESSAY_MODELS, STORY_MODELS, SUMMARIZE_MODELS } from './recommendedModels';

/** The global state's key: one record of measurements, each key a model folder on a device with a thread count. */
export const SPEEDS_KEY = 'draftsmith.modelSpeeds';

/**
 * The tokens a 150-word rewrite writes: English runs about 1.3 tokens a word, so its 150 words are
 * about 200 tokens (its prompt, the instructions and those words, is about SPEED_PROMPT_TOKENS).
 */
export const REWRITE_OUTPUT_TOKENS = 200;

export const Measurement = z.object({
  /** The folder (or GGUF file) measured, and its stamp when it was. */
  dir: z.string(),
  stamp: z.string(),
  device: z.string(),
  threads: z.number().int().nonnegative(),
  /** What ran: the weights' data type and the runtime's device. */
  dtype: z.string(),
  ranOn: z.string(),
  loadMs: z.number().nonnegative(),
  promptTokens: z.number().int().positive(),
  firstTokenMs: z.number().nonnegative(),
  tokensPerSecond: z.number().positive(),
  /** ISO time of the measurement. */
  at: z.string(),
});
export type Measurement = z.infer<typeof Measurement>;

/** Where the measurements are kept: the extension's global state (vscode.Memento's two calls). */
export interface SpeedStore {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

/** What the machine runs with: a measurement counts for this device and thread count only. */
export interface Machine {
  device: string;
  threads: number;
}

const speedKey = (dir: string, m: Machine) => `${path.resolve(dir)}|${m.device}|${m.threads}`;

/** Every stored measurement that still reads as one; anything else (an older version's, hand-edited) is dropped. */
function readAll(store: SpeedStore): Record<string, Measurement> {
  const raw = store.get(SPEEDS_KEY);
  const out: Record<string, Measurement> = {};
  if (typeof raw !== 'object' || raw === null) return out;
  for (const [key, value] of Object.entries(raw)) {
    const parsed = Measurement.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
  }
  return out;
}

/** The measurement of the folder as it is now (same stamp), on this machine's device and threads. */
export function measurementOf(
  store: SpeedStore,
  dir: string,
  stamp: string,
  machine: Machine,
): Measurement | undefined {
  const m = readAll(store)[speedKey(dir, machine)];
  return m && m.stamp === stamp ? m : undefined;
}

/** Keeps the engine's numbers for the folder as it is now. */
export async function keepMeasurement(
  store: SpeedStore,
  dir: string,
  stamp: string,
  machine: Machine,
  result: SpeedResult,
  at: Date = new Date(),
): Promise<Measurement> {
  const m: Measurement = {
    dir: path.resolve(dir),
    stamp,
    ...machine,
    dtype: result.dtype,
    ranOn: result.device,
    loadMs: result.loadMs,
    promptTokens: result.promptTokens,
    firstTokenMs: result.firstTokenMs,
    tokensPerSecond: result.tokensPerSecond,
    at: at.toISOString(),
  };
  await store.update(SPEEDS_KEY, { ...readAll(store), [speedKey(dir, machine)]: m });
  return m;
}

/**
 * The expected seconds of a 150-word rewrite: its prompt read (the measured first-token time, scaled
 * to SPEED_PROMPT_TOKENS where the model's context made the measured prompt shorter), then
 * REWRITE_OUTPUT_TOKENS written at the measured rate.
 */
export function rewriteSeconds(m: Pick<Measurement, 'firstTokenMs' | 'promptTokens' | 'tokensPerSecond'>): number {
  const firstToken = (m.firstTokenMs / 1000) * (SPEED_PROMPT_TOKENS / m.promptTokens);
  return firstToken + REWRITE_OUTPUT_TOKENS / m.tokensPerSecond;
}

/** Seconds as the manager shows them: tenths below 10 s, whole seconds above. */
export const seconds = (s: number) => (s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`);

/** One measurement in a few words: "first token 400 ms · 28 tokens/s · 150-word rewrite ≈ 7.6 s". */
export function describeSpeed(m: Measurement): string {
  const rate = m.tokensPerSecond >= 10 ? Math.round(m.tokensPerSecond) : m.tokensPerSecond.toFixed(1);
  const first = m.firstTokenMs < 1000 ? `${Math.round(m.firstTokenMs)} ms` : seconds(m.firstTokenMs / 1000);
  return `first token ${first} · ${rate} tokens/s · 150-word rewrite ≈ ${seconds(rewriteSeconds(m))}`;
}

/** A model the recommendation weighs: how good a writer it likely is (`rank`, higher is better), and its speed. */
export interface Candidate<T> {
  model: T;
  rank: number;
  measurement: Measurement | undefined;
}

export type Recommendation<T> =
  | { kind: 'fits'; model: T; seconds: number }
  | { kind: 'none-fits'; fastest: T; seconds: number }
  | { kind: 'none-measured' };

/**
 * The best model whose 150-word rewrite takes at most `targetSeconds`: the highest rank among the
 * measured ones that fit (the quicker on equal rank); with none fitting, the fastest measured one.
 */
export function recommend<T>(candidates: readonly Candidate<T>[], targetSeconds: number): Recommendation<T> {
  const measured = candidates.flatMap((c) => (c.measurement ? [{ ...c, s: rewriteSeconds(c.measurement) }] : []));
  if (measured.length === 0) return { kind: 'none-measured' };
  const fits = measured.filter((c) => c.s <= targetSeconds).sort((a, b) => b.rank - a.rank || a.s - b.s);
  if (fits.length) return { kind: 'fits', model: fits[0].model, seconds: fits[0].s };
  const fastest = [...measured].sort((a, b) => a.s - b.s)[0];
  return { kind: 'none-fits', fastest: fastest.model, seconds: fastest.s };
}

// ---- what the folder says of the model -----------------------------------------------------------

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const num = (o: Record<string, unknown>, ...keys: string[]) => {
  for (const k of keys) if (typeof o[k] === 'number' && Number.isFinite(o[k])) return o[k];
  return undefined;
};

/**
 * What config.json says of a downloaded model: whether it is a language model the writing commands
 * run (a causal LM: measurable), and its parameters, estimated from its shapes (the embedding table
 * and, per layer, attention's four h×h matrices and a gated MLP's three h×i): the recommendation's
 * rank, so that the larger model of two that fit is the one recommended.
 */
export function modelShape(dir: string): { causal: boolean; parameters: number } | undefined {
  const config = readJson(path.join(dir, 'config.json'));
  if (!config) return undefined;
  const archs = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  const causal = archs.length
    ? archs.some((a) => /ForCausalLM$|LMHeadModel$/.test(a))
    : config.is_encoder_decoder !== true && typeof config.model_type === 'string';
  const h = num(config, 'hidden_size', 'n_embd', 'd_model') ?? 0;
  const layers = num(config, 'num_hidden_layers', 'n_layer', 'num_layers') ?? 0;
  const inner = num(config, 'intermediate_size', 'n_inner') ?? 4 * h;
  const vocab = num(config, 'vocab_size') ?? 0;
  return { causal, parameters: vocab * h + layers * (4 * h * h + 3 * h * inner) };
}

/**
 * A GGUF file's parameters, estimated from its size: about 5 bits a weight, the average of the
 * quantisations writers download most (Q4_K_M keeps some tensors at 6 bits). A rank, not a count:
 * a Q8_0 file ranks above the Q4 of the same model, which is the better writer of the two.
 */
export const ggufParameters = (bytes: number) => (bytes * 8) / 5;

const RECOMMENDED = [...STORY_MODELS, ...SUMMARIZE_MODELS, ...ESSAY_MODELS];

/** The model's licence: the recommended list's, else its model card's front matter (README.md's `license:`). */
export function licenceOf(id: string, dir: string): string | undefined {
  const known = RECOMMENDED.find((m) => m.id === id);
  if (known) return known.licence;
  let card: string;
  try {
    card = readFileSync(path.join(dir, 'README.md'), 'utf8').slice(0, 4000);
  } catch {
    return undefined;
  }
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(card)?.[1];
  const line = front ? /^license(?:_name)?:\s*["']?([^"'\r\n]+)["']?\s*$/m.exec(front) : null;
  return line?.[1].trim() || undefined;
}
