/**
 * `draftsmith score --perplexity`: the perplexity of the drafts under the built-in
 * story language model (models/story, the fusion seq2seq; see its model card) beside the overlap
 * metrics. Each draft is scored as a story with an empty prompt, so the number says how likely
 * the model finds the text itself, not how close it is to the reference: lower is more fluent by
 * that model's standard, which is one of simple stories (news or technical drafts score high).
 * Tokens pooled over the drafts as the story paper does (engine/metrics/perplexity.ts), per subword
 * token and per word (the story card's unit: words + 1 for the end of the story). A draft longer
 * than the model's 256 target tokens is read in windows (eval/storyLikelihood.ts). Score Draft and
 * Score Drafts in Folder compute the same through the engine (draftsmith.score.perplexity).
 *
 * The non-word rate is `--nonwords` (engine/metrics/nonwords.ts); the grammatical-sentence rate
 * needs link-grammar (a C library with Python bindings, no JavaScript port) and stays with the
 * model-card tooling (`bash models/train/fluency.sh`).
 */
import * as path from 'node:path';
import type { PerplexitySummary } from '../protocol';
import { StoryLikelihood, type TextPerplexity } from '../engine/eval/storyLikelihood';
import { pooledPerplexity } from '../engine/metrics/perplexity';
import { singleFolder } from '../engine/runtime/modelSource';
import { DEFAULT_THREADS } from '../engine/runtime/threads';
import { loadSystem, modelDir } from '../engine/systems/registry';

export interface DraftPerplexity extends PerplexitySummary {
  /** Each draft's own, in order. */
  drafts: PerplexitySummary[];
}

export async function draftPerplexity(
  drafts: readonly string[],
  modelsDir: string | undefined,
  progress?: (done: number, total: number) => void,
): Promise<DraftPerplexity> {
  // The story system's folder as the registry places it (the same the engine loads for Score Draft).
  const dir = modelDir(path.resolve(modelsDir ?? path.join(__dirname, '..', 'models')), 'story');
  const runtime = {
    device: 'cpu' as const,
    threads: DEFAULT_THREADS,
    log: (level: 'info' | 'warn', message: string) => {
      if (level === 'warn') process.stderr.write(`[warn] ${message}\n`);
    },
  };
  const system = await loadSystem('story', singleFolder(dir), runtime);
  try {
    const lm = StoryLikelihood.of(system);
    const parts: TextPerplexity[] = [];
    for (const [i, text] of drafts.entries()) {
      parts.push(await lm.textPerplexity(text));
      progress?.(i + 1, drafts.length);
    }
    const each = parts.map((p) => pooledPerplexity([p], system.name));
    return { ...pooledPerplexity(parts, system.name), drafts: each };
  } finally {
    await system.dispose();
  }
}
