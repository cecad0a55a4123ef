/**
 * `draftsmith score --bertscore-model MODEL [--bertscore-idf]` and `-m bertscore`: BERTScore of the
 * drafts under an encoder the user chooses (a Hub id in transformers.js's layout, downloaded once
 * into $DRAFTSMITH_CACHE, or a folder), through the same Hub path and metric as Score Draft
 * (engine/hub/hubEncoder.ts, engine/eval/bertScoreEval.ts). Nothing is downloaded without the option.
 */
import type { EngineConfig, ModelChoice } from '../protocol';
import { defaultHubConfig } from '../engine/engine';
import { EngineError } from '../engine/errors';
import { bertScoreOf, type BertScoreRun } from '../engine/eval/bertScoreEval';
import { HubEncoder } from '../engine/hub/hubEncoder';
import { flag, modelChoiceFlag, type Args } from './args';
import { progressBar } from './progressBar';
import { isInterrupted } from './interrupt';

/** What --bertscore-model and --bertscore-idf ask for; undefined without --bertscore-model. */
export interface BertScoreFlags {
  model: Exclude<ModelChoice, { kind: 'built-in' }>;
  idf: boolean;
}

export function bertScoreFlags(a: Args): BertScoreFlags | undefined {
  const model = modelChoiceFlag(a, 'bertscore-model');
  if (model === undefined) {
    if (flag(a, 'bertscore-idf') !== undefined)
      throw new EngineError('bad-request', '--bertscore-idf weighs BERTScore: add --bertscore-model MODEL');
    return undefined;
  }
  if (model.kind === 'built-in')
    throw new EngineError(
      'bad-request',
      '--bertscore-model needs an encoder (a Hub id such as Xenova/all-MiniLM-L6-v2, or a folder): Draftsmith ' +
        'ships none',
    );
  return { model, idf: flag(a, 'bertscore-idf') !== undefined };
}

/** BERTScore of `pairs` (idf over their references when asked for and there are two or more). */
export async function draftBertScore(
  pairs: readonly { hypothesis: string; reference: string }[],
  flags: BertScoreFlags,
  config: EngineConfig,
): Promise<BertScoreRun> {
  const runtime = {
    device: config.device,
    threads: config.threads,
    log: (level: 'info' | 'warn', message: string) => {
      if (level === 'warn') process.stderr.write(`[warn] ${message}\n`);
    },
  };
  let last = '';
  const watch = {
    // The download's progress once it is whole (a line per percent would flood a log).
    progress: (message: string) => {
      if (message === last || (/^Downloading /.test(message) && !/\(100 %\)$/.test(message))) return;
      process.stderr.write(`${message}\n`);
      last = message;
    },
    // Ctrl+C aborts the encoder's download (cli/interrupt.ts).
    isCancelled: isInterrupted,
  };
  const encoder = await HubEncoder.open(flags.model, config.hub ?? defaultHubConfig(), runtime, watch);
  const bar = progressBar(`BERTScore (${encoder.id})`);
  try {
    return await bertScoreOf(pairs, encoder, flags.idf, { progress: (d, t) => bar.update(d, t) });
  } finally {
    bar.done();
    await encoder.dispose();
  }
}
