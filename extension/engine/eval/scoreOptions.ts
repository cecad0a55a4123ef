/**
 * Score Draft's options (the request's `options`, from the draftsmith.score.* settings, or the
 * CLI's flags) as the metrics' own. The one place they are converted, so the editor, the panel's
 * folder totals and `draftsmith score` compute BLEU and chrF alike. Free of wink-nlp and Node APIs:
 * the host and the panel's page use it too.
 */
import type { ScoreOptions } from '../../protocol';
import type { BleuOptions } from '../metrics/bleu';
import type { ChrfOptions } from '../metrics/chrf';
import type { TerOptions } from '../metrics/ter';

/**
 * The request's options, plus sacreBLEU's effective order, which only the CLI's full table takes
 * (`--effective-order`; the editor has no setting for it).
 */
export type MetricOptions = ScoreOptions & { effectiveOrder?: boolean };

/**
 * BLEU's options: only the ones set, so the defaults are bleu.ts's own (sacreBLEU's). A smoothing
 * value is kept for floor (its ε) and add-k (its k) only: sacreBLEU's BLEU ignores it for exp and
 * none, and so does its command line, so the same options give the same score and signature here.
 */
export function bleuOptionsOf(options: MetricOptions): BleuOptions {
  const o: BleuOptions = {};
  if (options.tokenize !== undefined) o.tokenize = options.tokenize;
  if (options.smoothMethod !== undefined) o.smooth = options.smoothMethod;
  if (options.smoothValue !== undefined && smoothValueApplies(options)) o.smoothValue = options.smoothValue;
  if (options.maxNgramOrder !== undefined) o.maxOrder = options.maxNgramOrder;
  if (options.lowercase) o.lowercase = true;
  if (options.effectiveOrder) o.effectiveOrder = true;
  return o;
}

/** Whether the smoothing method takes a value (floor and add-k; the default, exp, does not). */
export const smoothValueApplies = (options: MetricOptions): boolean =>
  options.smoothMethod === 'floor' || options.smoothMethod === 'add-k';

/** chrF's options from a request's; undefined when chrF is off. */
export function chrfOptionsOf(options: MetricOptions): ChrfOptions | undefined {
  if (options.chrf === undefined) return undefined;
  return options.chrf === 'chrF++' ? { wordOrder: 2 } : {};
}

/** TER's options from a request's; undefined when TER is off. Only the ones set, so the defaults
 * are sacreBLEU's (lowercased, no normalisation, punctuation kept). */
export function terOptionsOf(options: MetricOptions): TerOptions | undefined {
  if (options.ter === undefined) return undefined;
  const o: TerOptions = {};
  if (options.ter.caseSensitive) o.caseSensitive = true;
  if (options.ter.normalized) o.normalized = true;
  if (options.ter.noPunct) o.noPunct = true;
  if (options.ter.asianSupport) o.asianSupport = true;
  return o;
}
