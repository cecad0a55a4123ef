/**
 * Score Draft and Check Coherence as a system without a model: the metrics of eval/scoreDraft.ts
 * behind the same contract as the model systems, so the engine dispatches every op one way. With
 * options.perplexity, the draft's perplexity under the built-in story LM comes
 * from the engine's text scorer (RunContext.withTextScorer: the story model, loaded once and shared
 * with Continue Story).
 */
import type {
  BertScoreSettings,
  BertScoreSummary,
  CoherenceRequest,
  CoherenceResult,
  PerplexitySummary,
  ScoreRequest,
  ScoreResult,
  SystemsRequest,
  SystemsResult,
} from '../../protocol';
import { EngineError, errorMessage } from '../errors';
import { bertScoreOf } from '../eval/bertScoreEval';
import { signaturesOf } from '../eval/metricList';
import { checkCoherence, scoreDraft, scoredTexts } from '../eval/scoreDraft';
import { compareSystems } from '../eval/systemsComparison';
import { pooledPerplexity } from '../metrics/perplexity';
import type { RunContext } from './context';
import type { System, SystemDescription } from './system';

export class ScoringSystem implements System<'score' | 'coherence' | 'systems'> {
  run(req: ScoreRequest, ctx: RunContext): Promise<ScoreResult>;
  run(req: CoherenceRequest, ctx: RunContext): Promise<CoherenceResult>;
  run(req: SystemsRequest, ctx: RunContext): Promise<SystemsResult>;
  run(
    req: ScoreRequest | CoherenceRequest | SystemsRequest,
    ctx: RunContext,
  ): Promise<ScoreResult | CoherenceResult | SystemsResult>;
  async run(
    req: ScoreRequest | CoherenceRequest | SystemsRequest,
    ctx: RunContext,
  ): Promise<ScoreResult | CoherenceResult | SystemsResult> {
    if (req.op === 'systems') {
      ctx.progress('Comparing the drafts with the baseline…');
      return compareSystems(req, { checkCancelled: ctx.checkCancelled });
    }
    if (req.op === 'score') {
      ctx.progress('Scoring the draft…');
      const started = performance.now();
      const result = scoreDraft(req, { checkCancelled: ctx.checkCancelled });
      if (req.options?.perplexity) {
        const texts = [req.hypothesis, ...(req.second ? [req.second.hypothesis] : [])];
        const [first, second] = await perplexities(texts, ctx);
        result.scores.perplexity = first;
        if (second && result.comparison) result.comparison.secondScores.perplexity = second;
        result.elapsedMs = performance.now() - started;
      }
      if (req.options?.bertscore) {
        const [first, second] = await bertScores(req, req.options.bertscore, ctx);
        result.scores.bertscore = first;
        if (second && result.comparison) result.comparison.secondScores.bertscore = second;
        result.signatures = signaturesOf(result.scores, req.options);
        result.elapsedMs = performance.now() - started;
      }
      return result;
    }
    ctx.progress('Aligning sentences…');
    return checkCoherence(req);
  }

  describe(): SystemDescription {
    return {
      system: 'scoring',
      name: 'metrics',
      description:
        'BLEU, ROUGE, chrF, Diversity, Substantiality, coherence L, non-word rate; perplexity through the ' +
        'story model, BERTScore through a chosen encoder',
      architecture: 'none',
      dir: null,
      device: 'none',
    };
  }

  async dispose(): Promise<void> {
    // No sessions to release.
  }
}

/** BERTScore of the draft (and the second draft) against the reference, under the chosen encoder. */
async function bertScores(
  req: ScoreRequest,
  settings: BertScoreSettings,
  ctx: RunContext,
): Promise<BertScoreSummary[]> {
  const { model: choice } = settings;
  if (!ctx.withEncoder)
    throw new EngineError(
      'bad-request',
      'BERTScore needs a Hub model or a folder as its encoder, loaded by the engine.',
    );
  const texts = scoredTexts(req);
  const withEncoder = ctx.withEncoder;
  return modelPart("Score Draft's BERTScore: ", 'clear draftsmith.score.bertscore.model to score without it', () =>
    withEncoder(choice, async (encoder) => {
      ctx.progress(`BERTScore under ${encoder.id}…`);
      const drafts = [texts.hypothesis, ...(texts.second !== undefined ? [texts.second] : [])];
      const out: BertScoreSummary[] = [];
      for (const hypothesis of drafts) {
        const run = await bertScoreOf([{ hypothesis, reference: texts.reference }], encoder, settings.idf === true, {
          checkCancelled: ctx.checkCancelled,
        });
        out.push(run.summary);
      }
      return out;
    }),
  );
}

/**
 * Runs a part of Score Draft that needs a model. Its failure says which part, why, and the setting
 * that scores without it; Cancel and a stopped engine pass as they are.
 */
async function modelPart<T>(part: string, without: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof EngineError && (e.code === 'cancelled' || e.code === 'stopped')) throw e;
    const code = e instanceof EngineError ? e.code : 'internal';
    throw new EngineError(code, `${part}${errorMessage(e)} (${without})`);
  }
}

/** Each text's perplexity under the engine's built-in story model. */
async function perplexities(texts: readonly string[], ctx: RunContext): Promise<PerplexitySummary[]> {
  if (!ctx.withTextScorer)
    throw new EngineError('bad-request', "A draft's perplexity needs the story model, which only the engine loads.");
  const withTextScorer = ctx.withTextScorer;
  return modelPart(
    "Score Draft's perplexity needs the built-in story model: ",
    'turn off draftsmith.score.perplexity to score without it',
    () =>
      withTextScorer(async (lm) => {
        const out: PerplexitySummary[] = [];
        for (const text of texts) {
          ctx.progress('Perplexity under the story model…');
          out.push(
            pooledPerplexity(
              [
                await lm.textPerplexity(text, {
                  checkCancelled: ctx.checkCancelled,
                  ...(ctx.clock ? { clock: ctx.clock } : {}),
                }),
              ],
              lm.name,
            ),
          );
        }
        return out;
      }),
  );
}
