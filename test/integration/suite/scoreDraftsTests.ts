/**
 * In-host tests of Score Drafts in Folder: 20 drafts scored, the CSV export sorted
 * and equal to the CLI's, Cancel keeping the rows done. And of Score Draft with two drafts (item 2): two selections in one editor, or a
 * second draft from another editor, against one reference; the panel gets both drafts' scores, the
 * 95 % intervals and the p-values, equal to `draftsmith score --paired-bs` on the same lines; the
 * document is never edited.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { DraftsmithApi, ScoreOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled } from './helpers';
import type { TestCase } from './runner';
import { folderPanel, toPanel } from '../../../extension/panelViews';

const run = promisify(execFile);

const REFERENCE = [
  'The town reopened its footbridge on Saturday.',
  'Hundreds of residents walked across the new deck in light rain.',
  'The project cost four million dollars.',
  'Shop owners hope that customers will now return on foot.',
  'The mayor thanked the engineers and the volunteers.',
  'A festival on the river bank is planned for next month.',
];
const CLOSE = [
  'The town reopened the footbridge on Saturday.',
  'Hundreds of residents walked across the deck in the rain.',
  'The project cost four million dollars.',
  'Shop owners hope customers will return on foot.',
  'The mayor thanked engineers and volunteers.',
  'A festival by the river is planned for next month.',
];
const LOOSE = [
  'A bridge opened at the weekend.',
  'People crossed it while it rained.',
  'It was expensive.',
  'Shops want customers.',
  'Officials said thanks.',
  'There will be a party.',
];

function describe(outcome: ScoreOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

/** `draftsmith score --paired-bs` on the same lines, as an evaluator would run it. */
async function cliPaired(
  extensionPath: string,
): Promise<{ metric: string; systems: { score: number; ci: number; pValue?: number }[] }[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-two-'));
  try {
    const files = { r: REFERENCE, a: CLOSE, b: LOOSE };
    for (const [name, lines] of Object.entries(files))
      await writeFile(path.join(dir, `${name}.txt`), lines.join('\n') + '\n', 'utf8');
    const { stdout } = await run(
      process.execPath,
      [
        path.join(extensionPath, 'dist', 'cli.js'),
        'score',
        '--ref',
        path.join(dir, 'r.txt'),
        '--hyp',
        path.join(dir, 'a.txt'),
        '--hyp',
        path.join(dir, 'b.txt'),
        '-m',
        'bleu',
        'rouge1',
        'rougeL',
        '--paired-bs',
        '--json',
        '--quiet',
      ],
      { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 120_000 },
    );
    return (
      JSON.parse(stdout) as { metrics: { metric: string; systems: { score: number; ci: number; pValue?: number }[] }[] }
    ).metrics;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 20 drafts and their references in two folders: each draft a noisier or cleaner copy of its reference. */
async function twentyDrafts(dir: string): Promise<{ drafts: string; references: string }> {
  const drafts = path.join(dir, 'drafts');
  const references = path.join(dir, 'references');
  await mkdir(drafts);
  await mkdir(references);
  for (let i = 0; i < 20; i++) {
    const ref = `${REFERENCE[i % REFERENCE.length]} ${REFERENCE[(i + 1) % REFERENCE.length]}`;
    const words = ref.split(' ');
    // Draft i drops every (2 + i % 5)-th word: different scores, so sorting means something.
    const draft = words.filter((_, k) => k % (2 + (i % 5)) !== 1).join(' ');
    const name = `draft-${String(i + 1).padStart(2, '0')}.txt`;
    await writeFile(path.join(drafts, name), draft, 'utf8');
    await writeFile(path.join(references, name), ref, 'utf8');
  }
  return { drafts, references };
}

export function scoreDraftsTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  return [
    {
      name: "Score Drafts in Folder: 20 drafts scored into the panel's table, Export CSV sorted by BLEU has every row and the corpus, as the CLI",
      async run() {
        const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-folder-'));
        try {
          const { drafts, references } = await twentyDrafts(dir);
          const outcome = await api.scoreFolder({ kind: 'folders', drafts, references });
          assert.equal(outcome.kind, 'shown', 'message' in outcome ? outcome.message : outcome.kind);
          if (outcome.kind !== 'shown') return;
          assert.equal(outcome.result.rows.length, 20);
          assert.equal(outcome.result.cancelled, false);
          assert.deepEqual(api.insights.lastMessage(), folderPanel(outcome.result));
          assert.ok(api.insights.isOpen(), 'the insights panel is not open');

          const doc = await api.exportFolderScores('csv', { column: 'bleu', descending: true });
          assert.ok(doc, 'no CSV document');
          const lines = doc.getText().trim().split('\n');
          assert.equal(lines.length, 1 + 20 + 1, 'header, 20 drafts, the corpus');
          assert.match(lines[0], /^draft,bleu,rouge1,rouge2,rougeL,rougeLsum,rougeW,/);
          const bleu = lines.slice(1, 21).map((l) => Number(l.split(',')[1]));
          assert.deepEqual(
            bleu,
            [...bleu].sort((a, b) => b - a),
            'the CSV is not sorted by BLEU, highest first',
          );
          assert.match(lines[21], /^\(corpus\),/);
          // The non-word rate is on by default (draftsmith.score.nonwords): the table's last column.
          assert.equal(lines[0].split(',').at(-1), 'nonwords');
          // The CLI on the same folders (--nonwords, as the default setting): the same rows (in file-name order) and the same corpus line.
          const { stdout } = await run(
            process.execPath,
            [
              path.join(extensionPath, 'dist', 'cli.js'),
              'score',
              '--hyp',
              drafts,
              '--ref',
              references,
              '--nonwords',
              '--csv',
              '--quiet',
            ],
            { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 120_000 },
          );
          const cli = stdout.trim().split('\n');
          assert.equal(cli[0], lines[0]);
          assert.deepEqual([...lines.slice(1, 21)].sort(), [...cli.slice(1, 21)].sort());
          assert.equal(lines[21], cli[21]);
          await closeWithoutSaving(doc);
          const json = await api.exportFolderScores('json', { column: 'name', descending: false });
          assert.ok(json);
          const parsed = JSON.parse(json.getText()) as { drafts: { draft: string }[] };
          assert.equal(parsed.drafts[0].draft, 'draft-01.txt');
          assert.equal(parsed.drafts.length, 20);
          await closeWithoutSaving(json);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
    {
      name: 'Score Drafts in Folder: Cancel keeps the rows done; a folder without matching references is refused clearly',
      async run() {
        const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-folder-'));
        try {
          const { drafts, references } = await twentyDrafts(dir);
          // A token that is cancelled once 6 drafts have been checked.
          let checks = 0;
          const token = {
            get isCancellationRequested() {
              return ++checks > 6;
            },
            onCancellationRequested: new vscode.EventEmitter<void>().event,
          } as vscode.CancellationToken;
          const outcome = await api.scoreFolder({ kind: 'folders', drafts, references }, token);
          assert.equal(outcome.kind, 'shown', 'message' in outcome ? outcome.message : outcome.kind);
          if (outcome.kind !== 'shown') return;
          assert.equal(outcome.result.cancelled, true);
          assert.equal(outcome.result.rows.length, 6);
          assert.equal(outcome.result.paired, 20);
          assert.equal(outcome.result.totals.pairs, 6);
          const empty = path.join(dir, 'empty');
          await mkdir(empty);
          const refused = await api.scoreFolder({ kind: 'folders', drafts, references: empty });
          assert.equal(refused.kind, 'error');
          assert.match('message' in refused ? refused.message : '', /no draft in .* has a reference of the same name/);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
    {
      name: 'Score Draft with two selections shows both drafts, the 95 % intervals and the p-values, as `draftsmith score --paired-bs`',
      async run() {
        // The two drafts in one document, one above the other; select each (a multi-selection).
        const editor = await openUntitled([...CLOSE, '', ...LOOSE].join('\n'), 'plaintext');
        const doc = editor.document;
        const n = CLOSE.length;
        editor.selections = [
          new vscode.Selection(0, 0, n - 1, CLOSE[n - 1].length),
          new vscode.Selection(n + 1, 0, 2 * n, LOOSE[n - 1].length),
        ];
        const before = doc.getText();
        try {
          const outcome = await api.scoreTwoDrafts(editor, undefined, {
            text: REFERENCE.join('\n'),
            name: 'reference.txt',
          });
          assert.equal(outcome.kind, 'shown', describe(outcome));
          if (outcome.kind !== 'shown') return;
          assert.equal(doc.getText(), before, 'Score Draft edited the document');
          const c = outcome.result.comparison;
          assert.ok(c, 'no comparison in the result');
          assert.match(outcome.result.hypothesisName, /lines 1–6/);
          assert.match(c.secondName, /lines 8–13/);
          assert.equal(c.segmentation, 'lines');
          assert.equal(c.segments, n);
          assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
          const cli = await cliPaired(extensionPath);
          assert.deepEqual(
            c.metrics.map((m) => m.metric),
            cli.map((m) => m.metric),
          );
          c.metrics.forEach((m, k) => {
            const [a, b] = cli[k].systems;
            assert.equal(m.first.score, a.score, `${m.metric}: first draft`);
            assert.equal(m.first.ci, a.ci, `${m.metric}: first interval`);
            assert.equal(m.second.score, b.score, `${m.metric}: second draft`);
            assert.equal(m.second.pValue, b.pValue, `${m.metric}: p-value`);
          });
          assert.ok(
            c.metrics.every((m) => m.first.score > m.second.score),
            'the close draft should score higher',
          );
        } finally {
          await closeWithoutSaving(doc);
        }
      },
    },
    {
      name: "Compare Two Drafts: the editor's draft against a second draft from another editor; one selection only is refused with a hint",
      async run() {
        const first = await openUntitled(CLOSE.join(' '), 'plaintext');
        first.selection = new vscode.Selection(0, 0, 0, 0);
        try {
          const outcome = await api.scoreTwoDrafts(
            first,
            { text: LOOSE.join(' '), name: 'loose.txt' },
            { text: REFERENCE.join(' '), name: 'reference.txt' },
          );
          assert.equal(outcome.kind, 'shown', describe(outcome));
          if (outcome.kind !== 'shown') return;
          const c = outcome.result.comparison;
          assert.ok(c);
          assert.equal(c.secondName, 'loose.txt');
          assert.equal(c.segmentation, 'reference-sentences');
          assert.equal(c.segments, REFERENCE.length);
          assert.ok(c.metrics.every((m) => m.second.pValue > 0 && m.second.pValue <= 1));
          const refused = await api.scoreTwoDrafts(first, undefined, {
            text: REFERENCE.join(' '),
            name: 'reference.txt',
          });
          assert.equal(refused.kind, 'error');
          assert.match(describe(refused), /select both/);
          const commands = await vscode.commands.getCommands(true);
          assert.ok(commands.includes('draftsmith.compareDrafts'), 'Compare Two Drafts… is not registered');
        } finally {
          await closeWithoutSaving(first.document);
        }
      },
    },
    {
      name: "Compare Drafts against a Baseline: four drafts against a baseline give the CLI's table, Go to segment opens the worst line, Export Report writes the report",
      async run() {
        const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-systems-'));
        try {
          // Twelve reference lines; the baseline is the reference, draft k drops every (6 − k)-th word.
          const refs = Array.from({ length: 12 }, (_, i) => `${REFERENCE[i % REFERENCE.length]} (${i + 1})`);
          const names = ['base.txt', 'a.txt', 'b.txt', 'c.txt', 'd.txt'];
          await writeFile(path.join(dir, 'ref.txt'), refs.join('\n') + '\n', 'utf8');
          for (const [k, name] of names.entries())
            await writeFile(
              path.join(dir, name),
              refs
                .map((l, i) =>
                  l
                    .split(' ')
                    .filter((_, w) => k === 0 || (w + i) % (6 - k) !== 0)
                    .join(' '),
                )
                .join('\n') + '\n',
              'utf8',
            );
          const uris = names.map((n) => vscode.Uri.file(path.join(dir, n)));
          // The baseline picked is the first file; the others keep their order.
          const outcome = await api.compareSystems(uris, vscode.Uri.file(path.join(dir, 'ref.txt')), 0);
          assert.equal(outcome.kind, 'shown', 'message' in outcome ? outcome.message : outcome.kind);
          if (outcome.kind !== 'shown') return;
          assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
          assert.ok(api.insights.isOpen(), 'the insights panel is not open');
          const { stdout } = await run(
            process.execPath,
            [
              path.join(extensionPath, 'dist', 'cli.js'),
              'score',
              '--ref',
              'ref.txt',
              ...names.flatMap((n) => ['--hyp', n]),
              '-m',
              'bleu',
              'rouge1',
              'rougeL',
              '--paired-bs',
              '--worst',
              '10',
              '--json',
              '--quiet',
            ],
            { cwd: dir },
          );
          const cli = JSON.parse(stdout);
          assert.deepEqual(outcome.result.table.systems, cli.systems.systems, "the editor's table is the CLI's");
          assert.deepEqual(outcome.result.worst, cli.worst, "the drill-down is the CLI's");
          // The worst segment of the last draft under BLEU opens at its line.
          const worst = outcome.result.worst.find((w) => w.system === 'd.txt' && w.metric === 'BLEU');
          assert.ok(worst && worst.segments[0].drop > 0);
          const editor = await api.openSegment(4, worst.segments[0].index);
          assert.ok(editor, 'Go to segment opened nothing');
          assert.equal(path.basename(editor.document.uri.fsPath), 'd.txt');
          assert.equal(editor.selection.active.line, worst.segments[0].index);
          assert.equal(editor.document.lineAt(editor.selection.active.line).text, worst.segments[0].hypothesis);
          const report = await api.exportReport('html');
          assert.ok(report, 'no report');
          const html = report.getText();
          assert.match(html, /^<!DOCTYPE html>/);
          for (const needle of [
            'Baseline: base.txt',
            'd.txt',
            'BLEU (μ ± 95% CI)',
            '<svg',
            'nrefs:1|bs:1000|seed:12345',
          ])
            assert.ok(html.includes(needle), `the report lacks ${needle}`);
          await closeWithoutSaving(report);
          await closeWithoutSaving(editor.document);
          const commands = await vscode.commands.getCommands(true);
          assert.ok(
            commands.includes('draftsmith.compareSystems'),
            'Compare Drafts against a Baseline… is not registered',
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
  ];
}
