/**
 * The longest output a system decodes (what was asked, capped at what the model was trained for),
 * and whether a hypothesis was cut off there: the user is told, and told which limit to raise.
 */
import type { MaxLengthHit } from '../../protocol';
import type { Hypothesis } from '../decode/types';

export type LengthLimit = MaxLengthHit;

/** `asked`: the request's maxLength or the manifest default; `modelMax`: the model's longest output. */
export function lengthLimit(asked: number, modelMax: number): LengthLimit {
  return asked > modelMax ? { maxLength: modelMax, limitedBy: 'model' } : { maxLength: asked, limitedBy: 'request' };
}

/** What a result says about one hypothesis: the limit that cut it off, or null when the model ended it. */
export function maxLengthHit(hypothesis: Pick<Hypothesis, 'hitMaxLength'>, limit: LengthLimit): MaxLengthHit | null {
  return hypothesis.hitMaxLength ? { ...limit } : null;
}

/**
 * Tells the user that `what` ("summary", "essay") was cut off at the limit, and what sets it:
 * `setting` is the knob in the caller's own terms (draftsmith.summarize.maxLength, --max-tokens).
 */
export function maxLengthNote(what: string, hit: MaxLengthHit, setting: string): string {
  const cut =
    `the ${what} reached the length limit of ${hit.maxLength} tokens before the model ended it, so it may stop ` +
    `mid-sentence.`;
  return hit.limitedBy === 'request'
    ? `${cut} Raise ${setting} for a longer ${what}.`
    : `${cut} That is the longest the model writes; a larger ${setting} does not lengthen it.`;
}
