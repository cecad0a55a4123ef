/**
 * model.json: the manifest every model folder carries (written by models/train/*export*.py).
 * A folder is checked against it before any session is created, so a broken folder gets an
 * error that names the file and what is wrong instead of a crash deep inside onnxruntime.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { EngineError, errorMessage } from '../errors';

export const SpecialTokens = z.object({
  pad: z.number().int().min(0),
  unk: z.number().int().min(0),
  bos: z.number().int().min(0),
  eos: z.number().int().min(0),
  mask: z.number().int().min(0).optional(),
});
export type SpecialTokens = z.infer<typeof SpecialTokens>;

export const DecodingDefaults = z.object({
  strategy: z.enum(['greedy', 'beam', 'top-k']),
  beamSize: z.number().int().min(1).default(4),
  maxLength: z.number().int().min(1).default(80),
  minLength: z.number().int().min(0).default(0),
  lengthPenalty: z.number().min(0).default(1),
  noRepeatNgramSize: z.number().int().min(0).default(0),
  topK: z.number().int().min(1).optional(),
  temperature: z.number().positive().optional(),
  /** Round-Trip: the output is at most this many times the input's length (tokens and sentences). */
  maxLengthRatio: z.number().positive().optional(),
});
export type DecodingDefaults = z.infer<typeof DecodingDefaults>;

/** What every encoder-decoder Transformer manifest states about its shape. */
const TransformerShape = z.object({
  vocabSize: z.number().int().positive(),
  dModel: z.number().int().positive(),
  heads: z.number().int().positive(),
  encoderLayers: z.number().int().positive(),
  decoderLayers: z.number().int().positive(),
  maxSourcePositions: z.number().int().positive(),
  maxTargetPositions: z.number().int().positive(),
});

export const TaasArchitecture = TransformerShape.extend({
  type: z.literal('taas-encoder-decoder'),
  numTopics: z.number().int().positive(),
  topicAttention: z.boolean(),
  copy: z.boolean(),
});

export const PcsanArchitecture = TransformerShape.extend({
  type: z.literal('pcsan-encoder-decoder'),
  layerMix: z.enum(['dynamic', 'static', 'last', 'none']),
  context: z.enum(['target', 'none', 'source']),
  /** The piece that separates the joined topic words. */
  separatorId: z.number().int().min(0),
  /** A pointer over the topic subwords: the decoder then also takes source_ids. */
  copy: z.boolean().default(false),
});

/**
 * Round-Trip Paragraph (Li, Luong & Jurafsky 2015): LSTM paragraph autoencoders, step-wise graphs
 * with the LSTM states [layers, 1, hidden] as inputs and outputs (export_roundtrip.py).
 */
const RoundTripShape = z.object({
  vocabSize: z.number().int().positive(),
  embed: z.number().int().positive(),
  hidden: z.number().int().positive(),
  layers: z.number().int().positive(),
  /** The longest paragraph (sentences) and sentence (subwords) training read. */
  maxSentences: z.number().int().positive(),
  maxSentenceTokens: z.number().int().positive(),
});

/** Sec. 3.1: one LSTM over the whole paragraph as one token sequence, one LSTM decoder. */
export const RoundTripStandardArchitecture = RoundTripShape.extend({
  type: z.literal('roundtrip-standard'),
  attention: z.literal(false),
});

/** Sec. 3.2: word LSTM -> sentence vectors -> sentence LSTM; the decoder mirrors it (sentence_step.onnx). */
export const RoundTripHierArchitecture = RoundTripShape.extend({
  type: z.literal('roundtrip-hier'),
  attention: z.literal(false),
});

/** Sec. 3.3: the hierarchical model with attention over the input sentences at each sentence step (Eqs. 10-15). */
export const RoundTripHierAttnArchitecture = RoundTripShape.extend({
  type: z.literal('roundtrip-hier-attn'),
  attention: z.literal(true),
});

export const Architecture = z.discriminatedUnion('type', [
  TaasArchitecture, PcsanArchitecture, RoundTripStandardArchitecture, RoundTripHierArchitecture, RoundTripHierAttnArchitecture,
]);

export const Manifest = z.object({
  schemaVersion: z.literal(1),
  system: z.enum(['summarize', 'essay', 'story', 'roundtrip', 'reply']),
  name: z.string().min(1),
  description: z.string().default(''),
  architecture: Architecture,
  /** Role -> file name inside the folder. */
  files: z.record(z.string(), z.string().min(1)),
  /** File name -> its sha256; every file in `files` must have one (checked on load). */
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).default({}),
  specialTokens: SpecialTokens,
  maxInputTokens: z.number().int().positive(),
  decoding: DecodingDefaults,
  training: z.record(z.string(), z.unknown()).optional(),
});
export type Manifest = z.infer<typeof Manifest>;

export interface ModelFolder {
  dir: string;
  manifest: Manifest;
  /** Absolute path of the file for a role named in the manifest. */
  file(role: string): string;
}

/**
 * Reads and checks a model folder: model.json parses and matches the schema, every file it names
 * exists, is non-empty, has a recorded sha256 and still has it (a truncated or corrupted download,
 * or a file swapped in by hand, is caught here, before onnxruntime parses it).
 */
export async function loadModelFolder(dir: string, expectedSystem: Manifest['system']): Promise<ModelFolder> {
  const manifestPath = path.join(dir, 'model.json');
  let raw: string;
  try {
    raw = await fs.readFile(manifestPath, 'utf8');
  } catch {
    throw new EngineError('bad-model', `Model folder ${dir} has no readable model.json (expected ${manifestPath}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new EngineError('bad-model', `${manifestPath} is not valid JSON: ${errorMessage(e)}`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineError('bad-model', `${manifestPath}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const manifest = parsed.data;
  if (manifest.system !== expectedSystem) {
    throw new EngineError('bad-model', `${manifestPath} describes a "${manifest.system}" model, not "${expectedSystem}".`);
  }
  for (const [role, name] of Object.entries(manifest.files)) {
    const p = path.join(dir, name);
    if (path.relative(dir, p).startsWith('..')) {
      throw new EngineError('bad-model', `${manifestPath}: files.${role} points outside the model folder (${name}).`);
    }
    let size: number;
    try {
      size = (await fs.stat(p)).size;
    } catch {
      throw new EngineError('bad-model', `Model file ${p} (${role}) is missing.`);
    }
    if (size === 0) throw new EngineError('bad-model', `Model file ${p} (${role}) is empty.`);
    const expected = manifest.sha256[name];
    // A file without a hash could be anything: the engine runs what these files say, so none is unchecked.
    if (!expected) throw new EngineError('bad-model', `${manifestPath}: sha256 lists no hash for ${name} (${role}); every model file needs one.`);
    const actual = createHash('sha256').update(await fs.readFile(p)).digest('hex');
    if (actual !== expected) {
      throw new EngineError('bad-model', `Model file ${p} (${role}) is corrupt: its sha256 is ${actual.slice(0, 12)}…, model.json expects ${expected.slice(0, 12)}….`);
    }
  }
  return { dir, manifest, file: (role) => {
    const name = manifest.files[role];
    if (!name) throw new EngineError('bad-model', `${manifestPath} names no "${role}" file.`);
    return path.join(dir, name);
  } };
}
