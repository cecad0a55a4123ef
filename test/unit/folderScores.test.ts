// Score Drafts in Folder: pairing drafts with references (same file name, else
// same name but the extension; or a JSONL file's fields), the totals equal to `draftsmith score`
// over all the pairs, sorting, the CSV and JSON exports, and `draftsmith score` on a folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { scoreCorpus } from '../../extension/engine/eval/scoreDraft';
import { folderTotals, pairFolders, pairJsonl } from '../../extension/engine/eval/folderScores';
import { columnsOf, folderCsv, folderJson, sortedRows } from '../../extension/engine/eval/folderTable';
import type { FolderScores } from '../../extension/protocol';
import { repoRoot, tempDir } from './helpers';

const REFS = [
  'The town reopened its footbridge on Saturday after two years of repairs.',
  'Hundreds of residents walked across the new deck in light rain.',
  'The project cost four million dollars, most of it from a regional grant.',
  'Shop owners hope that customers will now return on foot. The mayor thanked the volunteers.',
  'A festival on the river bank is planned for next month.',
];
const DRAFTS = [
  'The town reopened the footbridge on Saturday.',
  'Residents walked across the deck in the rain.',
  'It cost four million dollars.',
  'Shops hope customers return on foot. The mayor thanked volunteers.',
  'A party is planned.',
];

function folders(): { drafts: string; refs: string } {
  const dir = tempDir('folder');
  const drafts = path.join(dir, 'drafts');
  const refs = path.join(dir, 'references');
  mkdirSync(drafts);
  mkdirSync(refs);
  DRAFTS.forEach((d, i) => writeFileSync(path.join(drafts, `item ${i + 1}.txt`), d));
  // item 5's reference is a Markdown file: paired by its name without the extension.
  REFS.forEach((r, i) => writeFileSync(path.join(refs, `item ${i + 1}.${i === 4 ? 'md' : 'txt'}`), r));
  writeFileSync(path.join(drafts, 'notes, draft.txt'), 'no reference for this one');
  writeFileSync(path.join(drafts, '.hidden'), 'ignored');
  return { drafts, refs };
}

async function scored(): Promise<FolderScores> {
  const { drafts, refs } = folders();
  const paired = await pairFolders(drafts, refs);
  const rows = paired.pairs.map((p) => ({ name: p.name, scores: scoreCorpus([p]) }));
  return {
    source: drafts,
    referenceSource: refs,
    rows,
    totals: folderTotals(
      paired.pairs,
      rows.map((r) => r.scores),
      {},
    ),
    unpaired: paired.unpaired,
    cancelled: false,
    paired: paired.pairs.length,
    signatures: { BLEU: 'b', ROUGE: 'r' },
    elapsedMs: 0,
  };
}

test('each draft is paired with the reference of the same name (else the same name with another extension); the rest are named', async () => {
  const { drafts, refs } = folders();
  const p = await pairFolders(drafts, refs);
  assert.deepEqual(
    p.pairs.map((x) => x.name),
    ['item 1.txt', 'item 2.txt', 'item 3.txt', 'item 4.txt', 'item 5.txt'],
  );
  assert.equal(p.pairs[4].reference, REFS[4]);
  assert.deepEqual(p.unpaired, ['notes, draft.txt']);
  await assert.rejects(pairFolders(path.join(drafts, 'nope'), refs), /no such folder/);
});

test("the corpus totals are `draftsmith score`'s over all the pairs: corpus BLEU, mean ROUGE, corpus diversity", async () => {
  const r = await scored();
  const all = scoreCorpus(DRAFTS.map((d, i) => ({ hypothesis: d, reference: REFS[i] })));
  assert.equal(r.totals.bleu.score, all.bleu.score);
  for (const k of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'rougeW'] as const)
    assert.ok(Math.abs(r.totals.rouge[k].f1 - all.rouge[k].f1) < 1e-12, k);
  assert.deepEqual(r.totals.diversity, all.diversity);
  assert.equal(r.totals.substantiality.perSentence, all.substantiality.perSentence);
  assert.equal(r.totals.coherenceL, all.coherenceL);
  // A draft's row is Score Draft's numbers for that draft alone.
  assert.deepEqual(r.rows[0].scores, scoreCorpus([{ hypothesis: DRAFTS[0], reference: REFS[0] }]));
});

