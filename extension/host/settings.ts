/** Reads the draftsmith.* settings into the protocol's shapes (EngineConfig, request options). */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  BeamOptions,
  DeviceSetting,
  EngineConfig,
  HubConfig,
  ModelChoice,
  SamplingOptions,
  ScoreOptions,
  SummarizeMode,
} from '../protocol';
import { z } from 'zod';
import {
  BleuSmoothMethod,
  BleuTokenize,
  ChrfVariant,
  MAX_ROUNDTRIP_SENTENCES,
  ReplyMapper,
  RoundTripVariant,
} from '../protocol';
import { DEFAULT_THREADS } from '../engine/runtime/threads';
import { DEFAULT_HUB_ENDPOINT, parseHubEndpoint, parseModelChoice } from '../modelChoice';
import { resolveModelsDir, trustedSetting, type SettingLevel } from './modelsPath';

export const SECTION = 'draftsmith';

const DEVICES: readonly DeviceSetting[] = ['auto', 'cpu', 'cuda'];

/** Settings named in messages to the user (full ids, as the Settings UI searches for them). */
export const MAX_LENGTH_SETTING = {
  summarize: 'draftsmith.summarize.maxLength',
  essay: 'draftsmith.essay.maxLength',
  story: 'draftsmith.story.words',
} as const;

export function affectsEngine(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SECTION);
}

/**
 * modelsPath when set (only the user's own in a restricted workspace), else the models shipped inside
 * the extension; the Hub settings, with the download cache in `storageDir` (the extension's global
 * storage) under hub/.
 */
export function readEngineConfig(extensionPath: string, storageDir: string): EngineConfig {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  // A plain check, not the protocol's zod enum: this runs at activation (schemas.ts says why).
  const setting = cfg.get('device');
  const device = DEVICES.find((d) => d === setting) ?? 'auto';
  return {
    modelsDir: resolveModelsDir(
      cfg.inspect('modelsPath'),
      vscode.workspace.isTrusted,
      path.join(extensionPath, 'models'),
    ),
    ...readModelsUrl(),
    hub: readHubConfig(storageDir).hub,
    device,
    threads: intIn(cfg.get('threads'), 0, 64, DEFAULT_THREADS),
  };
}

// ---- which model a command runs ---------------------------------------------------------

/**
 * draftsmith.modelsUrl, where set (user or machine settings only in a restricted workspace, like
 * modelsPath): an http(s) address; anything else is ignored with the shipped models kept (the
 * setting's own validation in the Settings UI says why).
 */
function readModelsUrl(): { modelsUrl?: string } {
  const set = trustedSetting(
    vscode.workspace.getConfiguration(SECTION).inspect('modelsUrl'),
    vscode.workspace.isTrusted,
  );
  const value = typeof set?.value === 'string' ? set.value.trim() : '';
  if (!value) return {};
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { modelsUrl: url.href } : {};
  } catch {
    return {};
  }
}

export const HUB_ENDPOINT_SETTING = 'draftsmith.hub.endpoint';
export const HUB_OFFLINE_SETTING = 'draftsmith.hub.offline';
/** A download that receives nothing for this long fails (HubConfig.stallSeconds; no setting for it). */
const HUB_STALL_SECONDS = 30;

/**
 * The Hub settings as the engine takes them. A draftsmith.hub.endpoint that is not an http(s) address
 * gives `problem` (what a command that would download shows), and the engine is then configured
 * offline with the default address: it never downloads from a server the user did not name.
 */
export function readHubConfig(storageDir: string): { hub: HubConfig; problem?: string } {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const offline = cfg.get('hub.offline') === true;
  const cacheDir = path.join(storageDir, 'hub');
  const set = trustedSetting(cfg.inspect('hub.endpoint'), vscode.workspace.isTrusted);
  const endpoint = parseHubEndpoint(set?.value, HUB_ENDPOINT_SETTING);
  if (typeof endpoint === 'object')
    return {
      hub: { endpoint: DEFAULT_HUB_ENDPOINT, cacheDir, offline: true, stallSeconds: HUB_STALL_SECONDS },
      problem: endpoint.error,
    };
  return { hub: { endpoint, cacheDir, offline, stallSeconds: HUB_STALL_SECONDS } };
}

/** The draftsmith.<command>.model settings: the commands whose model the user may choose. */
export type ModelSettingKey = 'story.model' | 'summarize.model' | 'essay.model';

