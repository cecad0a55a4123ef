/**
 * The typed messages between host, worker and webview, declared once (the role rust-analyzer's
 * lsp_ext.ts plays). Every message that crosses a thread or a webview boundary is parsed with
 * these schemas on arrival; nothing is cast.
 *
 * Streaming follows continue's shape: a request gets any number of progress/partial messages and
 * ends with exactly one result or error; a cancel ends it with an error of code "cancelled".
 */
import { z } from 'zod';
import { DEFAULT_THREADS } from './engine/runtime/threads';

// ---- engine settings ---------------------------------------------------------------------------

/** auto: CUDA where there is one, else the CPU; or one execution provider by name (onnxruntime-node's). */
export const DeviceSetting = z.enum(['auto', 'cpu', 'cuda', 'dml', 'coreml', 'webgpu']);
export type DeviceSetting = z.infer<typeof DeviceSetting>;

/**
 * Where Hub models come from and are kept. The endpoint is the Hub's URL layout
 * (<endpoint><id>/resolve/<revision>/<file>): huggingface.co, a mirror, or the tests' loopback Hub.
 */
export const HubConfig = z.object({
  endpoint: z.string().url().default('https://huggingface.co/'),
  /** The download cache: the extension's global storage, or ~/.cache/draftsmith for the CLI. */
  cacheDir: z.string().min(1),
  /** Never download: only models already in the cache (or local folders) load. */
  offline: z.boolean().default(false),
  /** A download that receives nothing for this long fails (a server that stops answering). */
  stallSeconds: z.number().min(1).max(600).default(30),
  /**
   * The most tokens (prompt and output) a Hub language model reads, below its own limit: its cache
   * grows with each, so this bounds memory. Absent: hub/hubSystems.ts DEFAULT_CONTEXT_CAP.
   */
  contextTokens: z.number().int().min(256).max(131072).optional(),
});
export type HubConfig = z.infer<typeof HubConfig>;

export const EngineConfig = z.object({
  /** Folder holding one sub-folder per system (summarize/, essay/, ...). */
  modelsDir: z.string().min(1),
  /**
   * Draftsmith model folders from a URL in place of modelsDir (draftsmith.modelsUrl): <url>/<folder>/
   * model.json and its files, downloaded once into hub.cacheDir, each file checked against its sha256.
   */
  modelsUrl: z
    .string()
    .url()
    .refine((u) => /^https?:/.test(u), 'an http or https URL')
    .optional(),
  hub: HubConfig.optional(),
  device: DeviceSetting.default('auto'),
  /** Intra-op threads per session; 0 lets onnxruntime choose (one per core). */
  threads: z.number().int().min(0).max(64).default(DEFAULT_THREADS),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

// ---- which model a command runs ------------------------------------------------------

/** A Hugging Face Hub repository id: owner/name. */
export const HubModelId = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/, 'a Hub model id is owner/name');

/**
 * The model a request runs: the built-in one (the models folder's), a Hub model (downloaded into
 * the cache on first use), or a local folder (a Draftsmith folder with model.json, or a folder in
 * transformers.js's layout with config.json and onnx/).
 */
export const ModelChoice = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('built-in') }),
  z.object({
    kind: z.literal('hub'),
    id: HubModelId,
    // A branch, tag or commit; never '.' or '..' (it names a folder of the download cache).
    revision: z
      .string()
      .min(1)
      .max(100)
      .regex(/^(?!\.{1,2}$)[\w.-]+$/)
      .optional(),
  }),
  z.object({ kind: z.literal('folder'), dir: z.string().min(1) }),
]);
export type ModelChoice = z.infer<typeof ModelChoice>;

/** What a result says about a model that is not a built-in Draftsmith model (absent: one of ours). */
/** One decoding value a Hub model ran with, and whose it was: the user's setting, the model's generation_config, or Draftsmith's default. */
export const DecodingValue = z.object({
  name: z.string(),
  value: z.number(),
  from: z.enum(['setting', 'model', 'draftsmith']),
});
export type DecodingValue = z.infer<typeof DecodingValue>;

export const ExternalModel = z.object({
  /** The Hub id, or the folder. */
  id: z.string(),
  /** config.json's model_type (gpt2, bart, ...). */
  architecture: z.string(),
  /** What the insights panel can show for it, in words (e.g. no attention: the graph does not export it). */
  note: z.string(),
  /** The decoding values that ran, where the model has its own (generation_config.json). */
  decoding: z.array(DecodingValue).optional(),
  /** Set when the text was cut to the context cap (draftsmith.hub.contextTokens): what was read of how much. */
  contextCut: z.object({ usedTokens: z.number().int(), totalTokens: z.number().int() }).optional(),
});
export type ExternalModel = z.infer<typeof ExternalModel>;

// ---- per-system requests and results ----------------------------------------------------------

/**
 * Where a request's text came from, for the engine's messages about it (engine/text/origin.ts):
 * 'selection' (absent: the editor's selection or document, the extension's wording), 'file' or
 * 'text' (the CLI: a file, or text given on the command line or standard input).
 */
export const TextOrigin = z.enum(['selection', 'file', 'text']);
export type TextOrigin = z.infer<typeof TextOrigin>;

