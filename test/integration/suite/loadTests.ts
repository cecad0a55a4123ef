/**
 * Load in the real editor: twenty commands fired at once, of every kind, over fifteen open
 * editors, three of them cancelled midway. Every command completes or is cancelled cleanly, each
 * result lands in its own editor and nowhere else, and no other document changes.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi, EssayOutcome, SummarizeOutcome } from '../../../extension/host/api';
import { closeWithoutSaving, openUntitled, selectedUntitled, sleep, waitFor } from './helpers';
import type { TestCase } from './runner';

const TOWNS = ['Millbrook', 'Ashford', 'Brenton', 'Calder', 'Dunmore', 'Elmstead'];
const TOPIC_SETS = [
  'bee, frog, river',
  'swallow, flower, garden',
  'geese, school, market',
  'bee, forest, rain',
  'frog, pond, summer',
  'flower, meadow, wind',
];
const DRAFTS = [
  'The council approved a new bridge. Engineers will pour concrete in spring. The mayor thanked the voters.',
  'Farmers sell vegetables at the market. The library opens a reading room. Musicians play in the park.',
];
/** Which of the summaries and essays are cancelled (by their index among their kind). */
const CANCELLED_SUMMARIES = new Set([1, 4]);
const CANCELLED_ESSAYS = new Set([2]);

const article = (town: string) =>
  `The council of ${town} voted on Tuesday to build a new bridge over the river, ending a long debate. ` +
  `The mayor of ${town} said work would begin in the spring and take about three years. ` +
  `Residents of the east bank welcomed the decision, while shop owners near the ferry worried about losing customers.`;

/** One command of the twenty: fires it, and checks its outcome and its editor afterwards. */
interface Job {
  label: string;
  start(): Promise<void>;
  cancel?: vscode.CancellationTokenSource;
  /** The document the command inserts into (summaries and essays that are not cancelled). */
  inserts?: vscode.TextDocument;
}

type Outcome = SummarizeOutcome | EssayOutcome;
type Inserted<O extends Outcome> = Extract<O, { kind: 'inserted' }>;

/**
 * A command that inserts into its own editor. Cancelled, it must leave the text as it was;
 * otherwise it must insert, and `expected` checks the result and says what the text must be now.
 */
function insertingJob<O extends Outcome>(
  label: string,
  editor: vscode.TextEditor,
  cancelled: boolean,
  run: (token: vscode.CancellationToken | undefined) => Promise<O>,
  expected: (outcome: Inserted<O>, original: string) => string,
): Job {
  const original = editor.document.getText();
  const cancel = cancelled ? new vscode.CancellationTokenSource() : undefined;
  const isInserted = (o: O): o is Inserted<O> => o.kind === 'inserted';
  return {
    label,
    cancel,
    inserts: cancel ? undefined : editor.document,
    async start() {
      const outcome = await run(cancel?.token);
      const what = `${label}: ${'message' in outcome ? outcome.message : outcome.kind}`;
      if (cancel) {
        assert.equal(outcome.kind, 'cancelled', what);
        assert.equal(editor.document.getText(), original, `${label}: cancelled, yet the document changed`);
        return;
      }
      assert.ok(isInserted(outcome), what);
      assert.equal(
        editor.document.getText(),
        expected(outcome, original),
        `${label}: not one result after its own text`,
      );
    },
  };
}

/** One editor after another: opening them at once could hand two the same untitled document. */
async function inTurn<T>(items: readonly string[], open: (item: string) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const item of items) out.push(await open(item));
  return out;
}

const textDocuments = () =>
  vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'untitled' || d.uri.scheme === 'file');

