/**
 * `draftsmith score --perplexity` (issue 24, item 4): the perplexity of the drafts under the built-in
 * story language model (models/story, the fusion seq2seq; see its model card) beside the overlap
 * metrics. Each draft is scored as a story with an empty prompt, so the number says how likely
 * the model finds the text itself, not how close it is to the reference: lower is more fluent by
 * that model's standard, which is one of simple stories (news or technical drafts score high).
 * Tokens pooled over the drafts as the story paper does (engine/metrics/perplexity.ts), per subword
 * token and per word (the story card's unit: words + 1 for the end of the story).
 *
 * The fluency measures the model cards report (the grammatical-sentence rate from link-grammar, the
 * non-word rate from hunspell en_US) are not computed here: both run through Python bindings of C
 * libraries in the recipes (models/train/fluency.sh), which a user of the extension or the CLI
 * does not have; `bash models/train/fluency.sh` computes them on a checkout.
 */
import * as path from 'node:path';
import { StoryLikelihood } from '../engine/eval/storyEval';
import { perplexityFromLogProbs } from '../engine/metrics/perplexity';
import { singleFolder } from '../engine/runtime/modelSource';
import { DEFAULT_THREADS } from '../engine/runtime/threads';
import { loadSystem } from '../engine/systems/registry';

export interface DraftPerplexity {
  /** exp(mean negative log-likelihood per subword token), tokens pooled over the drafts. */
  perToken: number;
  /** The same log-likelihood per word (+1 per draft for its end). */
  perWord: number;
  tokens: number;
  words: number;
  /** Each draft's own per-word perplexity, in order. */
  perDraft: number[];
  model: string;
}

export async function draftPerplexity(drafts: readonly string[], modelsDir: string | undefined, progress?: (done: number, total: number) => void): Promise<DraftPerplexity> {
  const dir = path.join(path.resolve(modelsDir ?? path.join(__dirname, '..', 'models')), 'story');
  const runtime = { device: 'cpu' as const, threads: DEFAULT_THREADS, log: (level: 'info' | 'warn', message: string) => { if (level === 'warn') process.stderr.write(`[warn] ${message}\n`); } };
  const system = await loadSystem('story', singleFolder(dir), runtime);
  try {
    const lm = await StoryLikelihood.load(system, dir);
    const sequences: number[][] = [];
    const perDraft: number[] = [];
    let words = 0;
    for (const [i, text] of drafts.entries()) {
      const lps = await lm.tokenLogProbs('', text);
      sequences.push(lps);
      const w = text.split(/\s+/).filter(Boolean).length + 1;
      words += w;
      perDraft.push(Math.exp(-lps.reduce((a, b) => a + b, 0) / w));
      progress?.(i + 1, drafts.length);
    }
    const pooled = perplexityFromLogProbs(sequences);
    return { perToken: pooled.perplexity, perWord: Math.exp((pooled.nll * pooled.tokens) / Math.max(words, 1)), tokens: pooled.tokens, words, perDraft, model: system.describe().name };
  } finally {
    await system.dispose();
  }
}