export const BeamOptions = z.object({
  beamSize: z.number().int().min(1).max(16).optional(),
  maxLength: z.number().int().min(1).max(512).optional(),
  minLength: z.number().int().min(0).max(512).optional(),
  lengthPenalty: z.number().min(0).max(5).optional(),
  noRepeatNgramSize: z.number().int().min(0).max(10).optional(),
});
export type BeamOptions = z.infer<typeof BeamOptions>;

/**
 * 'extractive': the source sentences the model's topic-aware attention (TAAS Eq. 11) weighs most,
 * verbatim and in document order (the setting's default: nothing in it is invented).
 * 'abstractive': the TAAS decoder writes a new summary (beam search).
 */
export const SummarizeMode = z.enum(['extractive', 'abstractive']);
export type SummarizeMode = z.infer<typeof SummarizeMode>;

export const SummarizeRequest = z.object({
  op: z.literal('summarize'),
  text: z.string(),
  maxInputTokens: z.number().int().min(16).max(4096).optional(),
  decoding: BeamOptions.optional(),
  /** Omitted: 'abstractive', as requests were before the modes (the host and the CLI always send one). */
  mode: SummarizeMode.optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** The model to run (draftsmith.<command>.model); absent: the built-in one. */
  model: ModelChoice.optional(),
  /** Where the text came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
  /** Read the whole document section by section: as Markdown (headings, code, tables...)
   * or as plain paragraphs. Absent: the text is read as one piece, up to what the model reads. */
  format: z.enum(['markdown', 'plain']).optional(),
  /** With format: the time limit for one section (or part of one), in milliseconds. */
  sectionTimeLimitMs: z.number().int().min(100).max(3_600_000).optional(),
});
export type SummarizeRequest = z.infer<typeof SummarizeRequest>;

/** One section of a document read section by section: its heading, its summary, and whether it fed the summary of the whole. */
export const SectionSummary = z.object({
  /** The heading's text ('' for the text before the first heading or a document without headings). */
  title: z.string(),
  /** 1-6, 0 without a heading. */
  level: z.number().int().min(0).max(6),
  /** The section in the source (from its heading to the next heading). */
  start: z.number().int(),
  end: z.number().int(),
  /** The heading's line(s) in the source. */
  heading: z.object({ start: z.number().int(), end: z.number().int() }).optional(),
  /** One line ('' when the section has no prose or ran past the time limit). */
  summary: z.string(),
  /** summarized: by the model; whole: one sentence, its own summary; no-prose: nothing but headings, code, tables...;
   * timed-out: past the time limit; unreadable: the model cannot read it (another script): readNotes says why. */
  status: z.enum(['summarized', 'whole', 'no-prose', 'timed-out', 'unreadable']),
  /** Parts the section was read in (a section longer than the model's window is read in several). */
  parts: z.number().int(),
  /** True when the section's summary fed the summary of the whole document. */
  fedOverall: z.boolean(),
  /** Words of prose in the section. */
  words: z.number().int(),
});
export type SectionSummary = z.infer<typeof SectionSummary>;

/** One source token with its topic-aware attention weight α_t (TAAS Eq. 11) and its span in the input text. */
export const AttendedToken = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  weight: z.number(),
});
export type AttendedToken = z.infer<typeof AttendedToken>;

export const AttendedPhrase = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  weight: z.number(),
});
export type AttendedPhrase = z.infer<typeof AttendedPhrase>;

export const GenerationStats = z.object({
  /** Tokens in the whole input; null when it was longer than the model reads and not counted to the end. */
  inputTokens: z.number().int().nullable(),
  usedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  encodeMs: z.number(),
  decodeMs: z.number(),
  tokensPerSecond: z.number(),
  device: z.string(),
  model: z.string(),
});
export type GenerationStats = z.infer<typeof GenerationStats>;

/**
 * Decoding stopped at the length limit, not at the model's end token: the text may stop
 * mid-sentence. Results carry null when the model ended the text itself.
 */
export const MaxLengthHit = z.object({
  /** The limit that cut the text off, in tokens. */
  maxLength: z.number().int(),
  /**
   * 'request': the length asked for (draftsmith.<system>.maxLength, the CLI's --max-length, or the
   * model's default when none was asked); 'model': the longest output the model was trained for,
   * below what was asked, so raising the setting cannot lengthen it.
   */
  limitedBy: z.enum(['request', 'model']),
});
export type MaxLengthHit = z.infer<typeof MaxLengthHit>;