export function loadTests(api: DraftsmithApi): TestCase[] {
  return [
    {
      name: 'twenty commands at once (summarize, essay, score draft, check coherence) over fifteen editors: each completes or is cancelled cleanly, in its own editor, and nothing else changes',
      timeoutMs: 600_000,
      async run() {
        const bystander = await openUntitled('A document no command is run on.\n', 'plaintext');
        const summaryEditors = await inTurn(TOWNS, (town) => openUntitled(article(town)));
        const essayEditors = await inTurn(TOPIC_SETS, selectedUntitled);
        const draftEditors = await inTurn(DRAFTS, (draft) => openUntitled(draft, 'plaintext'));
        const before = new Map(textDocuments().map((d) => [d, d.getText()]));

        const summaries = summaryEditors.map((editor, i) =>
          insertingJob(
            `summarize ${TOWNS[i]}`,
            editor,
            CANCELLED_SUMMARIES.has(i),
            (token) => api.summarize(editor, token),
            (outcome, original) => {
              assert.equal(
                outcome.result.source,
                original,
                `summarize ${TOWNS[i]}: the summary of another editor's text`,
              );
              return `${original}\n\nSummary: ${outcome.summary}\n`;
            },
          ),
        );
        const essays = essayEditors.map((editor, i) =>
          insertingJob(
            `essay "${TOPIC_SETS[i]}"`,
            editor,
            CANCELLED_ESSAYS.has(i),
            (token) => api.essay(editor, token, async () => 0),
            (outcome, topics) => {
              assert.deepEqual(
                outcome.result.topics,
                topics.split(', '),
                `essay "${topics}": an essay on another editor's topic words`,
              );
              return `${topics}\n\n${outcome.essay}\n`;
            },
          ),
        );
        // Score Draft and Check Coherence share the two draft editors: they never edit them.
        const comparisons: Job[] = Array.from({ length: 8 }, (_, i) => {
          const editor = draftEditors[i % 2];
          const draft = DRAFTS[i % 2];
          const other = { text: DRAFTS[(i + 1) % 2], name: `other-${i}.txt` };
          const inDraft = (sentences: readonly string[]) =>
            sentences.length > 0 && sentences.every((s) => draft.includes(s.trim()));
          return i < 4
            ? {
                label: `score draft ${i + 1}`,
                async start() {
                  const outcome = await api.scoreDraft(editor, other);
                  assert.equal(
                    outcome.kind,
                    'shown',
                    `${this.label}: ${'message' in outcome ? outcome.message : outcome.kind}`,
                  );
                  if (outcome.kind !== 'shown') return;
                  assert.equal(outcome.result.referenceName, other.name, `${this.label}: another command's result`);
                  assert.ok(
                    inDraft(outcome.result.sentences.map((s) => s.text)),
                    `${this.label}: not the sentences of its own draft`,
                  );
                },
              }
            : {
                label: `check coherence ${i - 3}`,
                async start() {
                  const outcome = await api.checkCoherence(editor, other);
                  assert.equal(
                    outcome.kind,
                    'shown',
                    `${this.label}: ${'message' in outcome ? outcome.message : outcome.kind}`,
                  );
                  if (outcome.kind !== 'shown') return;
                  assert.equal(outcome.result.sourceName, other.name, `${this.label}: another command's result`);
                  assert.ok(
                    inDraft(outcome.result.coherence.outputSentences),
                    `${this.label}: not the sentences of its own draft`,
                  );
                },
              };
        });
        // Fired in a mixed order, all before any answer can come back.
        const jobs: Job[] = [];
        for (let i = 0; jobs.length < 20; i++) {
          for (const list of [summaries, essays, comparisons]) if (list[i]) jobs.push(list[i]);
        }
        assert.equal(jobs.length, 20);

        const started = performance.now();
        const settled = Promise.allSettled(jobs.map((job) => job.start()));
        await waitFor(() => api.engine.inFlight() >= 12, 'the summaries and essays to reach the engine', 30_000);
        await sleep(200);
        for (const job of jobs) job.cancel?.cancel();
        const results = await settled;
        console.log(`    20 commands in ${((performance.now() - started) / 1000).toFixed(1)} s`);

        const failures = results.flatMap((r, i) =>
          r.status === 'rejected'
            ? [`${jobs[i].label}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`]
            : [],
        );
        assert.deepEqual(failures, [], failures.join('\n'));
        await waitFor(() => api.engine.inFlight() === 0, 'no request left in flight');

        // Nothing else changed: every other document as it was, and none opened.
        const inserted = new Set(jobs.flatMap((job) => (job.inserts ? [job.inserts] : [])));
        assert.equal(inserted.size, 9);
        for (const [doc, text] of before) {
          if (!inserted.has(doc)) assert.equal(doc.getText(), text, `${doc.uri.toString()} changed`);
        }
        const opened = textDocuments().filter((d) => !before.has(d));
        assert.deepEqual(
          opened.map((d) => d.uri.toString()),
          [],
          'a command opened a document',
        );

        for (const cancel of jobs.map((job) => job.cancel)) cancel?.dispose();
        for (const editor of [bystander, ...summaryEditors, ...essayEditors, ...draftEditors])
          await closeWithoutSaving(editor.document);
      },
    },
  ];
}
