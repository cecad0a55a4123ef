/**
 * In-host tests of long Markdown documents: Summarize Document reads every section (code
 * left out) and inserts the summary of the whole as one edit; a long plain text is read whole, in
 * sections by paragraphs, and a long .txt file whole by the synopsis too; a Cancel mid-document leaves the
 * document unchanged; Summarize Sections puts one summary line under each heading as one edit that
 * one Undo removes.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DraftsmithApi, SummarizeOutcome, SummarizeSectionsOutcome } from '../../../extension/host/api';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeWithoutSaving, openUntitled, sleep, waitFor, withSetting } from './helpers';
import type { TestCase } from './runner';

const describe = (o: SummarizeOutcome | SummarizeSectionsOutcome): string =>
  'message' in o ? `${o.kind}: ${o.message}` : o.kind;

/** A long Markdown document: `n` sections, each the sample's prose and a code block no model may read. */
function longMarkdown(sample: string, n: number): string {
  const parts = ['---\ntitle: A long report\n---\n', '# A long report\n'];
  for (let i = 1; i <= n; i++)
    parts.push(`## Part ${i}\n\n${sample.trim()}\n\n\`\`\`js\nconst neverProse${i} = true;\n\`\`\`\n`);
  return parts.join('\n');
}

export function sectionsTests(api: DraftsmithApi, sample: string): TestCase[] {
  return [
    {
      name: 'Summarize Document reads a long Markdown document section by section and inserts one summary (one Undo removes it)',
      timeoutMs: 300_000,
      async run() {
        const editor = await openUntitled(longMarkdown(sample, 20));
        const original = editor.document.getText();
        const outcome = await api.summarize(editor);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const sections = outcome.result.sections ?? [];
        // The title's section has no prose; the 20 parts each have a summary.
        assert.equal(sections.length, 21);
        assert.equal(sections.filter((s) => s.status === 'summarized').length, 20);
        assert.ok(sections.some((s) => s.fedOverall));
        assert.ok(!outcome.summary.includes('neverProse'), outcome.summary);
        assert.ok(
          outcome.notices.some((n) => /20 code blocks and the front matter were not read as prose/.test(n)),
          outcome.notices.join('\n'),
        );
        assert.equal(editor.document.getText(), `${original}\n\nSummary: ${outcome.summary}\n`);
        // The progress notification counted the sections as they were done, up to all 20 with prose.
        const shown = api.progressShown().filter((m) => /^Sections done: \d+ \/ \d+/.test(m));
        assert.ok(shown.length >= 2, `progress shown: ${JSON.stringify(api.progressShown())}`);
        const counts = shown.map((m) => (/(\d+) \/ (\d+)/.exec(m) ?? []).slice(1).map(Number));
        assert.ok(
          counts.every(([k, n], i) => n === 20 && k <= n && (i === 0 || k >= counts[i - 1][0])),
          JSON.stringify(shown),
        );
        assert.deepEqual(counts.at(-1), [20, 20], `the last progress message: ${shown.at(-1)}`);
        await vscode.window.showTextDocument(editor.document, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(editor.document.getText(), original);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Summarize Document reads a long plain-text document whole, in sections by paragraphs, to its last paragraph',
      timeoutMs: 300_000,
      async run() {
        // Past the 40,000 characters a plain text was once cut at: each paragraph numbered, so the last is known.
        const paragraphs: string[] = [];
        for (let i = 1; paragraphs.join('\n\n').length < 90_000; i++)
          paragraphs.push(`Paragraph ${i} of the report. ${sample.trim().replace(/\s*\n\s*/g, ' ')}`);
        const text = paragraphs.join('\n\n') + '\n';
        const editor = await openUntitled(text, 'plaintext');
        const outcome = await api.summarize(editor);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const r = outcome.result;
        assert.equal(r.truncated, false);
        assert.equal(r.usedChars, text.length);
        const sections = r.sections ?? [];
        assert.ok(sections.length > 1, `${sections.length} sections`);
        // The sections tile the document, at paragraph starts, and every one was read.
        assert.equal(sections[0].start, 0);
        assert.equal(sections.at(-1)?.end, text.length);
        for (const [k, s] of sections.entries()) {
          if (k > 0) assert.equal(s.start, sections[k - 1].end);
          assert.match(text.slice(s.start), /^\s*Paragraph \d+ of the report\./);
          assert.notEqual(s.status, 'no-prose');
          assert.notEqual(s.status, 'timed-out');
        }
        const last = `Paragraph ${paragraphs.length} of the report.`;
        assert.ok(sections.at(-1)!.start <= text.indexOf(last), 'the last paragraph is in the last section');
        assert.ok(!outcome.notices.some((n) => /covers the first|read only/.test(n)), outcome.notices.join('\n'));
        const shown = api.progressShown().filter((m) => /^Sections done: \d+ \/ \d+/.test(m));
        assert.match(shown.at(-1) ?? '', new RegExp(`^Sections done: ${sections.length} / ${sections.length}`));
        assert.equal(editor.document.getText(), `${text}\n\nSummary: ${outcome.summary}\n`);
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Summarize Document (synopsis) reads a long .txt file whole, past the 32 windows it once stopped at',
      timeoutMs: 300_000,
      async run() {
        // A file on disk, opened as the writer would (plain text), longer than 32 of the model's windows.
        const paragraphs: string[] = [];
        for (let i = 1; paragraphs.join('\n\n').length < 60_000; i++)
          paragraphs.push(`Paragraph ${i} of the report. ${sample.trim().replace(/\s*\n\s*/g, ' ')}`);
        paragraphs.push('The last paragraph names Lastford, whose new bridge opens in June.');
        const text = paragraphs.join('\n\n') + '\n';
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'draftsmith-long-'));
        const file = path.join(dir, 'report.txt');
        await fs.writeFile(file, text);
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
        assert.equal(doc.languageId, 'plaintext');
        const editor = await vscode.window.showTextDocument(doc, { preview: false });
        const outcome = await withSetting('summarize.mode', 'synopsis', () => api.summarize(editor));
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        const r = outcome.result;
        assert.equal(r.mode, 'synopsis');
        assert.ok(r.stats.usedInputTokens > 32 * (r.inputLimit ?? 0), `${r.stats.usedInputTokens} tokens`);
        assert.equal(r.truncated, false);
        assert.equal(r.usedChars, text.length);
        // The last paragraph was read: its words carry attention.
        const last = text.indexOf('Lastford');
        assert.ok(
          r.tokens.some((t) => t.start >= last && t.weight > 0),
          'the last paragraph has no attention',
        );
        assert.ok(!outcome.notices.some((n) => /covers the first|read only/.test(n)), outcome.notices.join('\n'));
        await closeWithoutSaving(editor.document);
        await fs.rm(dir, { recursive: true, force: true });
      },
    },
    {
      name: 'a Cancel in the middle of a long Markdown document leaves it unchanged',
      timeoutMs: 300_000,
      async run() {
        const editor = await openUntitled(longMarkdown(sample, 150));
        const before = editor.document.getText();
        const cancel = new vscode.CancellationTokenSource();
        const pending = api.summarize(editor, cancel.token);
        await waitFor(() => api.engine.inFlight() > 0, 'the request to reach the engine');
        await sleep(200);
        cancel.cancel();
        const outcome = await pending;
        assert.equal(outcome.kind, 'cancelled', describe(outcome));
        await sleep(500); // a late result must not be inserted either
        assert.equal(editor.document.getText(), before);
        cancel.dispose();
        await closeWithoutSaving(editor.document);
      },
    },
    {
      name: 'Summarize Sections puts a summary line under each heading as one edit that one Undo removes',
      timeoutMs: 300_000,
      async run() {
        const editor = await openUntitled(longMarkdown(sample, 5));
        const original = editor.document.getText();
        const outcome = await api.summarizeSections(editor);
        assert.equal(outcome.kind, 'inserted', describe(outcome));
        if (outcome.kind !== 'inserted') return;
        assert.equal(outcome.lines, 5);
        const text = editor.document.getText();
        for (let i = 1; i <= 5; i++)
          assert.match(text, new RegExp(`## Part ${i}\\n\\n> Summary: \\S[^\\n]*\\n\\n`), `Part ${i}`);
        // The title has no prose: nothing under it.
        assert.match(text, /# A long report\n\n## Part 1/);
        await vscode.window.showTextDocument(editor.document, { preview: false });
        await vscode.commands.executeCommand('undo');
        assert.equal(editor.document.getText(), original);
        await closeWithoutSaving(editor.document);
      },
    },
  ];
}