export const SummarizeResult = z.object({
  op: z.literal('summarize'),
  summary: z.string(),
  /** The source text exactly as the user selected it; token spans index into it. */
  source: z.string(),
  /** True when the source was longer than the model's input and only its start was used. */
  truncated: z.boolean(),
  /** Characters of `source` that the model read (all of it unless truncated). */
  usedChars: z.number().int(),
  /** The most tokens the model read (the request's maxInputTokens, at most its model.json's); absent from Hub models. */
  inputLimit: z.number().int().optional(),
  hitMaxLength: MaxLengthHit.nullable(),
  tokens: z.array(AttendedToken),
  topPhrases: z.array(AttendedPhrase),
  topics: z.array(z.object({ id: z.number().int(), words: z.array(z.string()) })),
  stats: GenerationStats,
  /** The mode that wrote the summary (absent: abstractive). */
  mode: SummarizeMode.optional(),
  /** Extractive mode: the chosen sentences' spans in `source`, in document order, with their scores. */
  extracted: z.array(z.object({ start: z.number().int(), end: z.number().int(), score: z.number() })).optional(),
  /** Set when the result came from a Hub model or a transformers.js folder. */
  external: ExternalModel.optional(),
  /** A request with format: every section's summary, in document order. */
  sections: z.array(SectionSummary).optional(),
  /** A request with format: how the document was read (what was not prose, unclosed fences, time limits). */
  readNotes: z.array(z.string()).optional(),
});
export type SummarizeResult = z.infer<typeof SummarizeResult>;

// ---- essay (PC-SAN) ------------------------------------------------------------------------------

export const EssayRequest = z.object({
  op: z.literal('essay'),
  /** The selection: topic words separated by commas, semicolons, new lines or spaces. */
  topics: z.string(),
  /** How many different essays to return (the best beams), best first. */
  candidates: z.number().int().min(1).max(5).optional(),
  decoding: BeamOptions.optional(),
  /** Every essay must contain each topic word (lexically constrained beam search); default true.
   * false: plain beam search, as the PC-SAN paper decodes. */
  includeAllTopics: z.boolean().optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** The model to run (draftsmith.<command>.model); absent: the built-in one. */
  model: ModelChoice.optional(),
  /** Where the topic words came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
});
export type EssayRequest = z.infer<typeof EssayRequest>;

export const EssayCandidate = z.object({
  text: z.string(),
  /** The topic words the essay mentions (the same word or one with the same Porter stem). */
  covered: z.array(z.string()),
  /** Sum of token log-probabilities, and the length-normalised score beam search ranked by. */
  logProb: z.number(),
  score: z.number(),
  hitMaxLength: MaxLengthHit.nullable(),
});
export type EssayCandidate = z.infer<typeof EssayCandidate>;

export const EssayResult = z.object({
  op: z.literal('essay'),
  topics: z.array(z.string()),
  /** Topic words without a word vector (the model knows them only by their subwords). */
  unknownTopics: z.array(z.string()),
  /** Selected words the model cannot read at all (no letter of them in its vocabulary): left out. */
  skippedTopics: z.array(z.string()),
  candidates: z.array(EssayCandidate).min(1),
  /** Eq. 2's softmax weights: one row per decoder layer over the encoder's layers (the paper's Figure 3). */
  layerWeights: z.array(z.array(z.number())),
  /** Names of the encoder layers the columns stand for ("embeddings", "layer 1", ...). */
  encoderLayers: z.array(z.string()),
  stats: GenerationStats,
  /** Set when the result came from a Hub model or a transformers.js folder. */
  external: ExternalModel.optional(),
});
export type EssayResult = z.infer<typeof EssayResult>;

// ---- story (hierarchical story generation with fusion) -------------------------------------------

/** Top-k random sampling (the story paper's section 5.3: k = 10) with a temperature. */
export const SamplingOptions = z.object({
  topK: z.number().int().min(1).max(100).optional(),
  temperature: z.number().min(0.05).max(5).optional(),
  /** The same seed (with the same prompt and settings) gives the same text; none: a fresh one, reported in the result. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
});
export type SamplingOptions = z.infer<typeof SamplingOptions>;

/** The sampling settings a text was written with: its seed writes it again. */
const UsedSampling = z.object({ topK: z.number().int(), temperature: z.number(), seed: z.number().int() });

export const StoryRequest = z.object({
  op: z.literal('story'),
  /** The writing prompt or the story so far; a long one is read from its end. */
  prompt: z.string(),
  /** How long the continuation should be, in words (the model may end the story sooner). */
  words: z.number().int().min(1).max(2000).optional(),
  sampling: SamplingOptions.optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** The model to run (draftsmith.<command>.model); absent: the built-in one. */
  model: ModelChoice.optional(),
  /**
   * An inline suggestion in place of a story: the rest of the sentence being written, or
   * the next one(s), continued from the text before the cursor (`prompt`), never starting mid-word,
   * ending at the `sentences`-th sentence end or after `maxWords` words; without a seed, one derived
   * from the prompt, so the same text gives the same suggestion. `words` is ignored.
   */
  inline: z
    .object({
      sentences: z.number().int().min(1).max(3),
      maxWords: z.number().int().min(1).max(80),
    })
    .optional(),
});
export type StoryRequest = z.infer<typeof StoryRequest>;

/**
 * The fusion gates at the step that wrote a token (section 3.4): the mean gate on the trained
 * (fused) decoder's hidden state and on the frozen pretrained one's, each in [0, 1] — the paper's
 * Figure 8 shows them over the generated words.
 */
export const FusionGate = z.object({ trained: z.number().min(0).max(1), pretrained: z.number().min(0).max(1) });
export type FusionGate = z.infer<typeof FusionGate>;

/** One generated token: its text and span in the continuation, and its fusion gates (null without fusion). */
export const GeneratedToken = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  gate: FusionGate.nullable(),
});
export type GeneratedToken = z.infer<typeof GeneratedToken>;

