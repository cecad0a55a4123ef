// `draftsmith roundtrip FILE` and `draftsmith eval roundtrip` from a terminal: the reconstruction on
// standard output, the alignment and scores on standard error, --json for scripts, clear messages
// (exit 1 or 2) for bad files and options, and the eval table in the paper's shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { takeTurns, type RoundTripRow } from '../../extension/engine/eval/roundtripEval';
import { RoundTripResult } from '../../extension/protocol';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('roundtrip-cli');
const standardModel = path.join(repoRoot, 'test', 'fixtures', 'roundtrip-models', 'standard');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, content: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, content);
  return f;
}

const PARAGRAPH =
  'The river rose after three days of rain. Farmers moved their cattle to the hills. The mayor opened the school as a shelter.';

test('draftsmith roundtrip FILE prints the reconstruction, then the alignment and the scores on standard error', () => {
  const f = file('para.txt', PARAGRAPH);
  const plain = cli(['roundtrip', f]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /^alignment \(output sentence -> input sentence/m);
  assert.match(
    plain.stderr,
    /^BLEU \d+\.\d\d {2}ROUGE-1 \d\.\d{3} {2}ROUGE-2 \d\.\d{3} {2}ROUGE-W \d\.\d{3} {2}coherence L /m,
  );
  assert.match(plain.stderr, /3 sentences \/ \d+ tokens in/);
  const json = cli(['roundtrip', f, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const result = RoundTripResult.parse(JSON.parse(json.stdout));
  assert.equal(result.source, PARAGRAPH);
  assert.equal(plain.stdout, `${result.reconstruction}\n`, 'the plain output is the reconstruction');
});

test('draftsmith roundtrip --model DIR runs an exported folder; --max-sentences limits what is read', () => {
  const f = file('long.txt', Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} is about the river.`).join(' '));
  const r = cli(['roundtrip', f, '--json', '--model', standardModel, '--max-sentences', '5']);
  assert.equal(r.code, 0, r.stderr);
  const result = RoundTripResult.parse(JSON.parse(r.stdout));
  assert.equal(result.architecture, 'standard');
  assert.equal(result.input.length, 5);
  assert.equal(result.truncatedBy, 'sentences');
  const plain = cli(['roundtrip', f, '--model', standardModel, '--max-sentences', '5']);
  assert.match(plain.stderr, /^note: the model read the first 5 of 12 sentences \(--max-sentences 5\)/m);
});

test('draftsmith roundtrip refuses bad input and bad options with one clear line', () => {
  const empty = cli(['roundtrip', file('empty.txt', '  \n ')]);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /^draftsmith: There is no paragraph to round-trip/m);
  const code = cli(['roundtrip', file('code.md', '```\nx = 1\n```')]);
  assert.equal(code.code, 1);
  assert.match(
    code.stderr,
    /^draftsmith: code\.md has no prose to round-trip: read as Markdown, it holds no paragraph or list item \(skipped 1 code block\)/m,
  );
  const variant = cli(['roundtrip', file('p.txt', PARAGRAPH), '--variant', 'bogus']);
  assert.equal(variant.code, 2);
  assert.match(variant.stderr, /^draftsmith: --variant must be standard, hier or hier-attn, not "bogus"$/m);
  const both = cli(['roundtrip', file('p2.txt', PARAGRAPH), '--variant', 'hier', '--model', standardModel]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^draftsmith: --model and --variant cannot go together: give one of them$/m);
  assert.match(
    cli(['roundtrip', file('p3.txt', PARAGRAPH), '--max-sentences', '0']).stderr,
    /^draftsmith: --max-sentences must be 1 or more, not 0$/m,
  );
  assert.match(cli(['roundtrip']).stderr, /^draftsmith: roundtrip needs a FILE/m);
});

const rows: RoundTripRow[] = [
  ...['The river rose. The farmers moved.', 'The mill flooded. The mayor spoke.', 'Rain fell. The roads closed.'].map(
    (t, i) => ({ source: 'news', doc: `n${i}`, sentences: t.split(/(?<=\.) /) }),
  ),
  ...['A fox ran. The hen hid.', 'The king slept. The queen woke.'].map((t, i) => ({
    source: 'story',
    doc: `s${i}`,
    sentences: t.split(/(?<=\.) /),
  })),
];

test('the eval samples paragraphs as the recipe does: the sources take turns', () => {
  assert.deepEqual(
    takeTurns(rows, 4).map((r) => r.doc),
    ['n0', 's0', 'n1', 's1'],
  );
  assert.deepEqual(
    takeTurns(rows, 5).map((r) => r.doc),
    ['n0', 's0', 'n1', 's1', 'n2'],
  );
  assert.equal(takeTurns(rows, Infinity).length, 5);
});

test('draftsmith eval roundtrip prints the paper-shaped table for each variant, overall and per source', () => {
  const data = tempDir('roundtrip-data');
  writeFileSync(path.join(data, 'roundtrip.test.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const r = cli([
    'eval',
    'roundtrip',
    '--data',
    data,
    '--limit',
    '4',
    '--variant',
    `shipped=${path.join(repoRoot, 'models', 'roundtrip')}`,
    '--variant',
    `std=${standardModel}`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^\| Model \| Dataset \| BLEU \| ROUGE-1 \| ROUGE-2 \| ROUGE-W \| Coherence L ↓ \(paragraphs\) \| encode ms \| decode ms \|$/m,
  );
  for (const [model, kind] of [
    ['shipped', '(standard|hier|hier-attn)'],
    ['std', 'standard'],
  ]) {
    for (const [dataset, n] of [
      ['all', 4],
      ['news', 2],
      ['story', 2],
    ]) {
      assert.match(
        r.stdout,
        new RegExp(
          `^\\| ${model} \\(${kind}, [^)]+\\) \\| ${dataset} \\(${n}\\) \\| \\d+\\.\\d\\d \\| \\d\\.\\d{3} \\| \\d\\.\\d{3} \\| \\d\\.\\d{3} \\| (n/a|\\d+\\.\\d\\d \\(\\d+\\)) \\| \\d+\\.\\d \\| \\d+\\.\\d \\|$`,
          'm',
        ),
        `no ${model}/${dataset} row:\n${r.stdout}`,
      );
    }
  }
  assert.match(r.stdout, /Test split, 4 paragraphs \(news 2, story 2\)/);
  const missing = cli(['eval', 'roundtrip', '--data', path.join(dir, 'nowhere')]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^draftsmith: .*roundtrip\.test\.jsonl is missing: run \(cd models\/train && python3 -m draftsmith_train\.roundtrip prepare/m,
  );
});
