// Score Draft's engine side and `draftsmith score`: every metric for a draft, the same numbers
// through the worker protocol, the CLI and its file formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CorpusScores, ScoreResult } from '../../extension/protocol';
import { checkCoherence, scoreCorpus, scoreDraft } from '../../extension/engine/eval/scoreDraft';
import { corpusBleu } from '../../extension/engine/metrics/bleu';
import { EngineError } from '../../extension/engine/errors';
import { repoRoot, tempDir } from './helpers';

const REF =
  'The storm closed the harbour on Monday. Fishing boats stayed in port. The mayor promised help for the families.';
const HYP = 'Fishing boats stayed in port on Monday. The storm closed the harbour. The mayor promised help.';
const cli = path.join(repoRoot, 'dist', 'cli.js');

test('Score Draft gives every metric, valid against the protocol, with per-sentence scores', () => {
  const r = ScoreResult.parse(
    scoreDraft({ op: 'score', hypothesis: HYP, reference: REF, hypothesisName: 'draft.md', referenceName: 'ref.md' }),
  );
  assert.equal(r.hypothesisName, 'draft.md');
  assert.equal(r.scores.bleu.score, corpusBleu([HYP], [[REF]]).score);
  assert.ok(r.scores.rouge.rouge1.f1 > 0.5 && r.scores.rouge.rouge1.f1 < 1);
  assert.equal(r.sentences.length, 3);
  // The first draft sentence is the reference's second one, plus "on Monday".
  assert.equal(r.sentences[0].reference, 1);
  assert.equal(r.sentences[2].referenceText, 'The mayor promised help for the families.');
  // Sentences 1 and 2 of the reference come out as 2 and 1: the order is broken once.
  assert.deepEqual(
    r.coherence.alignment.map((a) => a.input),
    [1, 0, 2],
  );
  assert.ok((r.scores.coherenceL ?? 0) > 0);
});

test('an empty draft or reference is refused with a clear message', () => {
  assert.throws(
    () => scoreDraft({ op: 'score', hypothesis: ' \n', reference: REF }),
    (e: unknown) => e instanceof EngineError && e.code === 'bad-input' && /draft is empty/.test(e.message),
  );
  assert.throws(() => checkCoherence({ op: 'coherence', output: HYP, source: '' }), /source is empty/);
});

test('two huge documents are refused before the word-by-word comparison, naming their lengths', () => {
  const huge = 'word '.repeat(8_000);
  assert.throws(() => scoreDraft({ op: 'score', hypothesis: huge, reference: huge }), /8000 words.*too long/);
});

test('identical texts score 100 BLEU, 100% ROUGE and coherence 0', () => {
  const s = scoreCorpus([{ hypothesis: REF, reference: REF }]);
  assert.ok(Math.abs(s.bleu.score - 100) < 1e-9);
  assert.equal(s.rouge.rougeL.f1, 1);
  assert.equal(s.rouge.rougeLsum.f1, 1);
  assert.equal(s.coherenceL, 0);
});

test('binary junk, NUL and lone surrogates are scored without throwing', () => {
  const junk =
    'a\u0000b\uD800 c\uDFFF \u202Eevil\u202C ' + String.fromCharCode(...Array.from({ length: 64 }, (_, i) => i));
  const s = scoreCorpus([{ hypothesis: junk, reference: REF }]);
  assert.ok(Number.isFinite(s.bleu.score) && Number.isFinite(s.rouge.rouge1.f1));
});

function tmp(files: Record<string, string>): string {
  const dir = tempDir('score');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

test('the CLI prints for a document pair exactly the numbers Score Draft computes', () => {
  const dir = tmp({ 'ref.txt': REF, 'hyp.txt': HYP });
  const out = execFileSync(
    process.execPath,
    [
      cli,
      'score',
      '--document',
      '--ref',
      path.join(dir, 'ref.txt'),
      '--hyp',
      path.join(dir, 'hyp.txt'),
      '--json',
      '--quiet',
    ],
    { encoding: 'utf8' },
  );
  assert.deepEqual(
    CorpusScores.parse(JSON.parse(out)),
    scoreDraft({ op: 'score', hypothesis: HYP, reference: REF }).scores,
  );
});

test('the CLI pairs text files line by line, and JSONL files by a chosen field, in a table or CSV', () => {
  const dir = tmp({
    'ref.txt': 'the cat sat on the mat\nthe dog barked\n',
    'hyp.txt': 'the cat sat on a mat\nthe dog barked loudly\n',
    'pairs.jsonl':
      '{"summary":"the cat sat on a mat","article":"the cat sat on the mat"}\n{"summary":"the dog barked loudly","article":"the dog barked"}\n',
  });
  const run = (...args: string[]) =>
    execFileSync(process.execPath, [cli, 'score', ...args, '--quiet'], { encoding: 'utf8' });
  const table = run('--ref', path.join(dir, 'ref.txt'), '--hyp', path.join(dir, 'hyp.txt'));
  assert.match(table, /\| pairs +\| 2 \|/);
  assert.match(table, /\| BLEU +\| \d+\.\d\d \|/);
  const jsonl = path.join(dir, 'pairs.jsonl');
  const csv = run('--ref', jsonl, '--ref-field', 'article', '--hyp', jsonl, '--hyp-field', 'summary', '--csv');
  assert.equal(csv.split('\n')[0], 'metric,value');
  // The same pairs give the same BLEU either way.
  const bleuOf = (s: string) => /BLEU[ |,]+(\d+\.\d\d)/.exec(s)?.[1];
  assert.equal(bleuOf(csv), bleuOf(table));
});

test('the CLI explains mismatched files and a missing field, with a non-zero exit', () => {
  const dir = tmp({ 'a.txt': 'one\ntwo\n', 'b.txt': 'one\n', 'c.jsonl': '{"x":"y"}\n' });
  const mismatch = spawnSync(
    process.execPath,
    [cli, 'score', '--ref', path.join(dir, 'a.txt'), '--hyp', path.join(dir, 'b.txt')],
    { encoding: 'utf8' },
  );
  assert.notEqual(mismatch.status, 0);
  assert.match(mismatch.stderr, /has 2 segments but .* has 1/);
  const field = spawnSync(
    process.execPath,
    [cli, 'score', '--ref', path.join(dir, 'c.jsonl'), '--hyp', path.join(dir, 'c.jsonl')],
    { encoding: 'utf8' },
  );
  assert.match(field.stderr, /no string field "text"/);
});
