/**
 * Suggest Replies (ESED: a seq2seq model with an external semantic memory).
 */
import { z } from 'zod';
import { BeamOptions, GenerationStats, Guards, MaxLengthHit, TextOrigin } from './shared';

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
  /**
   * The mappings tried for each key of the post (default: identity; a key the memory lacks falls back
   * to its neighbour).
   */
  mappers: z.array(ReplyMapper).min(1).max(4).optional(),
  /** At most this many candidates, best first (default 8). */
  maxCandidates: z.number().int().min(1).max(20).optional(),
  decoding: BeamOptions.optional(),
  guards: Guards,
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
