// The draftsmith.* settings have one source for their defaults, ranges and choices: package.json
// (extension/host/declaredSettings.ts). These tests name the setting that breaks it: one the host
// reads but package.json does not declare (or the reverse), a default outside its own range, a
// range or choice the protocol refuses, an engine default that differs; and the model settings
// (modelChoice.ts MODEL_SETTINGS) against package.json, its restricted settings, the registry of
// systems and the protocol's requests.
import { resetSettings, settings } from './vscodeStub';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ZodType } from 'zod';
import {
  BeamOptions,
  BleuSmoothMethod,
  BleuTokenize,
  ChrfVariant,
  DeviceSetting,
  EngineConfig,
  EngineRequest,
  EssayRequest,
  HubConfig,
  ReplyMapper,
  ReplyRequest,
  RoundTripRequest,
  RoundTripVariant,
  SamplingOptions,
  ScoreOptions,
  StoryRequest,
  SummarizeMode,
  SummarizeRequest,
} from '../../extension/protocol';
import { DECLARED, declaredSettings, type Declared } from '../../extension/host/declaredSettings';
import * as hostSettings from '../../extension/host/settings';
import { readInlineOptions } from '../../extension/host/inlineProvider';
import { MODEL_COMMANDS } from '../../extension/host/recommendedModels';
import { DEFAULT_HUB_ENDPOINT, MODEL_SETTINGS } from '../../extension/modelChoice';
import { DEFAULT_MAX_DOWNLOAD_GB } from '../../extension/engine/hub/downloadLimit';
import { DEFAULT_THREADS } from '../../extension/engine/runtime/threads';
import { ENTRIES } from '../../extension/engine/systems/registry';
import { repoRoot } from './helpers';

const PREFIX = 'draftsmith.';
const keys = Object.keys(DECLARED).map((k) => k.slice(PREFIX.length));
/**
 * The settings the readers below cover: the prose checks' own (draftsmith.checks.*) are read in their
 * own section by host/checks.ts and engine/checks/options.ts, and checksSettings.test.ts holds them
 * to package.json.
 */
const hostKeys = keys.filter((k) => !k.startsWith('checks.'));

/** Runs every reader of settings the host has, recording each key it asks for. */
function keysTheHostReads(): Set<string> {
  const asked = new Set<string>();
  const recorder = new Proxy({} as Record<string, unknown>, {
    get: (_, k) => {
      if (typeof k === 'string') asked.add(k);
      return undefined;
    },
  });
  resetSettings();
  settings.global = recorder;
  settings.workspace = recorder;
  try {
    hostSettings.readEngineConfig('/ext', '/storage');
    for (const key of Object.keys(hostSettings.MODEL_SETTING_COMMANDS))
      hostSettings.readModelChoice(key as hostSettings.ModelSettingKey);
    hostSettings.readSummarizeOptions();
    hostSettings.readEssayOptions();
    hostSettings.readRoundTripOptions();
    hostSettings.readReplyOptions();
    hostSettings.readStoryOptions();
    hostSettings.readScoreOptions();
    hostSettings.readDecodingGuards();
    hostSettings.readTimeLimitMs();
    hostSettings.readTargetSeconds();
    hostSettings.readGgufFolders();
    readInlineOptions();
  } finally {
    resetSettings();
  }
  return asked;
}

test('every setting the host reads is declared in package.json, and every declared one is read', () => {
  const read = keysTheHostReads();
  for (const k of read)
    assert.ok(keys.includes(k), `the host reads draftsmith.${k}, which package.json does not declare`);
  for (const k of hostKeys) assert.ok(read.has(k), `package.json declares draftsmith.${k}, which the host never reads`);
});

/** A value of the setting's type that its declaration refuses (out of range, not a choice), if any. */
function refused(d: Declared): unknown[] {
  const out: unknown[] = ['not a value of this setting', { an: 'object' }];
  if (d.minimum !== undefined) out.push(d.minimum - 1);
  if (d.maximum !== undefined) out.push(d.maximum + 1);
  if (d.type === 'integer') out.push(1.5);
  if (d.type === 'array') out.push([], ['not a choice']);
  return out;
}

/** How declaredSettings reads a setting of this declaration. */
function reader(d: Declared, key: string): ((s: ReturnType<typeof declaredSettings>) => unknown) | undefined {
  if (d.type === 'integer') return (s) => s.int(key);
  if (d.type === 'number') return (s) => s.number(key);
  if (Array.isArray(d.type) && d.type.includes('number')) return (s) => s.optionalNumber(key);
  if (d.type === 'boolean') return (s) => s.flag(key);
  if (d.type === 'string' && d.enum) return (s) => s.oneOf(key);
  if (d.type === 'array' && d.items?.enum) return (s) => s.list(key);
  return undefined; // free text (a path, an address, a model id): read by its own parser
}

