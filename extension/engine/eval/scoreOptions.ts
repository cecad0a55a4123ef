/**
 * Score Draft's options (the request's `options`, from the draftsmith.score.* settings) as the
 * metrics' own, and the signatures of the scores they give. Free of wink-nlp, so the host can use
 * it (Score Drafts in Folder's totals) without loading the engine's text analysis.
 */
import type { ScoreOptions, ScoreResult } from '../../protocol';
import type { BleuOptions } from '../metrics/bleu';
import type { ChrfOptions } from '../metrics/chrf';
import { bleuSignature, chrfSignature, rougeSignature } from '../metrics/signature';

/** BLEU's options from a request's: only the ones set, so the defaults are bleu.ts's own (sacreBLEU's). */
export function bleuOptionsOf(options: ScoreOptions): BleuOptions {
  const o: BleuOptions = {};
  if (options.tokenize !== undefined) o.tokenize = options.tokenize;
  if (options.smoothMethod !== undefined) o.smooth = options.smoothMethod;
  // sacreBLEU uses a value for floor (ε) and add-k (k) only.
  if (options.smoothValue !== undefined && (options.smoothMethod === 'floor' || options.smoothMethod === 'add-k'))
    o.smoothValue = options.smoothValue;
  if (options.maxNgramOrder !== undefined) o.maxOrder = options.maxNgramOrder;
  if (options.lowercase) o.lowercase = true;
  return o;
}

/** chrF's options from a request's; undefined when chrF is off. */
export function chrfOptionsOf(options: ScoreOptions): ChrfOptions | undefined {
  if (options.chrf === undefined) return undefined;
  return options.chrf === 'chrF++' ? { wordOrder: 2 } : {};
}

/** The signatures of the scores scoreCorpus gives for these options (one reference per draft). */
export function scoreSignatures(options: ScoreOptions = {}): ScoreResult['signatures'] {
  const chrf = chrfOptionsOf(options);
  return {
    BLEU: bleuSignature(bleuOptionsOf(options), 1),
    ROUGE: rougeSignature({ stem: options.stem }),
    ...(chrf === undefined ? {} : { chrF: chrfSignature(chrf, 1) }),
  };
}
