/**
 * Reads the draftsmith.* settings into the protocol's shapes (EngineConfig, request options). Each
 * default, range and list of values is package.json's (declaredSettings.ts): none is written here.
 */
import { statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  BeamOptions,
  BertScoreSettings,
  BleuSmoothMethod,
  BleuTokenize,
  DeviceSetting,
  EngineConfig,
  HubConfig,
  ModelChoice,
  ReplyMapper,
  RoundTripVariant,
  SamplingOptions,
  ScoreOptions,
  SummarizeMode,
} from '../protocol';
import { smoothValueApplies } from '../engine/public';
import { DEFAULT_HUB_ENDPOINT, MODEL_SETTINGS, parseHubEndpoint, parseModelChoice } from '../modelChoice';
import { declaredSettings } from './declaredSettings';
import { resolveModelsDir, trustedSetting, type SettingLevel } from './modelsPath';

export const SECTION = 'draftsmith';

/** The draftsmith.* settings, each checked against package.json's declaration. */
const draftsmith = () => declaredSettings(vscode.workspace.getConfiguration(SECTION));

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
  // Checked against package.json, not the protocol's zod enum: this runs at activation (schemas.ts says why).
  const s = draftsmith();
  return {
    modelsDir: resolveModelsDir(
      cfg.inspect('modelsPath'),
      vscode.workspace.isTrusted,
      path.join(extensionPath, 'models'),
    ),
    ...readModelsUrl(),
    hub: readHubConfig(storageDir).hub,
    device: s.oneOf<DeviceSetting>('device'),
    threads: s.int('threads'),
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
  const s = draftsmith();
  const offline = s.flag('hub.offline');
  const contextTokens = s.int('hub.contextTokens');
  const maxDownloadGB = s.number('hub.maxDownloadGB');
  const cacheDir = path.join(storageDir, 'hub');
  const set = trustedSetting(cfg.inspect('hub.endpoint'), vscode.workspace.isTrusted);
  const endpoint = parseHubEndpoint(set?.value, HUB_ENDPOINT_SETTING);
  if (typeof endpoint === 'object')
    return {
      hub: {
        endpoint: DEFAULT_HUB_ENDPOINT,
        cacheDir,
        offline: true,
        stallSeconds: HUB_STALL_SECONDS,
        contextTokens,
        maxDownloadGB,
      },
      problem: endpoint.error,
    };
  return { hub: { endpoint, cacheDir, offline, stallSeconds: HUB_STALL_SECONDS, contextTokens, maxDownloadGB } };
}

/** draftsmith.gguf.folders: more folders Choose Model searches for GGUF files (~ is the home folder). */
export function readGgufFolders(): string[] {
  return draftsmith()
    .list<string>('gguf.folders')
    .filter((d): d is string => typeof d === 'string' && d.trim() !== '')
    .map((d) => (d === '~' || d.startsWith('~/') || d.startsWith('~\\') ? path.join(os.homedir(), d.slice(1)) : d));
}

/**
 * The draftsmith.<system>.model settings (modelChoice.ts MODEL_SETTINGS): the commands whose model the user may choose.
 */
export type ModelSettingKey = `${keyof typeof MODEL_SETTINGS}.model`;

/** The commands each model setting is for, as messages name them. */
export const MODEL_SETTING_COMMANDS = Object.fromEntries(
  Object.entries(MODEL_SETTINGS).map(([system, s]) => [`${system}.model`, s.commands]),
) as Record<ModelSettingKey, string>;

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

/**
 * Sets a switch where its value that counts was set (the workspace folder's, the workspace's, else
 * the user's), so that a toggle command flips what is in effect rather than a value it hides behind.
 */