/** What is wrong with a declaration's default, checked apart from declaredSettings (which falls back to it). */
function defaultProblem(d: Declared): string | undefined {
  const v = d.default;
  if (typeof v === 'number') {
    if (d.minimum !== undefined && v < d.minimum) return `below its minimum ${d.minimum}`;
    if (d.maximum !== undefined && v > d.maximum) return `above its maximum ${d.maximum}`;
    if (d.type === 'integer' && !Number.isInteger(v)) return 'not a whole number';
  }
  if (d.enum && !d.enum.includes(v)) return 'not one of its choices';
  if (Array.isArray(v) && d.items?.enum && !v.every((x) => d.items?.enum?.includes(x))) return 'holds a non-choice';
  if (Array.isArray(v) && v.length < (d.minItems ?? 0)) return `shorter than its minItems ${d.minItems}`;
  return undefined;
}

test("each setting's default fits its own declaration, and unset or refused values read as that default", () => {
  for (const [full, d] of Object.entries(DECLARED)) {
    const key = full.slice(PREFIX.length);
    assert.ok('default' in d, `${full}: no default in package.json`);
    const problem = defaultProblem(d);
    assert.equal(problem, undefined, `${full}: its default ${JSON.stringify(d.default)} is ${problem}`);
    const read = reader(d, key);
    if (!read) continue;
    const of = (value: unknown) => read(declaredSettings({ get: (k) => (k === key ? value : undefined) }));
    assert.deepEqual(
      of(d.default),
      d.default,
      `${full}: its default ${JSON.stringify(d.default)} does not fit its own range or choices`,
    );
    assert.deepEqual(of(undefined), d.default, `${full}: unset, it is not its default`);
    for (const bad of refused(d))
      assert.deepEqual(of(bad), d.default, `${full}: ${JSON.stringify(bad)} is taken instead of the default`);
  }
  assert.throws(
    () => declaredSettings({ get: () => undefined }).int('no.such.setting'),
    /draftsmith\.no\.such\.setting/,
  );
});

/** Where a setting's value goes in a request or the engine's configuration, and what the protocol accepts there. */
const PROTOCOL: Record<string, ZodType> = {
  device: DeviceSetting,
  threads: EngineConfig.shape.threads,
  maxInputTokens: SummarizeRequest.shape.maxInputTokens,
  'summarize.mode': SummarizeMode,
  'summarize.beamSize': BeamOptions.shape.beamSize,
  'summarize.maxLength': BeamOptions.shape.maxLength,
  'summarize.lengthPenalty': BeamOptions.shape.lengthPenalty,
  'summarize.noRepeatNgramSize': BeamOptions.shape.noRepeatNgramSize,
  'essay.candidates': EssayRequest.shape.candidates,
  'essay.beamSize': BeamOptions.shape.beamSize,
  'essay.maxLength': BeamOptions.shape.maxLength,
  'story.words': StoryRequest.shape.words,
  'story.topK': SamplingOptions.shape.topK,
  'story.temperature': SamplingOptions.shape.temperature,
  'roundtrip.variant': RoundTripVariant,
  'roundtrip.maxSentences': RoundTripRequest.shape.maxSentences,
  'reply.mappers': ReplyRequest.shape.mappers,
  'reply.candidates': ReplyRequest.shape.maxCandidates,
  'score.bleu.tokenize': BleuTokenize,
  'score.bleu.smoothMethod': BleuSmoothMethod,
  'score.bleu.smoothValue': ScoreOptions.shape.smoothValue.nullable(),
  'score.bleu.maxNgramOrder': ScoreOptions.shape.maxNgramOrder,
  'score.chrf': ChrfVariant,
  'hub.endpoint': HubConfig.shape.endpoint,
  'hub.maxDownloadGB': HubConfig.shape.maxDownloadGB,
};
/** Choices the host turns into "absent" before a request: not the protocol's. */
const HOST_ONLY: Record<string, unknown> = { 'roundtrip.variant': 'default', 'score.chrf': 'off' };