export const StoryResult = z.object({
  op: z.literal('story'),
  /** The part of the prompt the model read: all of it, or its end when it was longer than the model reads. */
  usedPrompt: z.string(),
  /** True when only the end of the prompt was read. */
  truncated: z.boolean(),
  /** Characters in the whole prompt, and where in it the part read begins. */
  promptChars: z.number().int(),
  usedFrom: z.number().int(),
  continuation: z.string(),
  tokens: z.array(GeneratedToken),
  /** Words asked for, and written. */
  words: z.number().int(),
  wordCount: z.number().int(),
  /** 'words': the length asked for was reached; 'end': the model ended the story; 'length-limit': see hitMaxLength. */
  endedBy: z.enum(['words', 'end', 'length-limit']),
  hitMaxLength: MaxLengthHit.nullable(),
  fusion: z.boolean(),
  sampling: UsedSampling,
  stats: GenerationStats,
  /** Set when the result came from a Hub model or a transformers.js folder. */
  external: ExternalModel.optional(),
  /** An inline request's answer: the text to show at the cursor, with the space it needs ('' for none). */
  suggestion: z.string().optional(),
});
export type StoryResult = z.infer<typeof StoryResult>;

/** The hierarchical first step: a language model writes a premise (a writing prompt) to start from. */
export const PremiseRequest = z.object({
  op: z.literal('premise'),
  sampling: SamplingOptions.optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** The model to run (draftsmith.<command>.model); absent: the built-in one. */
  model: ModelChoice.optional(),
});
export type PremiseRequest = z.infer<typeof PremiseRequest>;

export const PremiseResult = z.object({
  op: z.literal('premise'),
  premise: z.string(),
  /** Non-null when the premise stopped at the model's longest premise before its end-of-prompt token. */
  hitMaxLength: MaxLengthHit.nullable(),
  sampling: UsedSampling,
  stats: GenerationStats,
  /** Set when the result came from a Hub model or a transformers.js folder. */
  external: ExternalModel.optional(),
});
export type PremiseResult = z.infer<typeof PremiseResult>;

// ---- scores (the metrics of extension/engine/metrics; a model only for the optional perplexity) -------

/** sacreBLEU's BLEU tokenizers (--tokenize) that Draftsmith implements. */
export const BleuTokenize = z.enum(['13a', 'intl', 'char', 'zh', 'none']);
export type BleuTokenize = z.infer<typeof BleuTokenize>;
/** sacreBLEU's BLEU smoothing methods (--smooth-method). */
export const BleuSmoothMethod = z.enum(['exp', 'floor', 'add-k', 'none']);
export type BleuSmoothMethod = z.infer<typeof BleuSmoothMethod>;
/** chrF (character 6-grams) or chrF++ (plus word 1- and 2-grams), β = 2 as sacreBLEU's defaults. */
export const ChrfVariant = z.enum(['chrF', 'chrF++']);
export type ChrfVariant = z.infer<typeof ChrfVariant>;

/** Every field optional: an absent one is sacreBLEU's (and rouge-score's) default, so a request
 * without options scores as Score Draft always has. */
export const ScoreOptions = z.object({
  /** Porter-stem ROUGE tokens (rouge-score's use_stemmer). */
  stem: z.boolean().optional(),
  /** BLEU on lowercased text (sacreBLEU --lowercase). */
  lowercase: z.boolean().optional(),
  /** BLEU's tokenizer; default 13a. */
  tokenize: BleuTokenize.optional(),
  /** BLEU's smoothing; default exp. */
  smoothMethod: BleuSmoothMethod.optional(),
  /** ε for floor (default 0.1), k for add-k (default 1); ignored by exp and none. */
  smoothValue: z.number().finite().min(0).optional(),
  /** BLEU's largest n-gram order; default 4. */
  maxNgramOrder: z.number().int().min(1).max(10).optional(),
  /** Adds chrF or chrF++ to the scores; absent: no chrF. */
  chrf: ChrfVariant.optional(),
  /** Adds the draft's non-word rate (hunspell en_US through nspell, engine/metrics/nonwords.ts). */
  nonwords: z.boolean().optional(),
  /** Adds the draft's perplexity under the built-in story LM (loads the story model). */
  perplexity: z.boolean().optional(),
});
export type ScoreOptions = z.infer<typeof ScoreOptions>;

export const ScoreRequest = z.object({
  op: z.literal('score'),
  /** The draft being scored. */
  hypothesis: z.string(),
  /** The reference (or source) it is scored against. */
  reference: z.string(),
  hypothesisName: z.string().optional(),
  referenceName: z.string().optional(),
  options: ScoreOptions.optional(),
  /** A second draft of the same text: both are scored and compared by paired bootstrap. */
  second: z
    .object({ hypothesis: z.string(), name: z.string().optional(), format: z.enum(['markdown', 'plain']).optional() })
    .optional(),
  /** 'markdown': the text is read as Markdown and only its prose is scored; absent: plain text, as it is. */
  hypothesisFormat: z.enum(['markdown', 'plain']).optional(),
  referenceFormat: z.enum(['markdown', 'plain']).optional(),
});
export type ScoreRequest = z.infer<typeof ScoreRequest>;

