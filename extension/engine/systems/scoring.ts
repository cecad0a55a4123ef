/**
 * Score Draft and Check Coherence as a system without a model: the metrics of eval/scoreDraft.ts
 * behind the same contract as the model systems, so the engine dispatches every op one way.
 */
import type { CoherenceRequest, CoherenceResult, ScoreRequest, ScoreResult } from '../../protocol';
import { checkCoherence, scoreDraft } from '../eval/scoreDraft';
import type { RunContext } from './context';
import type { System, SystemDescription } from './system';

export class ScoringSystem implements System<'score' | 'coherence'> {
  run(req: ScoreRequest, ctx: RunContext): Promise<ScoreResult>;
  run(req: CoherenceRequest, ctx: RunContext): Promise<CoherenceResult>;
  run(req: ScoreRequest | CoherenceRequest, ctx: RunContext): Promise<ScoreResult | CoherenceResult>;
  async run(req: ScoreRequest | CoherenceRequest, ctx: RunContext): Promise<ScoreResult | CoherenceResult> {
    if (req.op === 'score') {
      ctx.progress('Scoring the draft…');
      return scoreDraft(req, { checkCancelled: ctx.checkCancelled });
    }
    ctx.progress('Aligning sentences…');
    return checkCoherence(req);
  }

  describe(): SystemDescription {
    return { system: 'scoring', name: 'metrics', description: 'BLEU, ROUGE, Diversity, Substantiality, coherence L', architecture: 'none', dir: null, device: 'none' };
  }

  async dispose(): Promise<void> {
    // No sessions to release.
  }
}