test('rows sort by any column either way (ties and missing values last, by name); CSV and JSON follow the order', async () => {
  const r = await scored();
  const byBleu = sortedRows(r, { column: 'bleu', descending: true }).map((x) => x.scores.bleu.score);
  assert.deepEqual(
    byBleu,
    [...byBleu].sort((a, b) => b - a),
  );
  const up = sortedRows(r, { column: 'rougeL', descending: false }).map((x) => x.scores.rouge.rougeL.f1);
  assert.deepEqual(
    up,
    [...up].sort((a, b) => a - b),
  );
  assert.deepEqual(
    sortedRows(r, { column: 'name', descending: true })
      .map((x) => x.name)
      .at(0),
    'item 5.txt',
  );
  // Coherence L is n/a for one-sentence drafts: those sort last whichever the direction.
  const coh = sortedRows(r, { column: 'coherenceL', descending: true }).map((x) => x.scores.coherenceL);
  assert.ok(
    coh.findIndex((x) => x === null) === -1 || coh.slice(coh.findIndex((x) => x === null)).every((x) => x === null),
  );

  const csv = folderCsv(r, { column: 'bleu', descending: true }).trim().split('\n');
  const cols = columnsOf(r);
  assert.equal(csv[0], ['draft', ...cols.map((c) => c.key)].join(','));
  assert.equal(csv.length, 1 + 5 + 1);
  const bleuAt = csv[0].split(',').indexOf('bleu');
  assert.deepEqual(
    csv.slice(1, 6).map((l) => Number(l.split(',')[bleuAt])),
    byBleu,
  );
  assert.match(csv[6], /^\(corpus\),/);
  assert.equal(Number(csv[6].split(',')[bleuAt]), r.totals.bleu.score);
  const json = JSON.parse(folderJson(r, { column: 'bleu', descending: true }));
  assert.deepEqual(
    json.drafts.map((d: { bleu: number }) => d.bleu),
    byBleu,
  );
  assert.equal(json.corpus.bleu, r.totals.bleu.score);
  assert.deepEqual(json.unpaired, ['notes, draft.txt']);
});

test('a JSONL file pairs on the fields named; a row without a reference is named, one without a draft refused', async () => {
  const dir = tempDir('folder-jsonl');
  const f = path.join(dir, 'rows.jsonl');
  writeFileSync(
    f,
    [
      { id: 'a', out: DRAFTS[0], gold: REFS[0] },
      { id: 'b', out: DRAFTS[1] },
      { id: 7, out: DRAFTS[2], gold: REFS[2] },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n') + '\n',
  );
  const p = await pairJsonl(f, 'out', 'gold', 'id');
  assert.deepEqual(
    p.pairs.map((x) => x.name),
    ['a', '7'],
  );
  assert.deepEqual(p.unpaired, ['b']);
  assert.deepEqual(
    (await pairJsonl(f, 'out', 'gold')).pairs.map((x) => x.name),
    ['row 1', 'row 3'],
  );
  await assert.rejects(pairJsonl(f, 'summary', 'gold'), /no string field "summary"/);
});

test("CLI: `draftsmith score --hyp DIR --ref DIR --csv` writes the panel's CSV; the table names the unpaired draft", async () => {
  const { drafts, refs } = folders();
  const cli = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'score', '--hyp', drafts, '--ref', refs, ...args],
      { encoding: 'utf8' },
    );
  const csv = cli('--csv', '--quiet');
  assert.equal(csv.status, 0, csv.stderr);
  const r = await scored();
  assert.equal(csv.stdout, folderCsv(r));
  assert.match(csv.stderr, /no reference for 1: notes, draft\.txt/);
  const table = cli();
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^\| draft +\| +BLEU \|/);
  assert.match(table.stdout, /\| \(corpus\) /);
  assert.match(table.stdout, /ROUGE signature: nrefs:1\|agg:mean/);
  const mixed = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'dist', 'cli.js'), 'score', '--hyp', drafts, '--ref', path.join(refs, 'item 1.txt')],
    { encoding: 'utf8' },
  );
  assert.equal(mixed.status, 2);
  assert.match(mixed.stderr, /must both be folders/);
});