const Prf = z.object({ precision: z.number(), recall: z.number(), f1: z.number() });

export const BleuSummary = z.object({
  score: z.number(),
  precisions: z.array(z.number()),
  brevityPenalty: z.number(),
  ratio: z.number(),
  hypLength: z.number().int(),
  refLength: z.number().int(),
});
export type BleuSummary = z.infer<typeof BleuSummary>;

export const RougeSummary = z.object({ rouge1: Prf, rouge2: Prf, rougeL: Prf, rougeLsum: Prf, rougeW: Prf });
export type RougeSummary = z.infer<typeof RougeSummary>;

export const DiversitySummary = z.object({
  /** unique tokens / tokens over the outputs (the essay and reply papers' Diversity). */
  diversity: z.number(),
  distinct1: z.number(),
  distinct2: z.number(),
  tokens: z.number().int(),
});
export type DiversitySummary = z.infer<typeof DiversitySummary>;

export const SubstantialitySummary = z.object({
  /** Entity words per sentence (the reply paper's Substantiality). */
  perSentence: z.number(),
  entityWords: z.number().int(),
  sentences: z.number().int(),
  /** The entity words found, for the panel to show why. */
  examples: z.array(z.string()),
});
export type SubstantialitySummary = z.infer<typeof SubstantialitySummary>;

/** Output sentence i' aligned to the input sentence with the best noun/verb F1 (null: none shares a noun or verb). */
export const SentenceAlignment = z.object({
  output: z.number().int(),
  input: z.number().int().nullable(),
  f1: z.number(),
});
export type SentenceAlignment = z.infer<typeof SentenceAlignment>;

export const CoherenceSummary = z.object({
  /** Coherence L (Li et al. 2015, Eq. 18); null when fewer than two output sentences align. Lower is better. */
  L: z.number().nullable(),
  /** Output sentence pairs averaged over. */
  pairs: z.number().int(),
  inputSentences: z.array(z.string()),
  outputSentences: z.array(z.string()),
  alignment: z.array(SentenceAlignment),
});
export type CoherenceSummary = z.infer<typeof CoherenceSummary>;

/** A draft's perplexity under the built-in story LM: per word (words + 1 for the end, the
 * story card's unit) and per subword token, with the sums that pool several drafts. */
export const PerplexitySummary = z.object({
  perWord: z.number(),
  perToken: z.number(),
  /** Summed negative log-likelihood, nats. */
  nll: z.number(),
  tokens: z.number().int(),
  words: z.number().int(),
  model: z.string(),
});
export type PerplexitySummary = z.infer<typeof PerplexitySummary>;

/** The share of alphabetic tokens the en_US dictionary rejects (names left out), as the model cards count it. */
export const NonwordSummary = z.object({
  /** null: no token to judge. */
  rate: z.number().nullable(),
  nonwords: z.number().int(),
  tokens: z.number().int(),
  examples: z.array(z.string()),
});
export type NonwordSummary = z.infer<typeof NonwordSummary>;

/** The metrics of one draft (or, from the CLI, of a corpus of drafts) against its references. */
export const CorpusScores = z.object({
  pairs: z.number().int(),
  bleu: BleuSummary,
  rouge: RougeSummary,
  diversity: DiversitySummary,
  substantiality: SubstantialitySummary,
  /** Mean coherence L over the pairs that have one. */
  coherenceL: z.number().nullable(),
  /** chrF or chrF++ (0–100, sacreBLEU's), when asked for. */
  chrf: z.object({ score: z.number(), name: z.string() }).optional(),
  /** The drafts' non-word rate, when asked for (pooled over the drafts). */
  nonwords: NonwordSummary.optional(),
  /** The drafts' perplexity under the story LM, when asked for (pooled over the drafts). */
  perplexity: PerplexitySummary.optional(),
});
export type CorpusScores = z.infer<typeof CorpusScores>;

export const SentenceScore = z.object({
  index: z.number().int(),
  text: z.string(),
  /** The reference sentence with the best ROUGE-L F1 against this one (null: the reference has no sentences). */
  reference: z.number().int().nullable(),
  referenceText: z.string(),
  bleu: z.number(),
  rouge1: z.number(),
  rougeL: z.number(),
  entityWords: z.number().int(),
});
export type SentenceScore = z.infer<typeof SentenceScore>;

/** One metric of a two-draft comparison: each draft's score on the segments, the bootstrap's mean
 * and 95 % half-interval, and the p-value of the difference (sacreBLEU's --paired-bs). */
export const ComparedMetric = z.object({
  metric: z.string(),
  signature: z.string(),
  first: z.object({ score: z.number(), mean: z.number(), ci: z.number() }),
  second: z.object({ score: z.number(), mean: z.number(), ci: z.number(), pValue: z.number() }),
});
export type ComparedMetric = z.infer<typeof ComparedMetric>;

