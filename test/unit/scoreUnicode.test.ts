// Text reaches the metrics as sacreBLEU reads it: a byte-order mark at the start of a file is part of
// its first word (Python keeps U+FEFF), and a zero-width space is part of its word, so a pair with
// both scores sacreBLEU 2.6.0's numbers (`sacrebleu ref.txt -i hyp.txt -m bleu chrf -w 4`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('score-unicode');

test('a pair with a byte-order mark and a zero-width space scores what sacreBLEU 2.6.0 scores', () => {
  const ref = path.join(dir, 'ref.txt');
  const hyp = path.join(dir, 'hyp.txt');
  writeFileSync(ref, 'The cat sat on the mat today.\nA dog ran in the park.\n');
  writeFileSync(hyp, '\uFEFFThe cat sat on the mat today.\nA dog\u200B ran in the park.\n');
  const r = spawnSync(
    process.execPath,
    [CLI, 'score', '--ref', ref, '--hyp', hyp, '-m', 'bleu', 'chrf', '--width', '4'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr);
  // sacreBLEU 2.6.0: BLEU 75.4013 (84.20 with the mark dropped), chrF2 91.8059.
  assert.match(r.stdout, /^BLEU\|nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:2\.6\.0 = 75\.4013 /m);
  assert.match(r.stdout, /^chrF2\|nrefs:1\|case:mixed\|eff:yes\|nc:6\|nw:0\|space:no\|version:2\.6\.0 = 91\.8059$/m);
  assert.match(r.stderr, /^note: .*hyp\.txt starts with a byte-order mark; kept, as sacreBLEU keeps it/m);
});
