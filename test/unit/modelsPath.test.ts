// Workspace trust: draftsmith.modelsPath points at files the engine runs, so a restricted workspace
// cannot choose it; only the user's own settings can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveModelsDir } from '../../extension/host/modelsPath';

const SHIPPED = '/ext/models';

test('in a restricted workspace, a workspace or folder modelsPath is ignored; the user\'s own is taken', () => {
  assert.equal(resolveModelsDir({ workspaceValue: '/repo/evil-models' }, false, SHIPPED), SHIPPED);
  assert.equal(resolveModelsDir({ workspaceFolderValue: '/repo/evil-models' }, false, SHIPPED), SHIPPED);
  assert.equal(resolveModelsDir({ globalValue: '/home/me/models', workspaceValue: '/repo/evil-models', workspaceFolderValue: '/repo/x' }, false, SHIPPED), '/home/me/models');
});

test('in a trusted workspace, the most specific modelsPath wins, as VS Code resolves settings', () => {
  assert.equal(resolveModelsDir({ globalValue: '/home/me/models', workspaceValue: '/repo/models' }, true, SHIPPED), '/repo/models');
  assert.equal(resolveModelsDir({ globalValue: '/home/me/models', workspaceValue: '/repo/models', workspaceFolderValue: '/repo/a/models' }, true, SHIPPED), '/repo/a/models');
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