export const DraftComparison = z.object({
  secondName: z.string(),
  secondScores: CorpusScores,
  /** The segments resampled: the texts' own lines when all three have the same number, else the
   * reference's sentences, each with the draft sentences that match it best (ROUGE-L F1). */
  segmentation: z.enum(['lines', 'reference-sentences']),
  segments: z.number().int(),
  samples: z.number().int(),
  seed: z.number().int(),
  metrics: z.array(ComparedMetric),
});
export type DraftComparison = z.infer<typeof DraftComparison>;

export const ScoreResult = z.object({
  op: z.literal('score'),
  hypothesisName: z.string(),
  referenceName: z.string(),
  scores: CorpusScores,
  coherence: CoherenceSummary,
  sentences: z.array(SentenceScore),
  /** How each score was computed: sacreBLEU's signature strings for BLEU and chrF, ours for ROUGE
   * (extension/engine/metrics/signature.ts); the same keys as `draftsmith score --json`. */
  signatures: z.object({ BLEU: z.string(), ROUGE: z.string(), chrF: z.string().optional() }),
  elapsedMs: z.number(),
  /** With a second draft: its scores and the paired bootstrap between the two (engine/eval/draftComparison.ts). */
  comparison: DraftComparison.optional(),
  /** How Markdown texts were read: what was skipped (code, tables...), so the scores compare prose with prose. */
  readNotes: z.array(z.string()).optional(),
});
export type ScoreResult = z.infer<typeof ScoreResult>;

/** Score Drafts in Folder: one row per draft, and the corpus totals. */
export const FolderScores = z.object({
  /** Where the drafts came from (a folder, or a JSONL file) and their references. */
  source: z.string(),
  referenceSource: z.string(),
  rows: z.array(z.object({ name: z.string(), scores: CorpusScores })),
  /** Every metric over all the rows: corpus BLEU and chrF, means of the rest (engine/eval/folderScores.ts). */
  totals: CorpusScores,
  /** Drafts without a reference (no file of that name), named. */
  unpaired: z.array(z.string()),
  /** Cancel was pressed: the rows done before it. */
  cancelled: z.boolean(),
  /** Of all the drafts paired, how many (rows.length of them were scored). */
  paired: z.number().int(),
  signatures: z.object({ BLEU: z.string(), ROUGE: z.string(), chrF: z.string().optional() }),
  elapsedMs: z.number(),
});
export type FolderScores = z.infer<typeof FolderScores>;

export const CoherenceRequest = z.object({
  op: z.literal('coherence'),
  /** The draft whose sentence order is checked. */
  output: z.string(),
  /** The source it should follow. */
  source: z.string(),
  outputName: z.string().optional(),
  sourceName: z.string().optional(),
  /** 'markdown': sentences come from the text's prose blocks only; absent: plain text. */
  outputFormat: z.enum(['markdown', 'plain']).optional(),
  sourceFormat: z.enum(['markdown', 'plain']).optional(),
});
export type CoherenceRequest = z.infer<typeof CoherenceRequest>;

export const CoherenceResult = z.object({
  op: z.literal('coherence'),
  outputName: z.string(),
  sourceName: z.string(),
  coherence: CoherenceSummary,
  elapsedMs: z.number(),
  /** How Markdown texts were read: what was skipped (code, tables...). */
  readNotes: z.array(z.string()).optional(),
});
export type CoherenceResult = z.infer<typeof CoherenceResult>;

// ---- round-trip paragraph (hierarchical LSTM autoencoder, Li, Luong & Jurafsky 2015) -------------

/** Which model folder: standard (Sec. 3.1), hierarchical (Sec. 3.2), hierarchical with attention (Sec. 3.3). */
export const RoundTripVariant = z.enum(['standard', 'hier', 'hier-attn']);
export type RoundTripVariant = z.infer<typeof RoundTripVariant>;

/** The most sentences a request may ask the model to read (the shipped model was trained on up to 8). */
export const MAX_ROUNDTRIP_SENTENCES = 32;

export const RoundTripRequest = z.object({
  op: z.literal('roundtrip'),
  /** The paragraph (the selection, or the paragraph at the cursor). */
  text: z.string(),
  /** <models>/roundtrip-<variant>/ instead of the default <models>/roundtrip/. */
  variant: RoundTripVariant.optional(),
  /** Read at most this many sentences (default: as many as the model was trained on). */
  maxSentences: z.number().int().min(1).max(MAX_ROUNDTRIP_SENTENCES).optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** Where the text came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
});
export type RoundTripRequest = z.infer<typeof RoundTripRequest>;

/** One input sentence the model read, with its span in the request's text. */
export const RoundTripInputSentence = z.object({
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  /** Subword tokens the model read for it. */
  tokens: z.number().int(),
});
export type RoundTripInputSentence = z.infer<typeof RoundTripInputSentence>;

export const RoundTripOutputSentence = z.object({
  text: z.string(),
  tokens: z.number().int(),
  /** It stopped at its word limit (1.5 x the longest input sentence, or the tokens left) before </s>. */
  cut: z.boolean(),
  /** The sentence step's attention over the input sentences (Eqs. 10-15), in input order; null without attention. */
  attention: z.array(z.number()).nullable(),
});
export type RoundTripOutputSentence = z.infer<typeof RoundTripOutputSentence>;

