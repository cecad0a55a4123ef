/**
 * `draftsmith eval story`: Continue Story on the held-out test split, from the shipped ONNX model
 * through the engine's story system. Each test prompt is continued as the command does (top-k
 * sampling with the manifest's k and temperature, the length asked in words), seeded per item
 * (--seed + the item's position) so a run writes the same stories again; the table reports the
 * words written against the words asked. With --perplexity, the test stories' perplexity under the
 * model (teacher forcing through decoder.onnx, counted as the recipe counts it: per subword token
 * with the end token, and per word = the summed NLL / (words + 1)); with --ranking N, prompt-ranking
 * accuracy (the paper's section 5.2) on N stories: each story scored under its own prompt and 9 other
 * prompts of the same domain from the sample, right when its own scores strictly best.
 * Entity continuity (metrics/entityContinuity.ts) is reported for the continuations written and for
 * the human stories of the same prompts: the share of adjacent sentences that share a character or object.
 * The sample is the split's first N stories with the domains taking turns (roc, fairy, cloze, wp).
 * The split is written by python3 -m draftsmith_train.story prepare, never committed.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { entityContinuity } from '../metrics/entityContinuity';
import { promptRankingAccuracy } from '../metrics/ranking';
import { analyse } from '../text/nlp';
import { silentRun } from '../systems/context';
import { loadSystem } from '../systems/registry';
import { HubStorySystem } from '../systems/hubStory';
import { defaultHubConfig } from '../engine';
import { singleFolder } from '../runtime/modelSource';
import { StoryLikelihood } from './storyLikelihood';
import { readSplit, takeTurns, type EvalOptions } from './testSplit';

export const StoryRow = z.object({ domain: z.string(), doc: z.string(), prompt: z.string(), story: z.string() });
export type StoryRow = z.infer<typeof StoryRow>;

/** limit: the domains take turns. */
export interface StoryEvalOptions extends EvalOptions {
  /** Words asked for each continuation; the manifest's default (the command's) when absent. */
  words?: number;
  /** The first item's seed; item i is sampled with seed + i. */
  seed: number;
  /** Also the test stories' perplexity under each model. */
  perplexity: boolean;
  /** Prompt ranking on this many stories of the sample (0: none). */
  ranking: number;
  show: boolean;
}

interface Line {
  model: string;
  n: number;
  asked: number;
  written: number;
  within20: number;
  ended: Record<string, number>;
  tokensPerSecond: number;
  tokenPpl?: number;
  wordPpl?: number;
  pplTokens?: number;
  ranking?: { accuracy: number; n: number };
  /** Entity continuity of the continuations (null: none had two sentences). */
  continuity: number | null;
}

export async function runStoryEval(opts: StoryEvalOptions, log: (m: string) => void): Promise<string> {
  const all = await readSplit('story', opts.dataDir, StoryRow);
  const rows = takeTurns(
    all.map((r) => ({ ...r, source: r.domain })),
    opts.limit,
  );
  const lines: Line[] = [];
  for (const v of opts.variants) {
    // A Draftsmith folder (model.json), or a causal LM in transformers.js's layout: generation only.
    const ours = existsSync(path.join(v.dir, 'model.json'));
    const system = ours
      ? await loadSystem('story', singleFolder(v.dir), opts.runtime)
      : await HubStorySystem.load({ kind: 'folder', dir: v.dir }, defaultHubConfig(), opts.runtime, {
          progress: () => {},
          isCancelled: () => false,
        });
    let asked = 0;
    let written = 0;
    let within = 0;
    let tokens = 0;
    let decodeMs = 0;
    const ended: Record<string, number> = {};
    const writtenTexts: ReturnType<typeof analyse>[] = [];
    for (const [i, row] of rows.entries()) {
      const r = await system.run(
        {
          op: 'story',
          prompt: row.prompt,
          words: opts.words,
          sampling: { seed: opts.seed + i },
          ...(opts.guards === false ? { guards: false } : {}),
        },
        silentRun,
      );
      asked += r.words;
      written += r.wordCount;
      if (Math.abs(r.wordCount - r.words) <= 0.2 * r.words) within++;
      ended[r.endedBy] = (ended[r.endedBy] ?? 0) + 1;
      writtenTexts.push(analyse(r.continuation));
      tokens += r.stats.outputTokens + 1;
      decodeMs += r.stats.decodeMs;
      opts.dump?.({
        system: 'story',
        variant: v.name,
        id: `${row.doc}#${i}`,
        domain: row.domain,
        source: row.prompt,
        output: r.continuation,
        references: [row.story],
      });
      if ((i + 1) % 25 === 0) log(`${v.name}: ${i + 1}/${rows.length}`);
      if (opts.show && i < 3)
        log(
          `${v.name} #${i} PROMPT: ${row.prompt}\n${v.name} #${i} STORY (${r.wordCount} of ${r.words} words, ` +
            `${r.endedBy}): ${r.continuation}`,
        );
    }
    const n = Math.max(rows.length, 1);
    const line: Line = {
      model: `${v.name} (${system.describe().name}${opts.guards === false ? ', no guards' : ''})`,
      n: rows.length,
      asked: asked / n,
      written: written / n,
      within20: within / n,
      ended,
      tokensPerSecond: tokens / Math.max(decodeMs / 1000, 1e-6),
      continuity: entityContinuity(writtenTexts).continuity,
    };
    if ((opts.perplexity || opts.ranking > 0) && !(system instanceof HubStorySystem)) {
      const lm = StoryLikelihood.of(system);
      if (opts.perplexity) {
        let nll = 0;
        let count = 0;
        let words = 0;
        for (const [i, row] of rows.entries()) {
          const lps = await lm.tokenLogProbs(row.prompt, row.story);
          nll -= lps.reduce((a, b) => a + b, 0);
          count += lps.length;
          words += row.story.split(/\s+/).filter(Boolean).length + 1;
          if ((i + 1) % 50 === 0) log(`${v.name} perplexity: ${i + 1}/${rows.length}`);
        }
        Object.assign(line, { tokenPpl: Math.exp(nll / count), wordPpl: Math.exp(nll / words), pplTokens: count });
      }
      if (opts.ranking > 0) {
        const sample = rows.slice(0, opts.ranking);
        let right = 0;
        let ranked = 0;
        for (const domain of new Set(sample.map((r) => r.domain))) {
          const pairs = sample.filter((r) => r.domain === domain).map((r) => ({ prompt: r.prompt, story: r.story }));
          if (pairs.length < 2) continue; // no other prompt of its domain to rank against
          const r = await promptRankingAccuracy(pairs, lm, { distractors: 9, seed: opts.seed });
          right += r.accuracy * r.stories;
          ranked += r.stories;
          log(`${v.name} ranking ${domain}: ${(100 * r.accuracy).toFixed(1)}% of ${r.stories}`);
        }
        line.ranking = { accuracy: right / Math.max(ranked, 1), n: ranked };
      }
    }
    lines.push(line);
  }
  const human = entityContinuity(rows.map((r) => analyse(r.story))).continuity;
  return table(lines, rows, opts.seed, human);
}

