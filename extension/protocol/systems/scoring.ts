/**
 * Score Draft, Check Coherence and Score Drafts in Folder: the metrics of extension/engine/metrics
 * (a model only for the optional perplexity).
 */
import { z } from 'zod';
import { ModelChoice } from '../config';
import { Seed, TextFormat } from './shared';

/** sacreBLEU's BLEU tokenizers (--tokenize) that Draftsmith implements. */
export const BleuTokenize = z.enum(['13a', 'intl', 'char', 'zh', 'none']);
export type BleuTokenize = z.infer<typeof BleuTokenize>;
/** sacreBLEU's BLEU smoothing methods (--smooth-method). */
export const BleuSmoothMethod = z.enum(['exp', 'floor', 'add-k', 'none']);
export type BleuSmoothMethod = z.infer<typeof BleuSmoothMethod>;
/** chrF (character 6-grams) or chrF++ (plus word 1- and 2-grams), β = 2 as sacreBLEU's defaults. */
export const ChrfVariant = z.enum(['chrF', 'chrF++']);
export type ChrfVariant = z.infer<typeof ChrfVariant>;

/** TER's options (sacreBLEU's TER: --ter-case-sensitive, --ter-normalized, --ter-no-punct,
 * --ter-asian-support), each off unless set. */
export const TerSettings = z.object({
  caseSensitive: z.boolean().optional(),
  normalized: z.boolean().optional(),
  noPunct: z.boolean().optional(),
  asianSupport: z.boolean().optional(),
});
export type TerSettings = z.infer<typeof TerSettings>;

/** BERTScore's encoder (a Hub model or a folder in transformers.js's layout, never a built-in model) and its idf. */
export const BertScoreSettings = z.object({
  model: ModelChoice.refine((c) => c.kind !== 'built-in', 'a Hub model id or a folder, not the built-in models'),
  /** Weigh tokens by their idf over the references (bert_score's idf=True); needs two or more references. */
  idf: z.boolean().optional(),
});
export type BertScoreSettings = z.infer<typeof BertScoreSettings>;

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
  /** Adds TER (sacreBLEU's, lower is better) with these options; absent: no TER. */
  ter: TerSettings.optional(),
  /** Adds the draft's non-word rate (hunspell en_US through nspell, engine/metrics/nonwords.ts). */
  nonwords: z.boolean().optional(),
  /** Adds the draft's perplexity under the built-in story LM (loads the story model). */
  perplexity: z.boolean().optional(),
  /** Adds BERTScore with this encoder (loads it: downloads a Hub model on first use); absent: no BERTScore. */
  bertscore: BertScoreSettings.optional(),
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
  second: z.object({ hypothesis: z.string(), name: z.string().optional(), format: TextFormat.optional() }).optional(),
  /** 'markdown': the text is read as Markdown and only its prose is scored; absent: plain text, as it is. */
  hypothesisFormat: TextFormat.optional(),
  referenceFormat: TextFormat.optional(),
});
export type ScoreRequest = z.infer<typeof ScoreRequest>;

export const Prf = z.object({ precision: z.number(), recall: z.number(), f1: z.number() });

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

/** BERTScore (bert_score's P, R and F, no baseline rescaling): the mean over the pairs, and how it was computed. */
export const BertScoreSummary = z.object({
  precision: z.number(),
  recall: z.number(),
  f1: z.number(),
  /** The encoder as the user chose it (Hub id[@revision], or the folder). */
  model: z.string(),
  /** The layer whose embeddings were read (config.json's num_hidden_layers: the export's last_hidden_state). */
  layer: z.number().int(),
  /** Whether tokens were weighed by idf (false with a single reference, where idf is undefined). */
  idf: z.boolean(),
  /** The weights' data type of the graph that ran ('fp32', 'q8', ...). */
  dtype: z.string(),
  /** Its reproducibility signature (engine/metrics/signature.ts bertScoreSignature). */
  signature: z.string(),
});
export type BertScoreSummary = z.infer<typeof BertScoreSummary>;

/** The share of alphabetic tokens the en_US dictionary rejects (names left out), as the model cards count it. */
export const NonwordSummary = z.object({
  /** null: no token to judge. */
  rate: z.number().nullable(),
  nonwords: z.number().int(),
  tokens: z.number().int(),
  examples: z.array(z.string()),
});
export type NonwordSummary = z.infer<typeof NonwordSummary>;

