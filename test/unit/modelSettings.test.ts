// draftsmith.story.model, draftsmith.hub.endpoint and draftsmith.hub.offline as the host
// reads them (extension/host/settings.ts), with a stub 'vscode' holding the settings: what each
// value gives the engine, the message a bad value gets, and workspace trust.
import { settings, resetSettings } from './vscodeStub';
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';

import * as os from 'node:os';
import * as path from 'node:path';
import { readEngineConfig, readHubConfig, readModelChoice } from '../../extension/host/settings';
import { EngineConfig } from '../../extension/protocol';
import { tempDir } from './helpers';

const STORAGE = path.join(os.tmpdir(), 'draftsmith-global-storage');
const GLOBAL = 1;
const WORKSPACE = 2;

beforeEach(resetSettings);

function model() {
  const read = readModelChoice('story.model');
  assert.ok('model' in read, `refused: ${'error' in read ? read.error : ''}`);
  return read.model;
}

function error() {
  const read = readModelChoice('story.model');
  assert.ok('error' in read, `taken: ${JSON.stringify('model' in read ? read.model : undefined)}`);
  return read;
}

test('unset, the story commands run the built-in model, and "Use Built-in Model" would write the user settings', () => {
  assert.deepEqual(model(), {
    setting: 'draftsmith.story.model',
    key: 'story.model',
    choice: { kind: 'built-in' },
    target: GLOBAL,
  });
  settings.global['story.model'] = 'built-in';
  assert.deepEqual(model().choice, { kind: 'built-in' });
});

test('a Hub id or an existing folder is the model the requests carry', () => {
  settings.global['story.model'] = 'Xenova/distilgpt2';
  assert.deepEqual(model().choice, { kind: 'hub', id: 'Xenova/distilgpt2' });
  const dir = tempDir('model-folder');
  settings.global['story.model'] = dir;
  assert.deepEqual(model().choice, { kind: 'folder', dir });
});

test("a workspace's model counts only once the workspace is trusted; it is then changed where it was set", () => {
  settings.global['story.model'] = 'Xenova/distilgpt2';
  settings.workspace['story.model'] = 'someone/else';
  settings.trusted = false;
  assert.deepEqual(model(), {
    setting: 'draftsmith.story.model',
    key: 'story.model',
    choice: { kind: 'hub', id: 'Xenova/distilgpt2' },
    target: GLOBAL,
  });
  settings.trusted = true;
  assert.deepEqual(model(), {
    setting: 'draftsmith.story.model',
    key: 'story.model',
    choice: { kind: 'hub', id: 'someone/else' },
    target: WORKSPACE,
  });
});

test('a value the host cannot use is an error naming the setting, not a crash', () => {
  settings.global['story.model'] = 'gpt2';
  const bad = error();
  assert.equal(bad.setting, 'draftsmith.story.model');
  assert.match(bad.error, /^Draftsmith: draftsmith\.story\.model: "gpt2" is not a model/);
  settings.global['story.model'] = './my-model';
  assert.match(error().error, /relative path; give the folder's full path/);
  settings.global['story.model'] = path.join(os.tmpdir(), 'draftsmith-no-such-folder');
  assert.match(error().error, /no folder at/);
  settings.global['story.model'] = 42;
  assert.match(error().error, /draftsmith\.story\.model is 42; it must be text/);
});

test('a Hub model with a draftsmith.hub.endpoint that is not a web address is refused, naming that setting', () => {
  settings.global['story.model'] = 'Xenova/gpt2';
  settings.global['hub.endpoint'] = 'hf-mirror.com';
  const bad = error();
  assert.equal(bad.setting, 'draftsmith.hub.endpoint');
  assert.match(bad.error, /draftsmith\.hub\.endpoint is "hf-mirror\.com", not a web address/);
  // The built-in model does not need the Hub.
  settings.global['story.model'] = 'built-in';
  assert.deepEqual(model().choice, { kind: 'built-in' });
});

test("the engine's Hub settings: the cache in the global storage, the endpoint, offline, the context cap and the download limit; a bad endpoint never downloads", () => {
  assert.deepEqual(readHubConfig(STORAGE), {
    hub: {
      endpoint: 'https://huggingface.co/',
      cacheDir: path.join(STORAGE, 'hub'),
      offline: false,
      stallSeconds: 30,
      contextTokens: 4096,
      maxDownloadGB: 4,
    },
  });
  settings.global['hub.endpoint'] = 'https://hf-mirror.example/base';
  settings.global['hub.offline'] = true;
  settings.global['hub.contextTokens'] = 1024;
  settings.global['hub.maxDownloadGB'] = 20;
  assert.deepEqual(readHubConfig(STORAGE).hub, {
    endpoint: 'https://hf-mirror.example/base/',
    cacheDir: path.join(STORAGE, 'hub'),
    offline: true,
    stallSeconds: 30,
    contextTokens: 1024,
    maxDownloadGB: 20,
  });
  settings.global['hub.contextTokens'] = 12; // out of range: the default
  assert.equal(readHubConfig(STORAGE).hub.contextTokens, 4096);
  settings.global['hub.endpoint'] = 'ftp://mirror';
  settings.global['hub.offline'] = false;
  const bad = readHubConfig(STORAGE);
  assert.equal(bad.hub.offline, true);
  assert.equal(bad.hub.endpoint, 'https://huggingface.co/');
  assert.match(bad.problem ?? '', /not a web address/);
  // A restricted workspace cannot point the downloads at its own server.
  resetSettings();
  settings.workspace['hub.endpoint'] = 'http://attacker.example/';
  settings.trusted = false;
  assert.equal(readHubConfig(STORAGE).hub.endpoint, 'https://huggingface.co/');
});

test('readEngineConfig carries the Hub settings in a shape the worker accepts', () => {
  settings.global['hub.endpoint'] = 'http://127.0.0.1:8080';
  const config = readEngineConfig('/ext', STORAGE);
  assert.deepEqual(EngineConfig.parse(config), config);
  assert.equal(config.hub?.endpoint, 'http://127.0.0.1:8080/');
  assert.equal(config.hub?.cacheDir, path.join(STORAGE, 'hub'));
});