export const RoundTripScores = z.object({
  bleu: BleuSummary,
  rouge1: Prf,
  rouge2: Prf,
  rougeW: Prf,
  /** Coherence L (Eq. 18) and the alignment of output sentences to input sentences. */
  coherence: CoherenceSummary,
});
export type RoundTripScores = z.infer<typeof RoundTripScores>;

export const RoundTripResult = z.object({
  op: z.literal('roundtrip'),
  /** The request's text, exactly; the spans below index into it. */
  source: z.string(),
  architecture: RoundTripVariant,
  input: z.array(RoundTripInputSentence).min(1),
  /** Sentences in the whole text (the model read the first input.length of them). */
  totalSentences: z.number().int(),
  /** The part of `source` the model read, from its first sentence's start to its last one's end:
   * what Apply replaces. The rest of the text stays as it is. */
  usedStart: z.number().int(),
  usedEnd: z.number().int(),
  /** Why fewer sentences were read than the text has: the sentence limit, or the model's token limit. */
  truncatedBy: z.enum(['sentences', 'tokens']).nullable(),
  /** The sentence limit that applied. */
  maxSentences: z.number().int(),
  /** The most subwords the model reads (its model.json's maxInputTokens). */
  inputLimit: z.number().int().optional(),
  /** Input subwords the model does not know (<unk>): another script, or rare symbols. */
  unknownTokens: z.number().int(),
  reconstruction: z.string(),
  output: z.array(RoundTripOutputSentence),
  /**
   * How decoding ended: 'end' when the model ended the paragraph itself (end_logit > 0, or </s> for
   * the standard model); otherwise the 1.5x limit that stopped it: too many sentences or tokens.
   */
  stopped: z.enum(['end', 'max-sentences', 'max-tokens']),
  /** The 1.5x limits: output tokens in all, and output sentences (hierarchical models). */
  limits: z.object({ maxTokens: z.number().int(), maxSentences: z.number().int().nullable() }),
  scores: RoundTripScores,
  stats: GenerationStats,
  /** From a Markdown document (set by the editor and the CLI, which read it): what the model did not read (code, tables, other blocks). */
  readNotes: z.array(z.string()).optional(),
});
export type RoundTripResult = z.infer<typeof RoundTripResult>;

// ---- suggest replies (ESED: seq2seq with an external semantic memory) ------------------------------

/**
 * How a key of the post becomes a key of the memory: itself, a WordNet synonym or antonym, or its
 * nearest neighbour among the memory's keys in the model's word embeddings.
 */
export const ReplyMapper = z.enum(['identity', 'synonym', 'antonym', 'neighbour']);
export type ReplyMapper = z.infer<typeof ReplyMapper>;

export const ReplyRequest = z.object({
  op: z.literal('reply'),
  /** The post (the selection, or the whole document). */
  text: z.string(),
  /** A key the user typed: the only key used, and it must be one the memory holds (or map to one). */
  key: z.string().max(200).optional(),
  /** The mappings tried for each key of the post (default: identity; a key the memory lacks falls back to its neighbour). */
  mappers: z.array(ReplyMapper).min(1).max(4).optional(),
  /** At most this many candidates, best first (default 8). */
  maxCandidates: z.number().int().min(1).max(20).optional(),
  decoding: BeamOptions.optional(),
  /** The decoding guards (draftsmith.decoding.guards): known words only, no tokenizer artefacts, no
   * repeated words; default true. false: the paper's plain decoding. */
  guards: z.boolean().optional(),
  /** Where the post came from, for messages (absent: the editor's selection). */
  origin: TextOrigin.optional(),
});
export type ReplyRequest = z.infer<typeof ReplyRequest>;

/** A noun or adjective of the post (wink-nlp), and whether the memory holds it. */
export const ReplyPostKey = z.object({
  word: z.string(),
  /** The lemma, lowercase: what is looked up in the memory. */
  lemma: z.string(),
  pos: z.enum(['noun', 'adj']),
  inMemory: z.boolean(),
});
export type ReplyPostKey = z.infer<typeof ReplyPostKey>;

export const ReplyCandidate = z.object({
  text: z.string(),
  /** The memory key that steered it ('' for the NRM baseline, which has no memory). */
  key: z.string(),
  /** The post's word (or the typed word) the key came from. */
  from: z.string(),
  mapper: z.union([ReplyMapper, z.literal('typed'), z.literal('none')]),
  /** "tennis — identity", "champion → winner — synonym". */
  label: z.string(),
  /** Length-normalised log-likelihood (log P / tokens): what the candidates are ranked by. */
  score: z.number(),
  tokens: z.number().int(),
  /** The length limit that cut this reply off, as the other systems report it; null when the model ended it. */
  hitMaxLength: MaxLengthHit.nullable(),
  /** The memory read's weights over the key's L slots (Eqs. 11-12); null without memory. */
  readWeights: z.array(z.number()).nullable(),
  /** A reply sentence of the training data that the key's memory block holds (its first slot). */
  example: z.string().nullable(),
});
export type ReplyCandidate = z.infer<typeof ReplyCandidate>;