export async function updateWhereSet(cfg: vscode.WorkspaceConfiguration, key: string, value: boolean): Promise<void> {
  const seen = cfg.inspect<boolean>(key);
  const target =
    seen?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : seen?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await cfg.update(key, value, target);
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
      error:
        `Draftsmith: ${setting} is ${JSON.stringify(set.value)}; it must be text: "built-in", a Hugging Face Hub ` +
        `model id (owner/name) or a folder's path.`,
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

/**
 * Summarize Document's settings: the input limit, the beam search's, and the mode (extractive or
 * abstractive). Hand-edited settings.json can hold anything; what does not fit package.json's
 * declaration is its default.
 */
export function readSummarizeOptions(): { maxInputTokens: number; decoding: BeamOptions; mode: SummarizeMode } {
  const s = draftsmith();
  return {
    maxInputTokens: s.int('maxInputTokens'),
    // Only what the user set: the model's own defaults (the built-in manifest's, which equal these
    // settings' defaults, or a Hub model's generation_config.json) fill the rest.
    decoding: definedOnly({
      beamSize: s.setInt('summarize.beamSize'),
      maxLength: s.setInt('summarize.maxLength'),
      lengthPenalty: s.setNumber('summarize.lengthPenalty'),
      noRepeatNgramSize: s.setInt('summarize.noRepeatNgramSize'),
    }),
    mode: s.oneOf<SummarizeMode>('summarize.mode'),
  };
}

/**
 * Expand Topic Words into Essay's: how many essays a quick pick offers (1 inserts the best one
 * directly), the beam search's, and whether every essay contains each topic word (constrained beam
 * search). As readSummarizeOptions: anything out of range is the default.
 */
export function readEssayOptions() {
  const s = draftsmith();
  return {
    candidates: s.int('essay.candidates'),
    decoding: { beamSize: s.int('essay.beamSize'), maxLength: s.int('essay.maxLength') },
    includeAllTopics: s.flag('essay.includeAllTopics'),
  };
}

export const ROUNDTRIP_MAX_SENTENCES_SETTING = 'draftsmith.roundtrip.maxSentences';

/**
 * Round-Trip Paragraph's: the model variant (undefined: the default folder, <models>/roundtrip) and the sentences read.
 */
export function readRoundTripOptions(): { variant: RoundTripVariant | undefined; maxSentences: number } {
  const s = draftsmith();
  const variant = s.oneOf<RoundTripVariant | 'default'>('roundtrip.variant');
  return {
    variant: variant === 'default' ? undefined : variant,
    maxSentences: s.int('roundtrip.maxSentences'),
  };
}

/** Suggest Replies': the key mappers tried and how many candidates. */
export function readReplyOptions() {
  const s = draftsmith();
  return { mappers: s.list<ReplyMapper>('reply.mappers'), candidates: s.int('reply.candidates') };
}

/**
 * Continue Story's: the continuation's length in words and the top-k sampling's k and temperature,
 * the latter two only where the user set them: a Hub model's generation_config, or the built-in
 * model's manifest (equal to these settings' defaults), fills the rest.
 */
export function readStoryOptions(): { words: number; sampling: SamplingOptions } {
  const s = draftsmith();
  return {
    words: s.int('story.words'),
    sampling: definedOnly({ topK: s.setInt('story.topK'), temperature: s.setNumber('story.temperature') }),
  };
}

/**
 * draftsmith.score.bertscore.model: the encoder BERTScore reads (only the user's own in a restricted
 * workspace: it chooses files the engine downloads and runs). Empty, "built-in" or a value
 * parseModelChoice refuses: no BERTScore (as elsewhere, a hand-edited value that does not fit is the default).
 */
function readBertScoreModel(): BertScoreSettings['model'] | undefined {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const set = trustedSetting(cfg.inspect('score.bertscore.model'), vscode.workspace.isTrusted);
  if (typeof set?.value !== 'string') return undefined;
  const parsed = parseModelChoice(set.value, isDirectory);
  return 'choice' in parsed && parsed.choice.kind !== 'built-in' ? parsed.choice : undefined;
}

/**
 * Score Draft's draftsmith.score.* settings as the 'score' request's options. Only what differs
 * from sacreBLEU's defaults is set, so with every setting at its default the request is the one
 * Score Draft has always sent but for the non-word rate (on by default). As elsewhere, a
 * hand-edited value out of range is the default.
 */
export function readScoreOptions(): ScoreOptions {
  const s = draftsmith();
  const options: ScoreOptions = {};
  const tokenize = s.changed('score.bleu.tokenize', s.oneOf<BleuTokenize>('score.bleu.tokenize'));
  if (tokenize !== undefined) options.tokenize = tokenize;
  const smooth = s.changed('score.bleu.smoothMethod', s.oneOf<BleuSmoothMethod>('score.bleu.smoothMethod'));
  if (smooth !== undefined) options.smoothMethod = smooth;
  // The value is floor's ε or add-k's k; sacreBLEU ignores it for exp and none.
  const value = s.optionalNumber('score.bleu.smoothValue');
  if (value !== null && smoothValueApplies(options)) options.smoothValue = value;
  if (s.flag('score.bleu.lowercase')) options.lowercase = true;
  const order = s.changed('score.bleu.maxNgramOrder', s.int('score.bleu.maxNgramOrder'));
  if (order !== undefined) options.maxNgramOrder = order;
  const chrf = s.oneOf<'off' | 'chrF' | 'chrF++'>('score.chrf');
  if (chrf !== 'off') options.chrf = chrf;
  if (s.flag('score.nonwords')) options.nonwords = true;
  if (s.flag('score.perplexity')) options.perplexity = true;
  // idf is read whether or not BERTScore is on (one reading of every setting), as TER's options below.
  const idf = s.flag('score.bertscore.idf');
  const bertscore = readBertScoreModel();
  if (bertscore !== undefined) options.bertscore = { model: bertscore, ...(idf ? { idf: true } : {}) };
  // TER's options are read whether or not TER is on (one reading of every setting), and sent only
  // when set, so the signature and the request are sacreBLEU's defaults otherwise.
  const ter: NonNullable<ScoreOptions['ter']> = {};
  if (s.flag('score.ter.caseSensitive')) ter.caseSensitive = true;
  if (s.flag('score.ter.normalized')) ter.normalized = true;
  if (s.flag('score.ter.noPunct')) ter.noPunct = true;
  if (s.flag('score.ter.asianSupport')) ter.asianSupport = true;
  if (s.flag('score.ter')) options.ter = ter;
  return options;
}

/**
 * draftsmith.decoding.guards: every generating command decodes with the guards (known words only,
 * no tokenizer artefacts, no repeated words) unless the setting is false, which gives each paper's
 * plain decoding. Anything but false (a hand-edited "no") keeps them on.
 */
export function readDecodingGuards(): boolean {
  return draftsmith().flag('decoding.guards');
}

/** draftsmith.maxSecondsPerRequest in ms: how long one command may wait for the engine before it is stopped. */
export function readTimeLimitMs(): number {
  return draftsmith().int('maxSecondsPerRequest') * 1000;
}

/** draftsmith.models.targetSeconds: the wait a writer accepts for a 150-word rewrite (Manage Models). */
export const TARGET_SECONDS_SETTING = 'draftsmith.models.targetSeconds';
export function readTargetSeconds(): number {
  return draftsmith().number('models.targetSeconds');
}

/** The object without its undefined fields (so that a request says only what was set). */
function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
