/**
 * The Draftsmith CLI: the same engine as the extension, from a terminal. Its commands and their
 * options are described once, in cli/commands.ts; `draftsmith --help` and docs/cli.md show that
 * table, and `main` below dispatches through it to one handler per command.
 */
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import {
  DeviceSetting,
  EngineConfig,
  EngineRequest,
  SummarizeMode,
  type EssayRequest,
  type EssayResult,
  type ModelChoice,
  type ResultFor,
  type SummarizeRequest,
  type SummarizeResult,
  type TextOrigin,
} from './protocol';
import { defaultHubConfig, Engine } from './engine/engine';
import { EngineError, errorMessage } from './engine/errors';
import { openDump } from './engine/eval/dump';
import { runEssayEval } from './engine/eval/essayEval';
import { runRoundTripEval } from './engine/eval/roundtripEval';
import { runStoryEval } from './engine/eval/storyEval';
import {
  EVAL_MODES,
  runSummarizeEval,
  SUMMARIZE_DOMAINS,
  type EvalMode,
  type SummarizeDomain,
  type SummarizeEvalOptions,
} from './engine/eval/summarizeEval';
import { runLongDocumentEval } from './engine/eval/longDocumentEval';
import { AGGREGATIONS, type Aggregation } from './engine/systems/extractive';
import { parseExtractiveWeights } from './engine/systems/extractiveFeatures';
import { maxLengthNote } from './engine/systems/lengthLimit';
import { disableOrtTelemetry } from './engine/runtime/ortTelemetry';
import { DEFAULT_THREADS } from './engine/runtime/threads';
import { modelDir } from './engine/systems/registry';
import { flag, guardsFlag, intFlag, modelChoiceFlag, numberFlag, parseArgs, type Args } from './cli/args';
import { commandInput, readStdinText } from './cli/inputText';
import { checkOptions } from './cli/options';
import { COMMANDS, commandNamed, type CommandName } from './cli/commands';
import { CLI_ENGINE, exitInterrupted, handleInterrupt, isInterrupted } from './cli/interrupt';
import { plainIssue } from './cli/plainIssue';
import { nearest } from './cli/suggest';
import { version } from '../package.json';
import { commandHelp, usageText } from './cli/help';
import { downloadProgress, workProgress } from './cli/progressBar';
import { parseHubEndpoint } from './modelChoice';
import { STORY_CHOOSE, storyCutNote } from './windowNotes';
import { evalReply, replyCommand } from './cli/replyCommand';
import { rewriteCommand } from './cli/rewriteCommand';
import { roundtripCommand } from './cli/roundtripCommand';
import { scoreCommand } from './cli/scoreCommand';
import { checkCommand } from './cli/checkCommand';
import { runChecksEval } from './engine/eval/checksEval';
import { cutNote, isDocumentRun, summarizeDocuments, summaryNotes } from './cli/summarizeDocuments';

export function engineConfig(a: Args): EngineConfig {
  const device = DeviceSetting.safeParse(flag(a, 'device') ?? 'auto');
  if (!device.success) throw new EngineError('bad-request', `--device must be auto, cpu or cuda`);
  const endpoint = parseHubEndpoint(flag(a, 'hub-endpoint'), '--hub-endpoint');
  if (typeof endpoint === 'object') throw new EngineError('bad-request', endpoint.error);
  const config = EngineConfig.safeParse({
    modelsDir: path.resolve(flag(a, 'models') ?? path.join(__dirname, '..', 'models')),
    // --models-url: Draftsmith model folders from a server, cached with the Hub's.
    ...(flag(a, 'models-url') !== undefined ? { modelsUrl: flag(a, 'models-url') } : {}),
    // Hub models: downloaded into $DRAFTSMITH_CACHE, else ~/.cache/draftsmith/hub.
    hub: {
      endpoint,
      offline: flag(a, 'offline') !== undefined,
      cacheDir: path.resolve(process.env.DRAFTSMITH_CACHE?.trim() || defaultHubConfig().cacheDir),
      ...(numberFlag(a, 'max-download-gb') !== undefined ? { maxDownloadGB: numberFlag(a, 'max-download-gb') } : {}),
    },
    device: device.data,
    threads: intFlag(a, 'threads') ?? DEFAULT_THREADS,
  });
  if (!config.success) {
    const where = config.error.issues[0]?.path[0];
    throw new EngineError(
      'bad-request',
      where === 'threads'
        ? '--threads must be between 0 and 64'
        : `${String(where ?? 'a setting')}: ${config.error.issues[0]?.message ?? 'not valid'}`,
    );
  }
  return config.data;
}

