/**
 * The result of a summary written by a model chosen for the command (a Hub summarizer or an instruct
 * model) rather than the built-in TAAS: what was read and the run's numbers, and none of TAAS's
 * insights (no attended tokens, phrases or topics).
 */
import type { DecodingValue, ExternalModel, SummarizeRequest, SummarizeResult } from '../../protocol';
import type { SectionedSummary } from './sectioned';

/** What a chosen model's summary run reports, section by section or whole. */
export type ModelSummaryRun = Pick<
  SummarizeResult,
  'summary' | 'truncated' | 'usedChars' | 'hitMaxLength' | 'sections' | 'readNotes'
> & {
  stats: Pick<SummarizeResult['stats'], 'inputTokens' | 'usedInputTokens' | 'outputTokens'>;
  encodeMs: number;
  decodeMs: number;
  tokensPerSecond: number;
};

/** A document read whole, section by section, in `ms`. */
export function sectionedRun(s: SectionedSummary, usedChars: number, ms: number): ModelSummaryRun {
  return {
    summary: s.summary,
    truncated: false,
    usedChars,
    hitMaxLength: s.hitMaxLength,
    sections: s.sections,
    readNotes: s.notes,
    stats: { inputTokens: s.inputTokens, usedInputTokens: s.inputTokens, outputTokens: s.outputTokens },
    encodeMs: s.encodeMs,
    decodeMs: s.decodeMs,
    tokensPerSecond: s.outputTokens / Math.max(1e-3, ms / 1000),
  };
}

export function modelSummaryResult(
  req: SummarizeRequest,
  r: ModelSummaryRun,
  model: { device: string; id: string; external: ExternalModel; decoding: DecodingValue[] },
  extra: Pick<SummarizeResult, 'inputLimit' | 'invented'>,
): SummarizeResult {
  return {
    op: 'summarize',
    mode: 'abstractive',
    summary: r.summary,
    source: req.text,
    truncated: r.truncated,
    usedChars: r.usedChars,
    hitMaxLength: r.hitMaxLength,
    tokens: [],
    topPhrases: [],
    topics: [],
    ...extra,
    ...(r.sections ? { sections: r.sections } : {}),
    ...(r.readNotes ? { readNotes: r.readNotes } : {}),
    stats: {
      ...r.stats,
      encodeMs: r.encodeMs,
      decodeMs: r.decodeMs,
      tokensPerSecond: r.tokensPerSecond,
      device: model.device,
      model: model.id,
    },
    external: { ...model.external, decoding: model.decoding },
  };
}