test("package.json's defaults, ranges and choices are ones the protocol accepts, and its choices are all of the protocol's", () => {
  for (const [key, schema] of Object.entries(PROTOCOL)) {
    const d = DECLARED[PREFIX + key];
    assert.ok(d, `draftsmith.${key}: not declared in package.json`);
    const accepts = (v: unknown) => schema.safeParse(v).success;
    const at = `draftsmith.${key}`;
    if (HOST_ONLY[key] !== d.default)
      assert.ok(accepts(d.default), `${at}: its default ${JSON.stringify(d.default)} is refused by the protocol`);
    if (d.minimum !== undefined)
      assert.ok(accepts(d.minimum), `${at}: its minimum ${d.minimum} is refused by the protocol`);
    if (d.maximum !== undefined)
      assert.ok(accepts(d.maximum), `${at}: its maximum ${d.maximum} is refused by the protocol`);
    const choices = d.enum ?? d.items?.enum;
    if (choices) {
      for (const c of choices)
        if (c !== HOST_ONLY[key])
          assert.ok(accepts(d.items ? [c] : c), `${at}: its choice ${JSON.stringify(c)} is refused by the protocol`);
      const options = (schema as { options?: readonly unknown[] }).options ?? [];
      for (const o of options)
        assert.ok(choices.includes(o), `${at}: the protocol's ${JSON.stringify(o)} is no choice of the setting`);
    }
  }
  assert.deepEqual(
    [...ReplyMapper.options].sort(),
    [...(DECLARED['draftsmith.reply.mappers'].items?.enum ?? [])].sort(),
  );
});

test("the engine's own defaults (what the CLI uses) are package.json's", () => {
  assert.equal(
    DECLARED['draftsmith.threads'].default,
    DEFAULT_THREADS,
    'draftsmith.threads: the engine runs DEFAULT_THREADS',
  );
  assert.equal(DECLARED['draftsmith.hub.endpoint'].default, DEFAULT_HUB_ENDPOINT, 'draftsmith.hub.endpoint');
  assert.equal(
    DECLARED['draftsmith.hub.maxDownloadGB'].default,
    DEFAULT_MAX_DOWNLOAD_GB,
    'draftsmith.hub.maxDownloadGB: the CLI refuses past DEFAULT_MAX_DOWNLOAD_GB',
  );
  assert.equal(
    DECLARED['draftsmith.hub.endpoint'].default,
    HubConfig.parse({ cacheDir: '/c' }).endpoint,
    "draftsmith.hub.endpoint: the protocol's HubConfig default",
  );
});

test('the model settings are one list: package.json, its restricted settings, the registry and the requests follow it', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { description: string; restrictedConfigurations: string[] } };
  };
  const untrusted = pkg.capabilities.untrustedWorkspaces;
  const systems = Object.keys(MODEL_SETTINGS);
  for (const system of systems) {
    const setting = `${PREFIX}${system}.model`;
    const d = DECLARED[setting];
    assert.ok(d, `${setting}: not declared in package.json`);
    assert.equal(d.default, 'built-in', `${setting}: its default is not "built-in"`);
    assert.equal(d.scope, 'machine-overridable', `${setting}: a workspace must not choose the files it runs`);
    assert.ok(untrusted.restrictedConfigurations.includes(setting), `${setting}: not in restrictedConfigurations`);
    assert.ok(
      untrusted.description.includes(setting),
      `${setting}: the restricted-workspace description does not name it`,
    );
  }
  // A command's model is <command>.model; score.bertscore.model is a metric's encoder, not a command's.
  const declaredModels = keys.filter((k) => /^\w+\.model$/.test(k)).map((k) => k.slice(0, -'.model'.length));
  assert.deepEqual(
    declaredModels.sort(),
    [...systems].sort(),
    'package.json declares a model setting MODEL_SETTINGS lacks',
  );
  // Measure Speed runs whichever downloaded model Manage Models names, not a command's setting.
  const bySetting = (id: string) => id !== 'speed';
  const external = ENTRIES.filter(([id, e]) => e.external && bySetting(id)).map(([id]) => id);
  assert.deepEqual(external.sort(), [...systems].sort(), 'the systems that run a chosen model (registry `external`)');
  const withModel = EngineRequest.options
    .filter((o) => 'model' in o.shape)
    .map((o) => o.shape.op.value)
    .filter(bySetting);
  const ops = Object.values(MODEL_SETTINGS).flatMap((s) => [...s.ops]);
  assert.deepEqual(withModel.sort(), ops.sort(), 'the requests that carry a chosen model');
  assert.deepEqual(MODEL_COMMANDS.map((c) => c.key).sort(), systems.map((s) => `${s}.model`).sort(), 'Choose Model');
});