/** The commands each model setting is for, as messages name them. */
export const MODEL_SETTING_COMMANDS: Record<ModelSettingKey, string> = {
  'story.model': 'Continue Story and Write a Premise',
  'summarize.model': 'Summarize Document',
  'essay.model': 'Expand Topic Words into Essay',
};

/** The model a command is to run, with where that was set (so that "Use Built-in Model" changes it there). */
export interface ChosenModel {
  /** The setting's full id ("draftsmith.story.model"). */
  setting: string;
  key: ModelSettingKey;
  choice: ModelChoice;
  /** Where the value that counts was set; Global when it is the default. */
  target: vscode.ConfigurationTarget;
}

/** A function, not a table: vscode's enums are read when a command runs, never at activation. */
function targetOf(level: SettingLevel | undefined): vscode.ConfigurationTarget {
  switch (level) {
    case 'workspace':
      return vscode.ConfigurationTarget.Workspace;
    case 'workspaceFolder':
      return vscode.ConfigurationTarget.WorkspaceFolder;
    default:
      return vscode.ConfigurationTarget.Global;
  }
}

const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * draftsmith.<key> (only the user's own in a restricted workspace, as modelsPath), read with
 * parseModelChoice; a value it does not take gives `error`, which names the setting and what is
 * accepted. A Hub model also needs a usable draftsmith.hub.endpoint, checked here too.
 */
export function readModelChoice(key: ModelSettingKey): { model: ChosenModel } | { error: string; setting: string } {
  const setting = `${SECTION}.${key}`;
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const set = trustedSetting(cfg.inspect(key), vscode.workspace.isTrusted);
  const target = targetOf(set?.level);
  if (set !== undefined && typeof set.value !== 'string') {
    return {
      error: `Draftsmith: ${setting} is ${JSON.stringify(set.value)}; it must be text: "built-in", a Hugging Face Hub model id (owner/name) or a folder's path.`,
      setting,
    };
  }
  const parsed = parseModelChoice(typeof set?.value === 'string' ? set.value : '', isDirectory);
  if ('error' in parsed) return { error: `Draftsmith: ${setting}: ${parsed.error}`, setting };
  if (parsed.choice.kind === 'hub') {
    const endpoint = parseHubEndpoint(
      trustedSetting(cfg.inspect('hub.endpoint'), vscode.workspace.isTrusted)?.value,
      HUB_ENDPOINT_SETTING,
    );
    if (typeof endpoint === 'object') return { error: `Draftsmith: ${endpoint.error}`, setting: HUB_ENDPOINT_SETTING };
  }
  return { model: { setting, key, choice: parsed.choice, target } };
}

export interface SummarizeOptions {
  maxInputTokens: number;
  decoding: BeamOptions;
  /** draftsmith.summarize.mode: 'extractive' (default) or 'abstractive'. */
  mode: SummarizeMode;
}

/** Hand-edited settings.json can hold anything; out-of-range values fall back to the defaults. */
export function readSummarizeOptions(): SummarizeOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return {
    maxInputTokens: intIn(cfg.get('maxInputTokens'), 16, 4096, 512),
    decoding: {
      beamSize: intIn(cfg.get('summarize.beamSize'), 1, 16, 4),
      maxLength: intIn(cfg.get('summarize.maxLength'), 1, 512, 80),
      lengthPenalty: numberIn(cfg.get('summarize.lengthPenalty'), 0, 5, 1.0),
      noRepeatNgramSize: intIn(cfg.get('summarize.noRepeatNgramSize'), 0, 10, 3),
    },
    // A plain check, as for the device: anything but "abstractive" is the trustworthy default.
    mode: cfg.get('summarize.mode') === 'abstractive' ? 'abstractive' : 'extractive',
  };
}

export interface EssayOptions {
  /** How many essays to offer in a quick pick; 1 inserts the best one directly. */
  candidates: number;
  decoding: BeamOptions;
  /** Every essay contains each topic word (constrained beam search). */
  includeAllTopics: boolean;
}

/** As readSummarizeOptions: anything out of range falls back to the default. */
export function readEssayOptions(): EssayOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return {
    candidates: intIn(cfg.get('essay.candidates'), 1, 5, 3),
    decoding: {
      beamSize: intIn(cfg.get('essay.beamSize'), 1, 16, 5),
      maxLength: intIn(cfg.get('essay.maxLength'), 16, 512, 180),
    },
    includeAllTopics: cfg.get('essay.includeAllTopics') !== false,
  };
}

