/**
 * In-host tests of Score Draft with two drafts (issue 24, item 2): two selections in one editor, or a
 * second draft from another editor, against one reference; the panel gets both drafts' scores, the
 * 95 % intervals and the p-values, equal to `draftsmith score --paired-bs` on the same lines; the
 * document is never edited.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { DraftsmithApi, ScoreOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled } from './helpers';
import type { TestCase } from './runner';

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
async function cliPaired(extensionPath: string): Promise<{ metric: string; systems: { score: number; ci: number; pValue?: number }[] }[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-two-'));
  try {
    const files = { r: REFERENCE, a: CLOSE, b: LOOSE };
    for (const [name, lines] of Object.entries(files)) await writeFile(path.join(dir, `${name}.txt`), lines.join('\n') + '\n', 'utf8');
    const { stdout } = await run(
      process.execPath,
      [path.join(extensionPath, 'dist', 'cli.js'), 'score', '--ref', path.join(dir, 'r.txt'), '--hyp', path.join(dir, 'a.txt'), '--hyp', path.join(dir, 'b.txt'),
        '-m', 'bleu', 'rouge1', 'rougeL', '--paired-bs', '--json', '--quiet'],
      { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 120_000 },
    );
    return (JSON.parse(stdout) as { metrics: { metric: string; systems: { score: number; ci: number; pValue?: number }[] }[] }).metrics;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function scoreDraftsTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  return [
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
          const outcome = await api.scoreTwoDrafts(editor, undefined, { text: REFERENCE.join('\n'), name: 'reference.txt' });
          assert.equal(outcome.kind, 'shown', describe(outcome));
          if (outcome.kind !== 'shown') return;
          assert.equal(doc.getText(), before, 'Score Draft edited the document');
          const c = outcome.result.comparison;
          assert.ok(c, 'no comparison in the result');
          assert.match(outcome.result.hypothesisName, /lines 1–6/);
          assert.match(c.secondName, /lines 8–13/);
          assert.equal(c.segmentation, 'lines');
          assert.equal(c.segments, n);
          assert.deepEqual(api.insights.lastMessage(), { type: 'score', result: outcome.result });
          const cli = await cliPaired(extensionPath);
          assert.deepEqual(c.metrics.map((m) => m.metric), cli.map((m) => m.metric));
          c.metrics.forEach((m, k) => {
            const [a, b] = cli[k].systems;
            assert.equal(m.first.score, a.score, `${m.metric}: first draft`);
            assert.equal(m.first.ci, a.ci, `${m.metric}: first interval`);
            assert.equal(m.second.score, b.score, `${m.metric}: second draft`);
            assert.equal(m.second.pValue, b.pValue, `${m.metric}: p-value`);
          });
          assert.ok(c.metrics.every((m) => m.first.score > m.second.score), 'the close draft should score higher');
        } finally {
          await closeWithoutSaving(doc);
        }
      },
    },
    {
      name: 'Compare Two Drafts: the editor\'s draft against a second draft from another editor; one selection only is refused with a hint',
      async run() {
        const first = await openUntitled(CLOSE.join(' '), 'plaintext');
        first.selection = new vscode.Selection(0, 0, 0, 0);
        try {
          const outcome = await api.scoreTwoDrafts(first, { text: LOOSE.join(' '), name: 'loose.txt' }, { text: REFERENCE.join(' '), name: 'reference.txt' });
          assert.equal(outcome.kind, 'shown', describe(outcome));
          if (outcome.kind !== 'shown') return;
          const c = outcome.result.comparison;
          assert.ok(c);
          assert.equal(c.secondName, 'loose.txt');
          assert.equal(c.segmentation, 'reference-sentences');
          assert.equal(c.segments, REFERENCE.length);
          assert.ok(c.metrics.every((m) => m.second.pValue > 0 && m.second.pValue <= 1));
          const refused = await api.scoreTwoDrafts(first, undefined, { text: REFERENCE.join(' '), name: 'reference.txt' });
          assert.equal(refused.kind, 'error');
          assert.match(describe(refused), /select both/);
          const commands = await vscode.commands.getCommands(true);
          assert.ok(commands.includes('draftsmith.compareDrafts'), 'Compare Two Drafts… is not registered');
        } finally {
          await closeWithoutSaving(first.document);
        }
      },
    },
  ];
}