/**
 * --model for summarize, essay, story and premise: built-in, a Hub id (owner/name[@revision]) or a folder (relative to
 * the working directory); the engine tells a Draftsmith folder (model.json) from transformers.js's layout.
 */
function modelFlag(a: Args): ModelChoice | undefined {
  return modelChoiceFlag(a, 'model');
}

/** The request field each option fills, for messages in the options' own names. */
const OPTION_OF: Record<string, string> = {
  'decoding.beamSize': '--beam',
  'decoding.maxLength': '--max-tokens',
  maxInputTokens: '--max-input-tokens',
  candidates: '--candidates',
  words: '--max-words',
  'sampling.seed': '--seed',
  'sampling.temperature': '--temperature',
  'sampling.topK': '--top-k',
  maxSentences: '--max-sentences',
  variant: '--variant',
  key: '--key',
  mappers: '--mapper',
  maxCandidates: '--candidates',
  maxTokens: '--max-tokens',
  preset: '--preset',
  instruction: '--instruction',
};

/**
 * The protocol's limits hold for the CLI too (the worker checks them for the extension): --beam 0 is refused, not run.
 */
function checked<R extends EngineRequest>(request: R): R {
  const parsed = EngineRequest.safeParse(request);
  if (parsed.success) return request;
  const issue = parsed.error.issues[0];
  const where = issue.path.join('.');
  // The value the command line gave, for the message.
  const value = issue.path.reduce<unknown>(
    (v, k) => (typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    request,
  );
  throw new EngineError('bad-request', plainIssue(OPTION_OF[where] ?? where, issue, value));
}

const stderrLog = (level: string, message: string) => {
  if (level !== 'info' || process.env.DRAFTSMITH_VERBOSE) process.stderr.write(`[${level}] ${message}\n`);
};

/**
 * One summarize or essay request on an engine of its own, a Hub model's first download shown on
 * standard error, and the line that names the model when it is not one of Draftsmith's own.
 * `request` is built once the engine's options are read, so a bad --device is reported first.
 */
async function runShowingDownload<R extends SummarizeRequest | EssayRequest>(
  a: Args,
  request: () => R,
  work?: ReturnType<typeof workProgress>,
): Promise<ResultFor<R>> {
  const engine = new Engine(engineConfig(a), stderrLog, CLI_ENGINE);
  const download = downloadProgress();
  // The download on its own line; the work after it (sections done of all) once it runs a while.
  const progress = (message: string, fraction?: number) =>
    message.startsWith('Downloading ') ? download.progress(message, fraction) : work?.progress(message, fraction);
  const result = await engine.run(checked(request()), { progress }).finally(() => {
    download.done();
    work?.done();
  });
  const answered: SummarizeResult | EssayResult = result;
  if (answered.external) process.stderr.write(externalLine(answered.external));
  return result;
}

/** The summarize request of one text, with the options its command line gives. */
function summarizeRequest(
  a: Args,
  model: ModelChoice | undefined,
  text: string,
  origin: TextOrigin | undefined,
): SummarizeRequest {
  return {
    op: 'summarize',
    text,
    origin,
    mode: summarizeMode(flag(a, 'mode') ?? 'extractive'),
    guards: guardsFlag(a),
    maxInputTokens: intFlag(a, 'max-input-tokens'),
    decoding: { beamSize: intFlag(a, 'beam'), maxLength: intFlag(a, 'max-tokens') },
    model,
  };
}

async function summarize(a: Args): Promise<number> {
  const words = a.positional.slice(1);
  if (isDocumentRun(a, words)) {
    // Whole documents, section by section (cli/summarizeDocuments.ts): one engine for every file.
    const engine = new Engine(engineConfig(a), stderrLog, CLI_ENGINE);
    const model = modelFlag(a);
    const limit = numberFlag(a, 'section-time-limit');
    if (limit !== undefined && limit <= 0)
      throw new EngineError('bad-request', '--section-time-limit: a number of seconds above 0');
    return summarizeDocuments(a, words, {
      request: (text, origin, format) =>
        checked({
          ...summarizeRequest(a, model, text, origin),
          format,
          ...(limit !== undefined ? { sectionTimeLimitMs: Math.round(limit * 1000) } : {}),
        }),
      run: (request, progress) => engine.run(request, { progress }),
    });
  }
  const { text, origin } = await commandInput(a, 'summarize', a.positional.slice(1), {
    acceptsText: false,
    missing: 'summarize needs a FILE (use - for standard input, or --text "...")',
  });
  const model = modelFlag(a);
  // Standard input and --text are read whole too: as plain text, in sections by paragraphs.
  const result = await runShowingDownload(
    a,
    () => ({ ...summarizeRequest(a, model, text, origin), format: 'plain' as const }),
    workProgress('summarize'),
  );
  if (flag(a, 'json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  }
  process.stdout.write(result.summary + '\n');
  if (result.experimental) process.stderr.write(`note: ${result.experimental}\n`);
  for (const line of summaryNotes(result)) process.stderr.write(`${line}\n`);
  const cut = cutNote(result);
  if (cut) process.stderr.write(`note: ${cut}\n`);
  if (result.mode === 'extractive' || result.mode === 'synopsis') {
    const ignored = ['beam', 'max-tokens'].filter((f) => flag(a, f) !== undefined).map((f) => `--${f}`);
    if (ignored.length)
      process.stderr.write(
        `note: ${ignored.join(' and ')} ${ignored.length > 1 ? 'apply' : 'applies'} to --mode abstractive ` +
          `only; the ${result.mode} summary writes no tokens\n`,
      );
    const chosen =
      result.mode === 'synopsis'
        ? '1 sentence chosen by the synopsis scorer (topic-aware attention, position, words)'
        : `${sentences(result.extracted?.length ?? 0)} chosen by topic-aware attention, position and centrality`;
    process.stderr.write(
      `${chosen}, verbatim; top phrases: ${result.topPhrases.map((p) => JSON.stringify(p.text)).join(', ')}\n`,
    );
    process.stderr.write(
      `${result.stats.usedInputTokens} tokens read in ${result.stats.encodeMs.toFixed(0)} ms on ` +
        `${result.stats.device}\n`,
    );
    return 0;
  }
  if (result.hitMaxLength)
    process.stderr.write(`note: ${maxLengthNote('summary', result.hitMaxLength, '--max-tokens')}\n`);
  if (result.topPhrases.length > 0)
    process.stderr.write(`top phrases: ${result.topPhrases.map((p) => JSON.stringify(p.text)).join(', ')}\n`);
  process.stderr.write(
    `${result.stats.outputTokens} tokens, ${result.stats.tokensPerSecond.toFixed(1)} steps/s, encode ` +
      `${result.stats.encodeMs.toFixed(0)} ms, decode ${result.stats.decodeMs.toFixed(0)} ms on ` +
      `${result.stats.device} (${result.stats.model})\n`,
  );
  return 0;
}

const sentences = (n: number) => `${n} sentence${n === 1 ? '' : 's'}`;

async function essay(a: Args): Promise<void> {
  const needs =
    'essay needs topic words, e.g. draftsmith essay "bee, swallow, geese, flower, frog" (or a FILE of them, or ' +
    '- for standard input)';
  const {
    text: topics,
    origin,
    source,
  } = await commandInput(a, 'essay', a.positional.slice(1), { acceptsText: true, missing: needs });
  if (!topics.trim() && source === 'command line') throw new EngineError('bad-request', needs);
  const model = modelFlag(a);
  const result = await runShowingDownload(a, () => ({
    op: 'essay',
    topics,
    origin,
    candidates: intFlag(a, 'candidates'),
    includeAllTopics: flag(a, 'unconstrained') === undefined,
    guards: guardsFlag(a),
    decoding: { beamSize: intFlag(a, 'beam'), maxLength: intFlag(a, 'max-tokens') },
    model,
  }));
  if (flag(a, 'json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  result.candidates.forEach((c, i) => {
    if (result.candidates.length > 1) process.stdout.write(`--- candidate ${i + 1} (score ${c.score.toFixed(3)})\n`);
    process.stdout.write(c.text + '\n');
    process.stderr.write(
      `covers ${c.covered.length}/${result.topics.length} topic words: ${c.covered.join(', ') || 'none'}\n`,
    );
    if (c.hitMaxLength) process.stderr.write(`note: ${maxLengthNote('essay', c.hitMaxLength, '--max-tokens')}\n`);
  });
  if (result.unknownTopics.length) process.stderr.write(`no word vector for: ${result.unknownTopics.join(', ')}\n`);
  if (result.skippedTopics.length)
    process.stderr.write(`left out (no letters the model knows): ${result.skippedTopics.join(', ')}\n`);
  const s = result.stats;
  process.stderr.write(
    `${s.outputTokens} tokens, ${s.tokensPerSecond.toFixed(1)} steps/s, encode ${s.encodeMs.toFixed(0)} ms, ` +
      `decode ${s.decodeMs.toFixed(0)} ms on ${s.device}\n`,
  );
}

/** eval summarize --long: the whole-document summary against the first window and Lead-3 on long CNN articles. */
async function evalLongDocuments(a: Args): Promise<void> {
  const models = flag(a, 'models');
  const config = engineConfig(a);
  process.stdout.write(
    await runLongDocumentEval(
      {
        dataDir: path.resolve(flag(a, 'data') ?? path.join(__dirname, '..', '.data')),
        modelDir: modelDir(models ? path.resolve(models) : path.join(__dirname, '..', 'models'), 'summarize'),
        limit: intFlag(a, 'limit') ?? 200,
        mode: summarizeMode(flag(a, 'mode') ?? 'extractive'),
        runtime: { device: config.device, threads: config.threads, log: stderrLog },
      },
      (m) => process.stderr.write(`${m}\n`),
    ),
  );
}

async function evalRoundTrip(a: Args): Promise<void> {
  process.stdout.write(
    await runRoundTripEval(
      evalOptions(a, (models) => `default=${modelDir(models, 'roundtrip')}`),
      evalProgress,
    ),
  );
}

/** Continue Story (or, with --premise, Write a Premise): the text streams to stdout as it is sampled. */
async function story(a: Args): Promise<void> {
  const json = flag(a, 'json') !== undefined;
  const sampling = { seed: intFlag(a, 'seed'), temperature: numberFlag(a, 'temperature'), topK: intFlag(a, 'top-k') };
  const premise = flag(a, 'premise') !== undefined;
  const words = a.positional.slice(1);
  if (premise && words.length > 0)
    throw new EngineError(
      'bad-request',
      'story: give the story so far to continue, or --premise to write one, not both',
    );
  // The story so far: a FILE, - or --text, as every command reads its text.
  const prompt = premise
    ? undefined
    : (
        await commandInput(a, 'story', words, {
          acceptsText: false,
          missing:
            'story needs the story so far: a FILE, - for standard input, or --text "TEXT"; or --premise to ' +
            'write a premise',
        })
      ).text;
  const model = modelFlag(a);
  const engine = new Engine(engineConfig(a), stderrLog, CLI_ENGINE);
  // A Hub model's first use downloads it: its progress goes to standard error, the story to standard output.
  const download = downloadProgress(() => model?.kind === 'hub');
  const progress = download.progress;
  let streamed = '';
  // The engine's partial texts each hold the whole text so far: print what is new.
  const partial = json
    ? undefined
    : (text: string) => {
        download.done();
        if (!text.startsWith(streamed)) return;
        process.stdout.write(text.slice(streamed.length));
        streamed = text;
      };
  const finish = (text: string) => {
    if (json) return;
    process.stdout.write((text.startsWith(streamed) ? text.slice(streamed.length) : '') + '\n');
  };
  if (premise) {
    const r = await engine
      .run(checked({ op: 'premise', sampling, guards: guardsFlag(a), model }), { partial, progress })
      .finally(() => download.done());
    if (json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    finish(r.premise);
    if (r.external) process.stderr.write(externalLine(r.external));
    process.stderr.write(
      `${r.stats.outputTokens} tokens, ${r.stats.tokensPerSecond.toFixed(1)} tokens/s on ${r.stats.device}, ` +
        `seed ${r.sampling.seed}\n`,
    );
    return;
  }
  const r = await engine
    .run(
      checked({
        op: 'story',
        prompt: prompt ?? '',
        words: intFlag(a, 'max-words'),
        sampling,
        guards: guardsFlag(a),
        model,
      }),
      { partial, progress },
    )
    .finally(() => download.done());
  if (json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  finish(r.continuation);
  if (r.external) process.stderr.write(externalLine(r.external));
  const cut = storyCutNote(r, r.stats.usedInputTokens);
  if (cut) process.stderr.write(`note: ${cut}. ${STORY_CHOOSE.cli}\n`);
  if (r.hitMaxLength) process.stderr.write(`note: ${maxLengthNote('story', r.hitMaxLength, '--max-words')}\n`);
  const s = r.stats;
  process.stderr.write(
    `${r.wordCount} words (${s.outputTokens} tokens, ended by ${r.endedBy}), ${s.tokensPerSecond.toFixed(1)} ` +
      `tokens/s, encode ${s.encodeMs.toFixed(0)} ms, ` +
      (`decode ${s.decodeMs.toFixed(0)} ms on ${s.device}, top-k ${r.sampling.topK}, temperature ` +
        `${r.sampling.temperature}, seed ${r.sampling.seed}\n`),
  );
}

/** Which model wrote the text, when it is not one of Draftsmith's own (a Hub model, a transformers.js folder). */
const externalLine = (m: { id: string; architecture: string; note: string }) =>
  `model: ${m.id} (${m.architecture})${m.note ? `; ${m.note}` : ''}\n`;

/** --variant NAME=DIR (repeatable): the model folders an eval compares. */
function variants(a: Args, fallback: string): { name: string; dir: string }[] {
  return (a.flags.get('variant') ?? [fallback]).map((v) => {
    const [name, dir] = v.split('=', 2);
    if (!dir) throw new EngineError('bad-request', `--variant must be NAME=DIR, not "${v}"`);
    return { name, dir: path.resolve(dir) };
  });
}

/**
 * --data, else the folder of the shipped model's own test split: .data for summarize, .data/simple for
 * the models of simple stories (Round-Trip, Essay, Continue Story: prepare --corpus simple).
 */
const evalDataDir = (a: Args, folder: '.data' | '.data/simple') =>
  path.resolve(flag(a, 'data') ?? path.join(__dirname, '..', folder));

/**
 * What every eval reads from its command line: --data, --limit, --variant (else the shipped model
 * `fallback` names), --show, --no-guards, the runtime and --dump (opened last, once the rest is valid).
 */
function evalOptions(
  a: Args,
  fallback: (modelsDir: string) => string,
  data: '.data' | '.data/simple' = '.data/simple',
) {
  const config = engineConfig(a);
  return {
    dataDir: evalDataDir(a, data),
    limit: intFlag(a, 'limit') ?? Infinity,
    variants: variants(a, fallback(config.modelsDir)),
    show: flag(a, 'show') !== undefined,
    guards: guardsFlag(a),
    runtime: { device: config.device, threads: config.threads, log: stderrLog },
    dump: openDump(flag(a, 'dump')),
  };
}
const evalProgress = (m: string) => {
  process.stderr.write(`${m}\n`);
};

async function evalSummarize(a: Args): Promise<void> {
  if (flag(a, 'long') !== undefined) return evalLongDocuments(a);
  process.stdout.write(
    await runSummarizeEval(
      {
        offset: intFlag(a, 'offset') ?? 0,
        perplexity: flag(a, 'perplexity') !== undefined,
        ...summarizeEvalFlags(a),
        ...evalOptions(a, (models) => `TAAS=${modelDir(models, 'summarize')}`, '.data'),
      },
      evalProgress,
    ),
  );
}

function summarizeMode(value: string): SummarizeMode {
  const mode = SummarizeMode.safeParse(value);
  if (!mode.success)
    throw new EngineError('bad-request', `--mode must be extractive, abstractive or synopsis, not "${value}"`);
  return mode.data;
}

/** eval summarize's --mode, --split, --sweep and the extractive settings. */
function summarizeEvalFlags(
  a: Args,
): Pick<SummarizeEvalOptions, 'mode' | 'split' | 'sweep' | 'extractive' | 'scorers' | 'domains' | 'features'> {
  const mode = flag(a, 'mode') ?? 'all';
  if (!(EVAL_MODES as readonly string[]).includes(mode))
    throw new EngineError('bad-request', `--mode must be ${EVAL_MODES.join(', ')}, not "${mode}"`);
  const split = flag(a, 'split') ?? 'test';
  if (split !== 'test' && split !== 'val' && split !== 'train')
    throw new EngineError('bad-request', `--split must be test or val (or train with --features), not "${split}"`);
  const features = flag(a, 'features');
  const aggregation = flag(a, 'aggregation');
  if (aggregation !== undefined && !(AGGREGATIONS as readonly string[]).includes(aggregation)) {
    throw new EngineError('bad-request', `--aggregation must be ${AGGREGATIONS.join(', ')}, not "${aggregation}"`);
  }
  const ratio = numberFlag(a, 'ratio');
  if (ratio !== undefined && !(ratio > 0)) throw new EngineError('bad-request', '--ratio must be above 0');
  const positionWeight = numberFlag(a, 'position-weight');
  if (positionWeight !== undefined && !(positionWeight >= 0))
    throw new EngineError('bad-request', '--position-weight must be 0 or more');
  const maxSentences = intFlag(a, 'max-sentences');
  if (maxSentences !== undefined && maxSentences < 1)
    throw new EngineError('bad-request', '--max-sentences must be at least 1');
  const redundancy = numberFlag(a, 'redundancy');
  if (redundancy !== undefined && !(redundancy > 0))
    throw new EngineError('bad-request', '--redundancy must be above 0 (1 or more: off)');
  const centrality = numberFlag(a, 'centrality');
  if (centrality !== undefined && !(centrality >= 0))
    throw new EngineError('bad-request', '--centrality must be 0 or more');
  const titleWeight = numberFlag(a, 'title-weight');
  if (titleWeight !== undefined && !(titleWeight >= 0))
    throw new EngineError('bad-request', '--title-weight must be 0 or more');
  const leadSentences = intFlag(a, 'lead-sentences');
  if (leadSentences !== undefined && leadSentences < 1)
    throw new EngineError('bad-request', '--lead-sentences must be at least 1');
  if (leadSentences !== undefined && ratio !== undefined)
    throw new EngineError('bad-request', '--lead-sentences and --ratio each set the length: give one');
  const extractive: SummarizeEvalOptions['extractive'] = {};
  if (redundancy !== undefined) extractive.redundancy = redundancy;
  if (centrality !== undefined) extractive.centralityWeight = centrality;
  if (titleWeight !== undefined) extractive.titleWeight = titleWeight;
  if (leadSentences !== undefined) extractive.leadSentences = leadSentences;
  // A share of the words replaces the first sentences' length.
  if (ratio !== undefined) extractive.leadSentences = undefined;
  if (flag(a, 'no-antecedents') !== undefined) extractive.antecedents = false;
  const length = flag(a, 'length');
  if (length !== undefined && length !== 'at-least' && length !== 'closest')
    throw new EngineError('bad-request', `--length must be at-least or closest, not "${length}"`);
  if (length !== undefined) extractive.length = length;
  // --scorer FILE (repeatable with --sweep: each compared there).
  const scorers = (a.flags.get('scorer') ?? []).map((file) => {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path.resolve(file), 'utf8'));
    } catch (e) {
      throw new EngineError('bad-request', `--scorer ${file}: not a readable JSON file (${errorMessage(e)})`);
    }
    return { name: path.basename(file), weights: parseExtractiveWeights(json, file) };
  });
  if (scorers.length > 1 && flag(a, 'sweep') === undefined)
    throw new EngineError('bad-request', 'give one --scorer (several only with --sweep)');
  if (scorers.length > 0) extractive.learned = scorers[0].weights;
  if (aggregation !== undefined) extractive.aggregation = aggregation as Aggregation;
  if (ratio !== undefined) extractive.ratio = ratio;
  if (maxSentences !== undefined) extractive.maxSentences = maxSentences;
  if (positionWeight !== undefined) extractive.positionWeight = positionWeight;
  const domains = (a.flags.get('domain') ?? []).flatMap((d) => d.split(','));
  for (const d of domains)
    if (!(SUMMARIZE_DOMAINS as readonly string[]).includes(d))
      throw new EngineError('bad-request', `--domain must be ${SUMMARIZE_DOMAINS.join(', ')}, not "${d}"`);
  return {
    mode: mode as EvalMode,
    split,
    sweep: flag(a, 'sweep') !== undefined,
    extractive,
    ...(scorers.length ? { scorers } : {}),
    ...(domains.length ? { domains: domains as SummarizeDomain[] } : {}),
    ...(features !== undefined ? { features: path.resolve(features) } : {}),
  };
}

async function evalEssay(a: Args): Promise<void> {
  process.stdout.write(
    await runEssayEval(
      {
        beamSize: intFlag(a, 'beam'),
        unconstrained: flag(a, 'unconstrained') !== undefined,
        ...evalOptions(a, (models) => `PC-SAN=${modelDir(models, 'essay')}`),
      },
      evalProgress,
    ),
  );
}

async function evalStory(a: Args): Promise<void> {
  process.stdout.write(
    await runStoryEval(
      {
        words: checked({ op: 'story', prompt: '', words: intFlag(a, 'max-words') }).words,
        seed: intFlag(a, 'seed') ?? 1,
        perplexity: flag(a, 'perplexity') !== undefined,
        ranking: intFlag(a, 'ranking') ?? 0,
        ...evalOptions(a, (models) => `fusion=${modelDir(models, 'story')}`),
      },
      evalProgress,
    ),
  );
}

const readStdin = readStdinText;

const cliParts = { engineConfig, checked, log: stderrLog, readStdin };

/**
 * onnxruntime reads this process's whole command line when it starts (/proc/self/cmdline) and
 * overflows its stack on one of about 30,000 characters: a segmentation fault, not an error. Longer
 * text belongs in a file.
 */
const MAX_COMMAND_LINE = 16_000;

/** One handler per command of the table; the compiler checks that every command has one. */
const HANDLERS: { readonly [C in CommandName]: (a: Args) => Promise<number | void> } = {
  summarize,
  'eval summarize': evalSummarize,
  essay,
  'eval essay': evalEssay,
  story,
  'eval story': evalStory,
  roundtrip: (a) => roundtripCommand(a, cliParts),
  'eval roundtrip': evalRoundTrip,
  reply: (a) => replyCommand(a, cliParts),
  rewrite: (a) => rewriteCommand(a, { ...cliParts, modelFlag }),
  'eval reply': (a) =>
    evalReply(a, cliParts, {
      dataDir: path.resolve(flag(a, 'data') ?? path.join(__dirname, '..', '.data', 'reply')),
      variants: (f) => variants(a, f),
    }),
  score: (a) => scoreCommand(a, engineConfig),
  check: checkCommand,
  'eval checks': async (a) => {
    const data = flag(a, 'data');
    if (data === undefined)
      throw new EngineError('bad-request', 'eval checks needs --data DIR (JFLEG: dev.src, dev.ref0-3)');
    process.stdout.write(
      await runChecksEval({ dataDir: path.resolve(data), limit: intFlag(a, 'limit') }, (m) =>
        process.stderr.write(`${m}\n`),
      ),
    );
  },
};

/** An unknown command, with the nearest one ("did you mean summarize?") and the list of them. */
function unknownCommand(words: readonly string[]): EngineError {
  const typed = words[0] === 'eval' && words[1] !== undefined ? `eval ${words[1]}` : words[0];
  const names = COMMANDS.map((c) => c.name);
  const guess = nearest(typed, names);
  return new EngineError(
    'bad-request',
    `unknown command "${typed}"${guess ? `; did you mean ${guess}?` : '.'} The commands: ${names.join(', ')} ` +
      `(draftsmith --help for each one's usage).`,
  );
}

async function main(argv: string[]): Promise<number> {
  disableOrtTelemetry();
  const a = parseArgs(argv);
  const cmd = a.positional[0];
  // --help, -h or help: the usage on standard output, exit 0 (with any command; text after "--" is text).
  // With a command ("summarize --help", "help summarize"), that command with each of its options.
  if (flag(a, 'help') !== undefined || a.positional.slice(0, a.optionsEnd).includes('-h') || cmd === 'help') {
    const named = commandNamed(cmd === 'help' ? a.positional.slice(1) : a.positional);
    process.stdout.write((named ? commandHelp(named) : usageText()) + '\n');
    return 0;
  }
  if (flag(a, 'version') !== undefined) {
    process.stdout.write(`draftsmith ${version}\n`);
    return 0;
  }
  if (!cmd) {
    process.stderr.write(`draftsmith: no command given\n${usageText()}\n`);
    return 2;
  }
  const command = commandNamed(a.positional);
  if (!command) throw unknownCommand(a.positional);
  // An option the command does not take is refused (exit 2), not ignored; a former name works, with a note.
  for (const note of checkOptions(a, command.name)) process.stderr.write(`${note}\n`);
  const commandLine = process.argv.join(' ').length;
  // score and check start no model runtime: any number of files may be named.
  if (cmd !== 'score' && cmd !== 'check' && commandLine > MAX_COMMAND_LINE) {
    throw new EngineError(
      'bad-request',
      `the command line is ${commandLine} characters long; the models' runtime cannot start with one over ` +
        `${MAX_COMMAND_LINE}. ` +
        'Put long text in a file: summarize, roundtrip and reply read FILE, or - for standard input.',
    );
  }
  return (await HANDLERS[command.name](a)) ?? 0;
}

handleInterrupt();
main(process.argv.slice(2)).then(
  (code) => {
    if (isInterrupted()) exitInterrupted();
    process.exitCode = code;
  },
  (e: unknown) => {
    // Whatever a Ctrl+C became on its way out (Cancelled, a download aborted), it ends as Ctrl+C.
    if (isInterrupted()) exitInterrupted();
    process.stderr.write(`draftsmith: ${errorMessage(e)}\n`);
    process.exitCode = e instanceof EngineError && e.code === 'bad-request' ? 2 : 1;
  },
);
