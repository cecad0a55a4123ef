// The inline suggestion settings as the provider reads them: off unless turned on, the
// pause and length the user chose (a hand-edited value out of range is the default), prose
// languages plus the user's own.
import './vscodeStub';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resetSettings, settings } from './vscodeStub';
import { readInlineOptions } from '../../extension/host/inlineProvider';

test('inline suggestions are off by default, after a 500 ms pause, a sentence long, in Markdown and plain text', () => {
  resetSettings();
  assert.deepEqual(readInlineOptions(), {
    enabled: false,
    delayMs: 500,
    length: { sentences: 1, maxWords: 30 },
    languages: ['markdown', 'plaintext'],
  });
});

test('the settings a user chose are followed, and a value out of range is the default', () => {
  resetSettings();
  settings.global = {
    'inline.enabled': true,
    'inline.delayMs': 250,
    'inline.length': 'words',
    'inline.languages': ['latex'],
  };
  assert.deepEqual(readInlineOptions(), {
    enabled: true,
    delayMs: 250,
    length: { sentences: 1, maxWords: 4 },
    languages: ['markdown', 'plaintext', 'latex'],
  });
  settings.global = {
    'inline.enabled': 'yes',
    'inline.delayMs': -5,
    'inline.length': 'novel',
    'inline.languages': 'typescript',
  };
  const o = readInlineOptions();
  assert.equal(o.enabled, false);
  assert.equal(o.delayMs, 500);
  assert.deepEqual(o.length, { sentences: 1, maxWords: 30 });
  assert.deepEqual(o.languages, ['markdown', 'plaintext']);
  settings.workspace = { 'inline.length': 'twoSentences' };
  assert.deepEqual(readInlineOptions().length, { sentences: 2, maxWords: 60 });
  resetSettings();
});