export interface RoundTripOptions {
  /** undefined: the default folder, <models>/roundtrip. */
  variant: RoundTripVariant | undefined;
  maxSentences: number;
}

export const ROUNDTRIP_MAX_SENTENCES_SETTING = 'draftsmith.roundtrip.maxSentences';

/** As readSummarizeOptions: anything out of range falls back to the default. */
export function readRoundTripOptions(): RoundTripOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const variant = RoundTripVariant.safeParse(cfg.get('roundtrip.variant'));
  return {
    variant: variant.success ? variant.data : undefined,
    maxSentences: intIn(cfg.get('roundtrip.maxSentences'), 1, MAX_ROUNDTRIP_SENTENCES, 8),
  };
}

export interface ReplyOptions {
  mappers: ReplyMapper[];
  candidates: number;
}

/** As readSummarizeOptions: anything out of range falls back to the default (all four mappers, 8 candidates). */
export function readReplyOptions(): ReplyOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const mappers = z.array(ReplyMapper).min(1).safeParse(cfg.get('reply.mappers'));
  return {
    mappers: mappers.success ? [...new Set(mappers.data)] : [...ReplyMapper.options],
    candidates: intIn(cfg.get('reply.candidates'), 1, 20, 8),
  };
}

export interface StoryOptions {
  /** The continuation's length in words. */
  words: number;
  sampling: SamplingOptions;
}

/** As readSummarizeOptions: anything out of range falls back to the default (k = 10, as in the story paper). */
export function readStoryOptions(): StoryOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return {
    words: intIn(cfg.get('story.words'), 1, 2000, 150),
    sampling: {
      topK: intIn(cfg.get('story.topK'), 1, 100, 10),
      temperature: numberIn(cfg.get('story.temperature'), 0.05, 5, 0.8),
    },
  };
}

/**
 * Score Draft's draftsmith.score.* settings as the 'score' request's options. Only what differs
 * from sacreBLEU's defaults is set, so with every setting at its default the request is the one
 * Score Draft has always sent but for the non-word rate (on by default). As elsewhere, a
 * hand-edited value out of range is the default.
 */
export function readScoreOptions(): ScoreOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const options: ScoreOptions = {};
  const tokenize = BleuTokenize.safeParse(cfg.get('score.bleu.tokenize'));
  if (tokenize.success && tokenize.data !== '13a') options.tokenize = tokenize.data;
  const smooth = BleuSmoothMethod.safeParse(cfg.get('score.bleu.smoothMethod'));
  if (smooth.success && smooth.data !== 'exp') options.smoothMethod = smooth.data;
  // The value is floor's ε or add-k's k; sacreBLEU ignores it for exp and none.
  const value = cfg.get('score.bleu.smoothValue');
  if (
    (options.smoothMethod === 'floor' || options.smoothMethod === 'add-k') &&
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= 0
  ) {
    options.smoothValue = value;
  }
  if (cfg.get('score.bleu.lowercase') === true) options.lowercase = true;
  const order = intIn(cfg.get('score.bleu.maxNgramOrder'), 1, 10, 4);
  if (order !== 4) options.maxNgramOrder = order;
  const chrf = ChrfVariant.safeParse(cfg.get('score.chrf'));
  if (chrf.success) options.chrf = chrf.data;
  // The non-word rate (cheap, on unless false) and the story LM's perplexity (a model run, off unless true).
  if (cfg.get('score.nonwords') !== false) options.nonwords = true;
  if (cfg.get('score.perplexity') === true) options.perplexity = true;
  return options;
}

/**
 * draftsmith.decoding.guards: every generating command decodes with the guards (known words only,
 * no tokenizer artefacts, no repeated words) unless the setting is false, which gives each paper's
 * plain decoding. Anything but false (a hand-edited "no") keeps them on.
 */
export function readDecodingGuards(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get('decoding.guards') !== false;
}

/** draftsmith.maxSecondsPerRequest in ms: how long one command may wait for the engine before it is stopped. */
export function readTimeLimitMs(): number {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return intIn(cfg.get('maxSecondsPerRequest'), 5, 3600, 300) * 1000;
}

function numberIn(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback;
}

function intIn(value: unknown, min: number, max: number, fallback: number): number {
  return Number.isInteger(value) ? numberIn(value, min, max, fallback) : fallback;
}
