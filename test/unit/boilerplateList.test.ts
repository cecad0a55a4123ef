/**
 * One list of training-text boilerplate: the phrases the decoding guards ban (bannedWords.ts BOILERPLATE) are
 * the phrases the training recipes remove from their text (models/train/draftsmith_train/boilerplate.json,
 * read by boilerplate.py), so a phrase added to one side is not missing from the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BOILERPLATE } from '../../extension/engine/decode/bannedWords';
import { repoRoot } from './helpers';

const TrainingList = z.object({ phrases: z.array(z.string().min(1)) });

test('the boilerplate banned at decoding is the boilerplate removed from the training text', () => {
  const file = path.join(repoRoot, 'models', 'train', 'draftsmith_train', 'boilerplate.json');
  const training = TrainingList.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).phrases;
  const decoding = BOILERPLATE.map((p) => p.join(' '));
  assert.deepEqual(
    decoding.filter((p) => !training.includes(p)),
    [],
    'banned at decoding, missing from boilerplate.json',
  );
  assert.deepEqual(
    training.filter((p) => !decoding.includes(p)),
    [],
    'in boilerplate.json, missing from bannedWords.ts',
  );
  for (const p of training) assert.match(p, /^[a-z0-9]+( [a-z0-9]+)*$/, `"${p}": lowercase words, one space apart`);
});