function table(lines: readonly Line[], rows: readonly StoryRow[], seed: number, human: number | null): string {
  const perDomain = [...new Set(rows.map((r) => r.domain))]
    .map((d) => `${d} ${rows.filter((r) => r.domain === d).length}`)
    .join(', ');
  const ppl = lines.some((l) => l.tokenPpl !== undefined);
  const rank = lines.some((l) => l.ranking !== undefined);
  const f = (x: number | undefined, d: number) => (x === undefined ? '–' : x.toFixed(d));
  return [
    `| model | stories | words asked | words written (mean) | within 20 % | ended by end / words / length ` +
      `limit | tokens/s | entity continuity ` +
      `|${ppl ? ' test ppl per word | per token |' : ''}${rank ? ' prompt ranking |' : ''}`,
    `|---|---:|---:|---:|---:|---|---:|---:|${ppl ? '---:|---:|' : ''}${rank ? '---:|' : ''}`,
    ...lines.map(
      (l) =>
        `| ${l.model} | ${l.n} | ${f(l.asked, 0)} | ${f(l.written, 1)} | ${f(100 * l.within20, 1)} % | ` +
        `${l.ended.end ?? 0} / ${l.ended.words ?? 0} / ${l.ended['length-limit'] ?? 0} | ` +
        `${f(l.tokensPerSecond, 1)} | ${l.continuity === null ? '–' : `${f(100 * l.continuity, 1)} %`} |` +
        `${ppl ? ` ${f(l.wordPpl, 1)} | ${f(l.tokenPpl, 1)} |` : ''}` +
        `${rank ? ` ${l.ranking ? `${f(100 * l.ranking.accuracy, 1)} % (n = ${l.ranking.n})` : '–'} |` : ''}`,
    ),
    '',
    `Test split, ${rows.length} stories, the domains taking turns (${perDomain}). Each prompt continued by the ` +
      `engine's story system with the manifest's ` +
      (`top-k and temperature, seeded ${seed} + the item's position. Within 20 %: continuations whose word ` +
        `count is within 20 % of the words asked. `) +
      ("Ended by: the model's end token / the words asked / the longest story the model was trained to write " +
        '(tokens). ') +
      (`Entity continuity: adjacent sentences sharing a noun, name or third-person pronoun (Barzilay & Lapata's ` +
        `entity grid); the human stories of the same prompts: ` +
        `${human === null ? '–' : `${(100 * human).toFixed(1)} %`}.`) +
      (ppl
        ? ' Perplexity: the test stories under the model with their own prompts (teacher forcing through ' +
          'decoder.onnx), per word = exp(summed NLL / (words + 1)), per subword token incl. the end token.'
        : '') +
      (rank
        ? ' Prompt ranking: each story under its own prompt and 9 other prompts of the same domain from the ' +
          'sample; right when its own scores strictly best (chance 10 %).'
        : ''),
    '',
  ].join('\n');
}
