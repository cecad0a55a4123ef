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
  /** The pretrained encoder: the recipe's own, or the blocks of the shared GPT-2 backbone (causal). */
  encoder: z.enum(['own', 'backbone']).default('own'),
  /** The backbone's attention heads (only the training side rebuilds the encoder from them). */
  encoderHeads: z.number().int().positive().optional(),
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

/**
 * One tensor of a step graph's incremental state (the story models): fed as past_X, returned as
 * present_X, and zeros of this shape before the first step ("batch" for the batch axis; a 0 is the
 * self-attention's past, which grows by one position per step).
 */
export const StateTensor = z.object({
  name: z.string().regex(/^(?:pretrained_)?past_[a-z_]+$/, 'a state tensor is named past_* or pretrained_past_*'),
  shape: z.array(z.union([z.number().int().min(0), z.literal('batch')])).min(1),
});
export type StateTensor = z.infer<typeof StateTensor>;

/** A gated convolutional decoder with gated multi-scale self-attention (gconv.py GatedConvDecoder). */
const ConvDecoderShape = z.object({
  embedDim: z.number().int().positive(),
  hidden: z.number().int().positive(),
  decoderLayers: z.number().int().positive(),
  decoderKernel: z.number().int().positive(),
  /** Which decoder layers carry self-attention (section 3.3). */
  selfAttentionLayers: z.array(z.boolean()),
  attentionHeads: z.number().int().positive(),
  attentionDim: z.number().int().positive(),
  /** Head h sees the past downsampled by this factor. */
  downsampling: z.array(z.number().int().positive()),
  gatedAttention: z.boolean(),
  attendZero: z.boolean(),
  maxTargetPositions: z.number().int().positive(),
});

/** The convolutional seq2seq (section 3.2): the decoder above plus a gated convolutional encoder. */
const ConvSeq2seqShape = ConvDecoderShape.extend({
  encoderLayers: z.number().int().positive(),
  encoderKernel: z.number().int().positive(),
  maxSourcePositions: z.number().int().positive(),
});

/**
 * The shared backbone (a GPT-2) in a story model's place: as fusion's frozen half it reads the prompt
 * first (readsPrompt: the encoder hands its key/value cache to the decoder as pretrained_prompt_key_values);
 * as the premise model it reads the premise alone. Prompt and story share its positions.
 */
const Gpt2Shape = z.object({
  type: z.literal('gpt2'),
  layers: z.number().int().positive(),
  heads: z.number().int().positive(),
  embedDim: z.number().int().positive(),
  maxTargetPositions: z.number().int().positive(),
  readsPrompt: z.boolean().optional(),
});

const PremiseFields = {
  vocabSize: z.number().int().positive(),
  endOfPromptId: z.number().int().min(0),
  maxTokens: z.number().int().positive(),
  state: z.array(StateTensor).min(1),
};

/** Hierarchical story generation (Fan et al. 2018): the story seq2seq (fused, section 3.4) and the premise LM. */
export const StoryArchitecture = ConvSeq2seqShape.extend({
  type: z.literal('story-conv-seq2seq'),
  vocabSize: z.number().int().positive(),
  /** A second seq2seq trained on top of the frozen pretrained one: the decoder also returns fusion_gates. */
  fusion: z.boolean(),
  /** The encoder reads the prompt followed by </s>. */
  sourceEndsWithEos: z.boolean(),
  state: z.array(StateTensor).min(1),
  /** The frozen pretrained seq2seq's shape (fusion only): a Conv seq2seq, or the backbone reading the prompt. */
  pretrained: z.union([ConvSeq2seqShape, Gpt2Shape]).optional(),
  /**
   * The language model that writes a premise, up to its end-of-prompt token: GCNN + self-attention, or the backbone.
   */
  premise: z.union([ConvDecoderShape.extend(PremiseFields), Gpt2Shape.extend(PremiseFields)]),
  /** The continuation's length when none is asked for, in words. */
  defaultWords: z.number().int().positive(),
  /** The longest story the model was trained on, in tokens. */
  maxTargetTokens: z.number().int().positive(),
  /** Tokens never sampled (<unk>, padding, <s>, the mask). */
  neverSample: z.array(z.number().int().min(0)),
});

/**
 * Suggest Replies (export_reply.py): a GRU seq2seq with attention; ESED adds the external semantic
 * memory (memory.bin, keys.json) read once per key and appended to every encoder output (Eq. 13).
 */
const ReplyShape = z.object({
  vocabSize: z.number().int().positive(),
  embed: z.number().int().positive(),
  /** The decoder's state size; the bidirectional encoder's outputs have encoderDim = 2 x hidden. */
  hidden: z.number().int().positive(),
  encoderDim: z.number().int().positive(),
  /** Memory vectors' size D, slots per key L, keys K, and the read's β (Eq. 12). */
  memoryDim: z.number().int().positive(),
  slots: z.number().int().positive(),
  keys: z.number().int().positive(),
  beta: z.number().positive(),
  maxReplyTokens: z.number().int().positive(),
});

export const ReplyEsedArchitecture = ReplyShape.extend({ type: z.literal('reply-esed'), memory: z.literal(true) });
/** The NRM baseline: the same seq2seq without the memory (decoder_step.onnx has no memory_read input). */
export const ReplyNrmArchitecture = ReplyShape.extend({ type: z.literal('reply-nrm'), memory: z.literal(false) });

export const Architecture = z.discriminatedUnion('type', [
  TaasArchitecture,
  PcsanArchitecture,
  StoryArchitecture,
  RoundTripStandardArchitecture,
  RoundTripHierArchitecture,
  RoundTripHierAttnArchitecture,
  ReplyEsedArchitecture,
  ReplyNrmArchitecture,
]);

export const Manifest = z.object({
  schemaVersion: z.literal(1),
  /** Whose folder this is (a registry name: systems/registry.ts). Not listed here: loadModelFolder holds it
   * to the system that asked, so no folder is ever accepted for another system. */
  system: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(''),
  architecture: Architecture,
  /**
   * Role -> file name inside the folder. Optional role knownWords: the model's known-word list
   * (words.txt, one lower-case word a line, written by models/train/draftsmith_train/wordlist.py)
   * for the vocabulary guard (decode/guards.ts); a model without one decodes with no vocabulary guard.
   */
  files: z
    .record(z.string(), z.string().min(1))
    .refine((f) => f.knownWords === undefined || /\.txt$/.test(f.knownWords), {
      message: 'files.knownWords must name a .txt word list (one word a line)',
      path: ['knownWords'],
    }),
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
export async function loadModelFolder(dir: string, expectedSystem: string): Promise<ModelFolder> {
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
    throw new EngineError(
      'bad-model',
      `${manifestPath} describes a "${manifest.system}" model, not "${expectedSystem}".`,
    );
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
    if (!expected)
      throw new EngineError(
        'bad-model',
        `${manifestPath}: sha256 lists no hash for ${name} (${role}); every model file needs one.`,
      );
    const actual = createHash('sha256')
      .update(await fs.readFile(p))
      .digest('hex');
    if (actual !== expected) {
      throw new EngineError(
        'bad-model',
        `Model file ${p} (${role}) is corrupt: its sha256 is ${actual.slice(0, 12)}…, model.json expects ` +
          `${expected.slice(0, 12)}….`,
      );
    }
  }
  return {
    dir,
    manifest,
    file: (role) => {
      const name = manifest.files[role];
      if (!name) throw new EngineError('bad-model', `${manifestPath} names no "${role}" file.`);
      return path.join(dir, name);
    },
  };
}
