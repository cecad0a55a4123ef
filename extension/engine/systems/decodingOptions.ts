/**
 * A request's decoding options merged with its model's defaults, once, the same way for every
 * system (before: three ways, and four copies of the banned-token list).
 */
import type { BeamOptions as RequestedBeam } from '../../protocol';
import type { DecodingDefaults, SpecialTokens } from '../runtime/manifest';
import { lengthLimit, type LengthLimit } from './lengthLimit';

export interface BeamDecoding {
  beamSize: number;
  /** The limit and what set it (for the result's MaxLengthHit). */
  limit: LengthLimit;
  maxLength: number;
  /** At most maxLength: a longer minimum could never be met (and bans the end token just the same). */
  minLength: number;
  lengthPenalty: number;
  noRepeatNgramSize: number;
}

/**
 * What was asked, else the manifest's default; the length capped at `modelMax` (the longest output
 * the model was trained for). A field the request leaves undefined takes the default.
 */
export function beamDecoding(
  defaults: DecodingDefaults,
  requested: RequestedBeam | undefined,
  modelMax: number,
): BeamDecoding {
  const limit = lengthLimit(requested?.maxLength ?? defaults.maxLength, modelMax);
  return {
    beamSize: requested?.beamSize ?? defaults.beamSize,
    limit,
    maxLength: limit.maxLength,
    minLength: Math.min(requested?.minLength ?? defaults.minLength, limit.maxLength),
    lengthPenalty: requested?.lengthPenalty ?? defaults.lengthPenalty,
    noRepeatNgramSize: requested?.noRepeatNgramSize ?? defaults.noRepeatNgramSize,
  };
}

/**
 * The tokens no system writes: padding, unknown, the start token, the mask where the model has
 * one, and `also` (a model's own list, e.g. the story model's neverSample). Each once.
 */
export function neverWritten(special: SpecialTokens, also: readonly number[] = []): number[] {
  return [
    ...new Set([special.pad, special.unk, special.bos, ...(special.mask !== undefined ? [special.mask] : []), ...also]),
  ];
}