/** TER over the drafts: Σ edits / Σ reference lengths × 100 (sacreBLEU's corpus TER). */
export const TerSummary = z.object({ score: z.number(), numEdits: z.number(), refLength: z.number() });
export type TerSummary = z.infer<typeof TerSummary>;

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
  /** TER (sacreBLEU's; edits per 100 reference words, lower is better), when asked for. */
  ter: TerSummary.optional(),
  /** The drafts' non-word rate, when asked for (pooled over the drafts). */
  nonwords: NonwordSummary.optional(),
  /** The drafts' perplexity under the story LM, when asked for (pooled over the drafts). */
  perplexity: PerplexitySummary.optional(),
  /** BERTScore under the chosen encoder, when asked for (the mean over the pairs). */
  bertscore: BertScoreSummary.optional(),
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

/**
 * How each score was computed: sacreBLEU's signature strings for BLEU, chrF and TER, ours for ROUGE
 * (extension/engine/metrics/signature.ts); the same keys as `draftsmith score --json`.
 */
export const Signatures = z.object({
  BLEU: z.string(),
  ROUGE: z.string(),
  chrF: z.string().optional(),
  TER: z.string().optional(),
  BERTScore: z.string().optional(),
});

export const ScoreResult = z.object({
  op: z.literal('score'),
  hypothesisName: z.string(),
  referenceName: z.string(),
  scores: CorpusScores,
  coherence: CoherenceSummary,
  sentences: z.array(SentenceScore),
  signatures: Signatures,
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
  signatures: Signatures,
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
  outputFormat: TextFormat.optional(),
  sourceFormat: TextFormat.optional(),
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

/** Several drafts of the same segments against one baseline (the first), as sacreBLEU's
 * multi-system paired test: each metric's score, 95 % interval and p-value, and the drill-down. */
export const SystemsRequest = z.object({
  op: z.literal('systems'),
  /** The baseline first; each system's segments (a file's lines, or a folder's files). */
  systems: z
    .array(z.object({ name: z.string().max(1000), segments: z.array(z.string()) }))
    .min(2)
    .max(20),
  /** Reference streams: each one segment per system segment. */
  references: z.array(z.array(z.string())).min(1).max(10),
  referenceName: z.string().max(1000),
  /** Score Draft's options: which metrics (BLEU, chrF, TER, ROUGE-1, ROUGE-L) and how. */
  options: ScoreOptions.optional(),
  /** Default paired-bs, sacreBLEU's --paired-bs. */
  test: z.enum(['paired-bs', 'paired-ar']).optional(),
  samples: z.number().int().min(1).max(100000).optional(),
  seed: Seed.optional(),
  /** How many of each system's worst segments per metric the drill-down keeps (default 10). */
  worst: z.number().int().min(0).max(200).optional(),
});
export type SystemsRequest = z.infer<typeof SystemsRequest>;

const SystemsCell = z.object({
  score: z.number(),
  mean: z.number().optional(),
  ci: z.number().optional(),
  pValue: z.number().optional(),
});
/** engine/eval/systemsTable.ts SystemsTable. */
export const SystemsTableData = z.object({
  test: z.enum(['paired-bs', 'paired-ar']),
  samples: z.number().int(),
  seed: z.number().int(),
  segments: z.number().int(),
  nrefs: z.number().int(),
  metrics: z.array(z.object({ name: z.string(), signature: z.string(), better: z.enum(['higher', 'lower']) })),
  systems: z.array(z.object({ name: z.string(), baseline: z.boolean(), cells: z.array(SystemsCell) })),
});
export type SystemsTableData = z.infer<typeof SystemsTableData>;

/** A system's worst segments against the baseline under one metric (engine/eval/systemsTable.ts). */
export const WorstSegmentsData = z.object({
  system: z.string(),
  metric: z.string(),
  segments: z.array(
    z.object({
      index: z.number().int(),
      baseline: z.number(),
      system: z.number(),
      drop: z.number(),
      hypothesis: z.string(),
      baselineHypothesis: z.string(),
      references: z.array(z.string()),
    }),
  ),
});
export type WorstSegmentsData = z.infer<typeof WorstSegmentsData>;

export const SystemsResult = z.object({
  op: z.literal('systems'),
  referenceName: z.string(),
  table: SystemsTableData,
  worst: z.array(WorstSegmentsData),
  elapsedMs: z.number(),
});
export type SystemsResult = z.infer<typeof SystemsResult>;
