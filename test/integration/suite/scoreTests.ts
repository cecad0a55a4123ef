/**
 * In-host tests of Score Draft and Check Coherence: the numbers equal the CLI's for the same texts,
 * the coherence alignment follows a reordering, empty input changes nothing, and the document is
 * never edited.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { CoherenceOutcome, DraftsmithApi, ScoreOutcome } from '../../../extension/host/api';
import type { CorpusScores } from '../../../extension/protocol';
import { closeWithoutSaving, openUntitled, withSetting } from './helpers';
import type { TestCase } from './runner';
import { toPanel } from '../../../extension/panelViews';

const run = promisify(execFile);

// Five sentences with no noun or verb in common, so each aligns with exactly one source sentence.
const SOURCE_SENTENCES = [
  'The council approved a new bridge over the river.',
  'Engineers will pour concrete for the towers in spring.',
  'Farmers sell vegetables at the market on Saturdays.',
  'The library opens a reading room for children.',
  'Musicians perform concerts in the park every summer.',
];
const SOURCE = SOURCE_SENTENCES.join(' ');

const REFERENCE = `The town reopened its footbridge on Saturday after two years of repairs. Hundreds of residents
walked across the new deck in light rain. The project cost four million dollars, most of it from a
regional grant. Shop owners hope that customers will now return on foot.`;
const HYPOTHESIS = `The town reopened the footbridge on Saturday. Residents walked across the deck in the rain.
The bridge cost four million dollars, paid mostly by a grant. Shops hope customers return.`;

function describe(outcome: ScoreOutcome | CoherenceOutcome): string {
  return 'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind;
}

/** `node dist/cli.js score --document --json` on the two texts, as a user would run it. */
async function cliScores(
  extensionPath: string,
  reference: string,
  hypothesis: string,
  extra: string[] = [],
): Promise<CorpusScores & { signatures: { BLEU: string; ROUGE: string } }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'draftsmith-score-'));
  try {
    const ref = path.join(dir, 'ref.txt');
    const hyp = path.join(dir, 'hyp.txt');
    await writeFile(ref, reference, 'utf8');
    await writeFile(hyp, hypothesis, 'utf8');
    // The extension host's own runtime: node under code-server, Electron-as-node under desktop VS Code.
    const { stdout } = await run(
      process.execPath,
      [
        path.join(extensionPath, 'dist', 'cli.js'),
        'score',
        '--document',
        '--ref',
        ref,
        '--hyp',
        hyp,
        '--json',
        ...extra,
      ],
      { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return JSON.parse(stdout) as CorpusScores & { signatures: { BLEU: string; ROUGE: string } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function close(actual: number | null, expected: number | null, what: string): void {
  if (actual === null || expected === null) {
    assert.equal(actual, expected, what);
    return;
  }
  assert.ok(Math.abs(actual - expected) <= 1e-9, `${what}: the panel has ${actual}, the CLI ${expected}`);
}

export function scoreTests(api: DraftsmithApi, extensionPath: string): TestCase[] {
  return [
    {
      name: 'Score Draft shows the same numbers as `draftsmith score --document --json` and leaves the document as it was',
      async run() {
        const editor = await openUntitled(HYPOTHESIS, 'plaintext');
        editor.selection = new vscode.Selection(0, 0, 0, 0); // empty selection: the whole document
        const before = editor.document.getText();
        const outcome = await api.scoreDraft(editor, { text: REFERENCE, name: 'reference.txt' });
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        assert.equal(editor.document.getText(), before, 'Score Draft edited the document');

        const result = outcome.result;
        assert.equal(result.referenceName, 'reference.txt');
        assert.ok(result.sentences.length >= 3, `expected the draft's sentences, got ${result.sentences.length}`);
        const cli = await cliScores(extensionPath, REFERENCE, before);
        const s = result.scores;
        close(s.bleu.score, cli.bleu.score, 'BLEU');
        close(s.rouge.rouge1.f1, cli.rouge.rouge1.f1, 'ROUGE-1 F1');
        close(s.rouge.rougeL.f1, cli.rouge.rougeL.f1, 'ROUGE-L F1');
        close(s.coherenceL, cli.coherenceL, 'coherence L');
        close(s.diversity.diversity, cli.diversity.diversity, 'diversity');
        assert.ok(s.bleu.score > 0 && s.rouge.rouge1.f1 > 0, 'a paraphrase of the reference should score above 0');
        console.log(
          `    BLEU ${s.bleu.score.toFixed(2)}, ROUGE-1 ${(s.rouge.rouge1.f1 * 100).toFixed(2)}, ROUGE-L ${(s.rouge.rougeL.f1 * 100).toFixed(2)}`,
        );

        // The signatures the CLI prints for the same texts (every draftsmith.score.* setting at its default).
        assert.equal(result.signatures.BLEU, cli.signatures.BLEU);
        assert.equal(result.signatures.BLEU, 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0');
        assert.equal(result.signatures.ROUGE, cli.signatures.ROUGE);
        assert.equal(result.signatures.chrF, undefined, 'chrF is off by default');

        // The panel is open and shows this result, signatures included.
        assert.ok(api.insights.isOpen(), 'the insights panel is not open');
        assert.deepEqual(api.insights.lastMessage(), toPanel(result));
        assert.ok(
          JSON.stringify(api.insights.lastMessage()).includes(cli.signatures.BLEU),
          'the panel message lacks the BLEU signature',
        );
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: "Score Draft shows the non-word rate (on by default) and, with draftsmith.score.perplexity, the story model's perplexity: the CLI's --nonwords --perplexity numbers",
      async run() {
        const draft = `${HYPOTHESIS} Shopers were very hapy.`;
        const editor = await openUntitled(draft, 'plaintext');
        editor.selection = new vscode.Selection(0, 0, 0, 0);
        const plain = await api.scoreDraft(editor, { text: REFERENCE, name: 'reference.txt' });
        assert.equal(plain.kind, 'shown', describe(plain));
        if (plain.kind !== 'shown') return;
        assert.deepEqual(plain.result.scores.nonwords?.examples, ['Shopers', 'hapy']);
        assert.equal(plain.result.scores.perplexity, undefined, 'perplexity is off by default');
        const outcome = await withSetting('score.perplexity', true, () =>
          api.scoreDraft(editor, { text: REFERENCE, name: 'reference.txt' }),
        );
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        const cli = (await cliScores(extensionPath, REFERENCE, draft, [
          '--nonwords',
          '--perplexity',
        ])) as CorpusScores & { perplexity: { perWord: number; perToken: number } };
        const s = outcome.result.scores;
        close(s.nonwords?.rate ?? null, cli.nonwords?.rate ?? null, 'non-word rate');
        // The same model and tokens; onnxruntime's sums may differ in the last bits with another thread count.
        const ppl = s.perplexity?.perWord ?? Number.NaN;
        assert.ok(
          Math.abs(ppl - cli.perplexity.perWord) <= 1e-6 * cli.perplexity.perWord,
          `perplexity: the panel has ${ppl}, the CLI ${cli.perplexity.perWord}`,
        );
        assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
        console.log(
          `    non-words ${s.nonwords?.nonwords} / ${s.nonwords?.tokens}, perplexity ${s.perplexity?.perWord.toFixed(1)} per word in ${Math.round(outcome.result.elapsedMs)} ms`,
        );
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: "Score Draft with draftsmith.score.bertscore.model (an encoder folder): BERTScore and its signature, the CLI's --bertscore-model numbers",
      async run() {
        const editor = await openUntitled(HYPOTHESIS, 'plaintext');
        editor.selection = new vscode.Selection(0, 0, 0, 0);
        // The tiny all-MiniLM-L6-v2 of the Hub fixtures, as a folder: no download.
        const encoder = path.join(extensionPath, 'test', 'fixtures', 'hub', 'fixtures', 'all-MiniLM-L6-v2');
        const outcome = await withSetting('score.bertscore.model', encoder, () =>
          api.scoreDraft(editor, { text: REFERENCE, name: 'reference.txt' }),
        );
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        const b = outcome.result.scores.bertscore;
        assert.ok(b, 'no BERTScore with the setting on');
        assert.equal(outcome.result.signatures.BERTScore, b.signature);
        assert.match(b.signature, /\|layer:2\|idf:no\|rescale:no\|dtype:fp32\|/);
        const cli = await cliScores(extensionPath, REFERENCE, HYPOTHESIS, ['--bertscore-model', encoder]);
        const f1 = cli.bertscore?.f1 ?? Number.NaN;
        assert.ok(Math.abs(b.f1 - f1) <= 1e-6, `BERTScore F1: the panel has ${b.f1}, the CLI ${f1}`);
        assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
        console.log(`    BERTScore F1 ${b.f1.toFixed(4)} in ${Math.round(outcome.result.elapsedMs)} ms`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Check Coherence on the source sentences in reverse order: L > 0 and output i′ aligns with input n−1−i′',
      async run() {
        const editor = await openUntitled([...SOURCE_SENTENCES].reverse().join(' '), 'plaintext');
        const before = editor.document.getText();
        const outcome = await api.checkCoherence(editor, { text: SOURCE, name: 'source.txt' });
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        assert.equal(editor.document.getText(), before, 'Check Coherence edited the document');
        const c = outcome.result.coherence;
        const n = SOURCE_SENTENCES.length;
        assert.equal(c.inputSentences.length, n, `source sentences: ${JSON.stringify(c.inputSentences)}`);
        assert.equal(c.outputSentences.length, n, `draft sentences: ${JSON.stringify(c.outputSentences)}`);
        assert.deepEqual(
          c.alignment.map((a) => [a.output, a.input]),
          c.alignment.map((_, i) => [i, n - 1 - i]),
        );
        assert.ok(c.L !== null && c.L > 0, `L = ${c.L}`);
        assert.deepEqual(api.insights.lastMessage(), toPanel(outcome.result));
        console.log(`    reversed: L = ${c.L} over ${c.pairs} pairs`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Check Coherence on the source sentences in the same order: L = 0',
      async run() {
        const editor = await openUntitled(SOURCE, 'plaintext');
        const outcome = await api.checkCoherence(editor, { text: SOURCE, name: 'source.txt' });
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        const c = outcome.result.coherence;
        assert.deepEqual(
          c.alignment.map((a) => a.input),
          SOURCE_SENTENCES.map((_, i) => i),
        );
        assert.equal(c.L, 0);
        assert.equal(editor.document.getText(), SOURCE);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'a selection is the draft: one selected sentence has no coherence L',
      async run() {
        const editor = await openUntitled(SOURCE_SENTENCES.join('\n'), 'plaintext');
        editor.selection = new vscode.Selection(1, 0, 1, SOURCE_SENTENCES[1].length);
        const outcome = await api.checkCoherence(editor, { text: SOURCE, name: 'source.txt' });
        assert.equal(outcome.kind, 'shown', describe(outcome));
        if (outcome.kind !== 'shown') return;
        const c = outcome.result.coherence;
        assert.deepEqual(
          c.outputSentences.map((s) => s.trim()),
          [SOURCE_SENTENCES[1]],
        );
        assert.equal(c.L, null);
        assert.match(outcome.result.outputName, /line 2$/);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'an empty draft or an empty reference gives a clear message and changes neither the panel nor the document',
      async run() {
        const shownBefore = api.insights.lastMessage();
        const openBefore = api.insights.isOpen();

        const blank = await openUntitled('  \n\t\n ', 'plaintext');
        const score = await api.scoreDraft(blank, { text: REFERENCE, name: 'reference.txt' });
        assert.equal(score.kind, 'empty', describe(score));
        assert.match(describe(score), /nothing to score/);
        const coherence = await api.checkCoherence(blank, { text: SOURCE, name: 'source.txt' });
        assert.equal(coherence.kind, 'empty', describe(coherence));
        assert.match(describe(coherence), /nothing to check/);
        assert.equal(blank.document.getText(), '  \n\t\n ');
        await closeWithoutSaving(blank.document);

        const draft = await openUntitled(HYPOTHESIS, 'plaintext');
        const noReference = await api.scoreDraft(draft, { text: ' \n ', name: 'blank.txt' });
        assert.equal(noReference.kind, 'empty', describe(noReference));
        assert.match(describe(noReference), /reference “blank\.txt” is empty/);
        const noSource = await api.checkCoherence(draft, { text: '', name: 'blank.txt' });
        assert.equal(noSource.kind, 'empty', describe(noSource));
        assert.match(describe(noSource), /source “blank\.txt” is empty/);
        assert.equal(draft.document.getText(), HYPOTHESIS);
        await closeWithoutSaving(draft.document);

        assert.equal(api.insights.lastMessage(), shownBefore, 'the panel was sent something');
        assert.equal(api.insights.isOpen(), openBefore);
      },
    },
    {
      name: 'Check Coherence and Score Draft on a Markdown document: sentences from its prose only, and the result says what was skipped',
      async run() {
        const markdown = `# Bridge\n\n${SOURCE_SENTENCES.slice(0, 2).join(' ')}\n\n\`\`\`sh\ncodeword --build\n\`\`\`\n\n| a | b |\n|---|---|\n| tablecell | x |\n\n- ${SOURCE_SENTENCES.slice(2).join('\n- ')}\n`;
        const editor = await openUntitled(markdown); // a Markdown document
        const coherence = await api.checkCoherence(editor, { text: SOURCE, name: 'source.txt' });
        assert.equal(coherence.kind, 'shown', describe(coherence));
        if (coherence.kind !== 'shown') return;
        const c = coherence.result.coherence;
        assert.ok(
          c.outputSentences.every((t) => !/codeword|tablecell|[|`#]/.test(t)),
          JSON.stringify(c.outputSentences),
        );
        assert.deepEqual(c.outputSentences, ['Bridge', ...SOURCE_SENTENCES]);
        assert.ok(
          coherence.result.readNotes?.some((n) =>
            /was read as Markdown, prose only: skipped 1 code block and 1 table/.test(n),
          ),
          JSON.stringify(coherence.result.readNotes),
        );
        assert.deepEqual(api.insights.lastMessage(), toPanel(coherence.result));
        const score = await api.scoreDraft(editor, { text: SOURCE, name: 'source.txt' });
        assert.equal(score.kind, 'shown', describe(score));
        if (score.kind !== 'shown') return;
        assert.ok(score.result.sentences.every((t) => !/codeword|tablecell/.test(t.text)));
        assert.ok(score.result.readNotes?.some((n) => /skipped 1 code block and 1 table/.test(n)));
        assert.equal(editor.document.getText(), markdown);
        await closeWithoutSaving(editor.document);
      },
    },
  ];
}
