// Workspace trust: draftsmith.modelsPath points at files the engine runs, so a restricted workspace
// cannot choose it; only the user's own settings can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveModelsDir, trustedSetting } from '../../extension/host/modelsPath';

const SHIPPED = '/ext/models';

test("in a restricted workspace, a workspace or folder modelsPath is ignored; the user's own is taken", () => {
  assert.equal(resolveModelsDir({ workspaceValue: '/repo/evil-models' }, false, SHIPPED), SHIPPED);
  assert.equal(resolveModelsDir({ workspaceFolderValue: '/repo/evil-models' }, false, SHIPPED), SHIPPED);
  assert.equal(
    resolveModelsDir(
      { globalValue: '/home/me/models', workspaceValue: '/repo/evil-models', workspaceFolderValue: '/repo/x' },
      false,
      SHIPPED,
    ),
    '/home/me/models',
  );
});

test('in a trusted workspace, the most specific modelsPath wins, as VS Code resolves settings', () => {
  assert.equal(
    resolveModelsDir({ globalValue: '/home/me/models', workspaceValue: '/repo/models' }, true, SHIPPED),
    '/repo/models',
  );
  assert.equal(
    resolveModelsDir(
      { globalValue: '/home/me/models', workspaceValue: '/repo/models', workspaceFolderValue: '/repo/a/models' },
      true,
      SHIPPED,
    ),
    '/repo/a/models',
  );
  assert.equal(resolveModelsDir({ globalValue: '/home/me/models' }, true, SHIPPED), '/home/me/models');
});

test('unset, blank or non-string values fall back to the shipped models, trusted or not', () => {
  for (const trusted of [true, false]) {
    assert.equal(resolveModelsDir(undefined, trusted, SHIPPED), SHIPPED);
    assert.equal(resolveModelsDir({}, trusted, SHIPPED), SHIPPED);
    assert.equal(resolveModelsDir({ globalValue: '   ' }, trusted, SHIPPED), SHIPPED);
    assert.equal(resolveModelsDir({ globalValue: 42, workspaceValue: ['x'] }, trusted, SHIPPED), SHIPPED);
  }
  assert.equal(resolveModelsDir({ globalValue: '  /home/me/models  ' }, false, SHIPPED), '/home/me/models');
});

// draftsmith.story.model and draftsmith.hub.endpoint follow the same rule: they choose what
// the engine downloads and runs. The level is where "Use Built-in Model" writes the setting back.
test("trustedSetting: a restricted workspace's own model choice does not count; a trusted one wins, with its level", () => {
  const set = { globalValue: 'Xenova/distilgpt2', workspaceValue: 'evil/model' };
  assert.deepEqual(trustedSetting(set, false), { value: 'Xenova/distilgpt2', level: 'global' });
  assert.deepEqual(trustedSetting(set, true), { value: 'evil/model', level: 'workspace' });
  assert.equal(trustedSetting({ workspaceValue: 'evil/model' }, false), undefined);
  assert.equal(trustedSetting(undefined, true), undefined);
  assert.deepEqual(trustedSetting({ workspaceFolderValue: '/m', workspaceValue: 'a/b', globalValue: 'c/d' }, true), {
    value: '/m',
    level: 'workspaceFolder',
  });
});

test('trustedSetting: a hand-edited value of the wrong type is returned (to be reported), not skipped', () => {
  assert.deepEqual(trustedSetting({ globalValue: 42 }, true), { value: 42, level: 'global' });
  assert.deepEqual(trustedSetting({ globalValue: 'a/b', workspaceValue: ['x'] }, true), {
    value: ['x'],
    level: 'workspace',
  });
});