export const ReplyResult = z.object({
  op: z.literal('reply'),
  source: z.string(),
  architecture: z.enum(['esed', 'nrm']),
  candidates: z.array(ReplyCandidate),
  postKeys: z.array(ReplyPostKey),
  /** What the user should know: a long post cut, keys the memory lacks, no keys at all. */
  notes: z.array(z.string()),
  /** The post was longer than the model reads: it read the part from usedFrom (characters) on. */
  truncated: z.boolean(),
  usedFrom: z.number().int(),
  unknownTokens: z.number().int(),
  stats: GenerationStats,
});
export type ReplyResult = z.infer<typeof ReplyResult>;

export const EngineRequest = z.discriminatedUnion('op', [
  SummarizeRequest,
  EssayRequest,
  StoryRequest,
  PremiseRequest,
  ScoreRequest,
  CoherenceRequest,
  RoundTripRequest,
  ReplyRequest,
]);
export type EngineRequest = z.infer<typeof EngineRequest>;
export const EngineResult = z.discriminatedUnion('op', [
  SummarizeResult,
  EssayResult,
  StoryResult,
  PremiseResult,
  ScoreResult,
  CoherenceResult,
  RoundTripResult,
  ReplyResult,
]);
export type EngineResult = z.infer<typeof EngineResult>;
export type ResultFor<R extends EngineRequest> = Extract<EngineResult, { op: R['op'] }>;

// ---- host -> worker ------------------------------------------------------------------------------

export const ToWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('configure'), config: EngineConfig }),
  // The worker runs requests one at a time, in order. `channel`: a newer request of the same channel
  // supersedes this one, which then ends with a 'cancelled' error saying so (inline suggestions want
  // only the latest); requests without one are never superseded.
  z.object({
    type: z.literal('request'),
    id: z.number().int(),
    request: EngineRequest,
    channel: z.string().min(1).max(100).optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
  // Before the host terminates the worker thread: cancel everything, refuse new requests, answer
  // 'stopped' once no onnxruntime call is under way (terminating a thread inside one aborts the
  // whole host process).
  z.object({ type: z.literal('stop') }),
  // Tests only: the worker honours it only when started with DRAFTSMITH_TEST_CRASH=1 (env or
  // workerData). 'throw': an uncaught exception; 'exit': process.exit in the worker; 'hang': a
  // busy loop that never answers 'stop'. All three happen in JS between decoding steps.
  z.object({ type: z.literal('crash-for-test'), how: z.enum(['throw', 'exit', 'hang']) }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

// ---- worker -> host ------------------------------------------------------------------------------

export const ErrorCode = z.enum([
  'cancelled', // the user pressed Cancel
  'bad-input', // empty, unreadable or otherwise unusable text
  'bad-model', // a model folder is missing a file, has a corrupt file, or a wrong manifest
  'bad-request', // a message that failed validation
  'internal', // anything else: a bug
  'stopped', // the worker went away (crash, restart, shutdown) before answering, or is stopping
  'time-limit', // host side: the request ran past draftsmith.maxSecondsPerRequest and was stopped
  'model-unavailable', // a chosen Hub model could not be downloaded (offline, not found, server error, cancelled download)
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const FromWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  // The answer to 'stop': no onnxruntime call is running and none will start; safe to terminate.
  z.object({ type: z.literal('stopped') }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  z.object({
    type: z.literal('progress'),
    id: z.number().int(),
    message: z.string(),
    fraction: z.number().min(0).max(1).optional(),
  }),
  z.object({ type: z.literal('partial'), id: z.number().int(), text: z.string() }),
  z.object({ type: z.literal('result'), id: z.number().int(), result: EngineResult }),
  z.object({ type: z.literal('error'), id: z.number().int(), code: ErrorCode, message: z.string() }),
]);
export type FromWorker = z.infer<typeof FromWorker>;

// ---- host <-> insights panel ---------------------------------------------------------------------

export const ToPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('summarize'), result: SummarizeResult }),
  z.object({ type: z.literal('essay'), result: EssayResult }),
  z.object({ type: z.literal('story'), result: StoryResult }),
  z.object({ type: z.literal('score'), result: ScoreResult }),
  z.object({ type: z.literal('coherence'), result: CoherenceResult }),
  z.object({ type: z.literal('roundtrip'), result: RoundTripResult }),
  z.object({ type: z.literal('empty'), message: z.string() }),
  z.object({ type: z.literal('folder'), result: FolderScores }),
]);
export type ToPanel = z.infer<typeof ToPanel>;

/** A column of the folder table, sorted as the panel shows it (engine/eval/folderScores.ts FOLDER_COLUMNS). */
export const FolderSort = z.strictObject({ column: z.string().max(40), descending: z.boolean() });
export type FolderSort = z.infer<typeof FolderSort>;

// Strict: a message with fields the protocol does not declare is refused, not trimmed and obeyed.
export const FromPanel = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  // Score Drafts in Folder's Export CSV / Export JSON buttons, in the table's current order.
  z.strictObject({ type: z.literal('export-folder'), format: z.enum(['csv', 'json']), sort: FolderSort.optional() }),
]);
export type FromPanel = z.infer<typeof FromPanel>;
