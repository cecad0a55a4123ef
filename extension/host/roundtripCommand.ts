/**
 * Round-Trip Paragraph: the selection (or the paragraph at the cursor) is encoded into one vector and
 * decoded back by the engine, under a cancellable progress notification. The reconstruction opens in
 * a diff beside the original, both read-only virtual documents with one sentence per line; nothing in
 * the document changes unless the user applies it (the notification's Apply button, the diff editor's
 * title button, or Draftsmith: Apply Round-Trip Reconstruction). Apply replaces the part the model
 * read as ONE undoable edit, and refuses when the document changed since the request was sent.
 * The command and the test API share roundTrip().
 */
import * as vscode from 'vscode';
import type { RoundTripResult } from '../protocol';
import {
  describeSkippedList,
  formatOf,
  documentSpan,
  holdsMarkup,
  proseBlockAt,
  type CompactText,
} from '../engine/public';
import { Ctx } from './context';
import { generate, type Ended, type GeneratingCommand, type Run } from './commandTemplate';
import { paragraphAt } from './edits';
import { documentName } from './pickText';
import { showSettingNotice } from './notices';
import { ApplyOutcome, PendingRoundTrip, ROUNDTRIP_SCHEME } from './roundtripDocuments';
import { readDecodingGuards, readRoundTripOptions, ROUNDTRIP_MAX_SENTENCES_SETTING } from './settings';
import { toPanel } from '../panelViews';

export type { ApplyOutcome, PendingRoundTrip };

export const ROUNDTRIP_EMPTY =
  'Draftsmith: nothing to round-trip — put the cursor in a paragraph or select one (this line is empty).';
export const ROUNDTRIP_CANCELLED = 'Draftsmith: round trip cancelled.';
export const ROUNDTRIP_CHANGED =
  'Draftsmith: the document changed since the round trip, so the reconstruction was not applied to your text. ' +
  'Open in New Editor shows it on its own; run Round-Trip Paragraph again to apply one.';
const APPLY = 'Apply';
const SHOW_INSIGHTS = 'Show Insights';

export type RoundTripOutcome =
  /** notices: the information messages shown with it (sentences not read, the 1.5x limit reached). */
  { kind: 'shown'; result: RoundTripResult; pending: PendingRoundTrip; notices: string[] } | Ended;

/** Markdown: the cursor or selection is in code, a table, a heading... not in prose. */
export function roundTripNotProse(what: string, selection: boolean): string {
  return (
    `Draftsmith: nothing to round-trip — ${selection ? 'the selection is' : 'the cursor is in'} ` +
    `${what}, not prose. ` +
    ('In a Markdown document Round-Trip Paragraph rewrites one paragraph or list item: put the cursor in one, ' +
      'or select it.')
  );
}

/** What a Markdown round trip reads: one prose block's compact text, with its map back into the document. */
interface MarkdownSource {
  range: vscode.Range;
  compact: CompactText;
  /** How the document was read, for the panel and the log. */
  notes: string[];
  /** Notes the user is also told in a message (a selection of several blocks, of which one was read). */
  notices: string[];
}

/**
 * Markdown: the one paragraph or list item at the cursor, or the first the selection touches (clipped
 * to it), as the prose the model reads; Apply then replaces only that prose, so list and quote
 * markers, headings, code and tables around it stay as written. A string: the message why not.
 */
function markdownSource(editor: vscode.TextEditor): MarkdownSource | string {
  const doc = editor.document;
  const sel = editor.selection;
  const block = proseBlockAt(doc.getText(), doc.offsetAt(sel.start), doc.offsetAt(sel.end));
  if (block.kind === 'none') return block.what ? roundTripNotProse(block.what, !sel.isEmpty) : ROUNDTRIP_EMPTY;
  const range = new vscode.Range(doc.positionAt(block.span.start), doc.positionAt(block.span.end));
  const lines =
    range.start.line === range.end.line
      ? `line ${range.start.line + 1}`
      : `lines ${range.start.line + 1}–${range.end.line + 1}`;
  const notes = [
    `${documentName(doc)} was read as Markdown: the model read the prose of one paragraph or list item ` +
      `(${lines}), without markup characters or link targets.`,
  ];
  const skipped = describeSkippedList(block.skipped);
  if (skipped) notes.push(`Skipped ${skipped} in the selection: not prose.`);
  const notices: string[] = [];
  if (block.otherBlocks > 0) {
    notices.push(
      `The selection covers ${block.otherBlocks + 1} paragraphs or list items; the model read the first. ` +
        `Round-Trip rewrites one at a time, ` +
        'so that the markup between them stays: select the next one to round-trip it.',
    );
  }
  return { range, compact: block.compact, notes: [...notes, ...notices, ...block.notes], notices };
}

/** The text to round-trip: the selection, or the paragraph at the cursor when nothing is selected. */
function sourceOf(editor: vscode.TextEditor): vscode.Range | undefined {
  const selection = editor.selection;
  if (!selection.isEmpty) return new vscode.Range(selection.start, selection.end);
  return paragraphAt(editor.document, selection.active);
}

/** What Round-Trip reads: the part of the document, the text the model gets, and for Markdown how it maps back. */
interface RoundTripSource {
  range: vscode.Range;
  text: string;
  md: MarkdownSource | undefined;
}

export const ROUNDTRIP: GeneratingCommand<RoundTripSource> = {
  op: 'roundtrip',
  noEditor: 'Draftsmith: open a text document and put the cursor in a paragraph to round-trip it.',
  cancelled: ROUNDTRIP_CANCELLED,
  model: undefined,
  accepts: (editor) => editor.document.uri.scheme !== ROUNDTRIP_SCHEME,
  source(editor) {
    // Markdown is read by the one reader: the model sees one prose block, never code or markup.
    const md = formatOf(editor.document.languageId) === 'markdown' ? markdownSource(editor) : undefined;
    if (typeof md === 'string') return md;
    const range = md ? md.range : sourceOf(editor);
    const text = md ? md.compact.text : range ? editor.document.getText(range) : '';
    return !range || text.trim().length === 0 ? ROUNDTRIP_EMPTY : { range, text, md };
  },
};

export function roundTrip(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<RoundTripOutcome> {
  return generate(ctx, editor, token, ROUNDTRIP, async (run): Promise<RoundTripOutcome> => {
    const { range, text, md } = run.source;
    const doc = editor.document;
    const options = readRoundTripOptions();
    ctx.log.info(
      `roundtrip: ${text.length} characters from ${doc.uri.toString(true)} (model ` +
        `${options.variant ?? 'default'}, at most ${options.maxSentences} sentences)`,
    );

    let result = await run.request('Draftsmith: Round-tripping the paragraph…', {
      op: 'roundtrip',
      text,
      maxSentences: options.maxSentences,
      guards: readDecodingGuards(),
      ...(options.variant ? { variant: options.variant } : {}),
    });
    // Only the part the model read is replaced; unread sentences and surrounding whitespace stay.
    // Markdown: the compact prose's span mapped back into the document (markup around it stays).
    const base = doc.offsetAt(range.start);
    const used = md
      ? documentSpan(md.compact, result.usedStart, result.usedEnd)
      : { start: base + result.usedStart, end: base + result.usedEnd };
    const target = new vscode.Range(doc.positionAt(used.start), doc.positionAt(used.end));
    const markdownNotices: string[] = [];
    if (md) {
      const markup = holdsMarkup(doc.getText(target), text.slice(result.usedStart, result.usedEnd))
        ? [
            'The sentences read hold markup (emphasis, a link, inline code marks): Apply writes the ' +
              'reconstruction in their place as plain text.',
          ]
        : [];
      const notes = [...md.notes, ...markup];
      markdownNotices.push(...[...md.notices, ...markup].map((n) => `Draftsmith: ${n}`));
      result = { ...result, readNotes: notes };
      for (const n of notes) ctx.log.info(`roundtrip: ${n}`);
    }
    // The panel gets the scores and the alignment whether or not the reconstruction is applied.
    ctx.present(toPanel(result), false);

    const id = ctx.roundTrips.newId();
    const { originalUri, reconstructionUri } = ctx.roundTrips.documents(id, result);
    // Applied at most once, whichever of the notification, the title button or the command comes first.
    let applying: Promise<ApplyOutcome> | undefined;
    const pending: PendingRoundTrip = {
      id,
      result,
      originalUri,
      reconstructionUri,
      text: result.reconstruction,
      range: target,
      apply: () => (applying ??= applyRoundTrip(ctx, pending, run.write)),
    };
    const s = result.scores;
    const L = s.coherence.L === null ? 'n/a' : s.coherence.L.toFixed(2);
    const title =
      `Round-Trip (${result.architecture}): original ↔ reconstruction — BLEU ${s.bleu.score.toFixed(1)}, ROUGE-1 ` +
      `${s.rouge1.f1.toFixed(2)}, L ${L}`;
    await vscode.commands.executeCommand('vscode.diff', originalUri, reconstructionUri, title, {
      viewColumn: vscode.ViewColumn.Beside,
      preview: false,
      preserveFocus: true,
    });
    ctx.log.info(
      `roundtrip: ${result.input.length}/${result.totalSentences} sentences in, ${result.output.length} out, ` +
        `stopped: ${result.stopped}; ` +
        (`BLEU ${s.bleu.score.toFixed(2)}, ROUGE-1 ${s.rouge1.f1.toFixed(3)}, ROUGE-2 ` +
          `${s.rouge2.f1.toFixed(3)}, ROUGE-W ${s.rougeW.f1.toFixed(3)}, L ${L}; `) +
        (`encode ${Math.round(result.stats.encodeMs)} ms, decode ${Math.round(result.stats.decodeMs)} ms; diff ` +
          `shown ${Math.round(performance.now() - run.started)} ms after the command`),
    );

    const notices = [...roundTripNotices(result), ...markdownNotices];
    for (const n of notices) {
      if (result.truncatedBy === 'sentences' && n.includes(ROUNDTRIP_MAX_SENTENCES_SETTING))
        showSettingNotice(n, ROUNDTRIP_MAX_SENTENCES_SETTING);
      else void vscode.window.showInformationMessage(n);
    }
    if (result.reconstruction.length === 0) {
      // Nothing to apply: the diff and the panel show what happened.
      return { kind: 'shown', result, pending, notices };
    }
    ctx.roundTrips.add(pending);
    void vscode.window
      .showInformationMessage(
        `Draftsmith: the reconstruction is open beside the original. ${APPLY} replaces the ` +
          `${result.truncatedBy ? 'sentences the model read' : 'paragraph'} with it (one undoable edit).`,
        APPLY,
        SHOW_INSIGHTS,
      )
      .then((choice) => {
        if (choice === APPLY) void pending.apply();
        else if (choice === SHOW_INSIGHTS) ctx.insights.show();
      });
    return { kind: 'shown', result, pending, notices };
  });
}

/** The messages that come with a reconstruction: what was not read, what was cut, what is missing. */
export function roundTripNotices(r: RoundTripResult): string[] {
  const notices: string[] = r.experimental ? [`Draftsmith: ${r.experimental}`] : [];
  if (r.truncatedBy === 'sentences') {
    notices.push(
      `Draftsmith: the model read the first ${r.input.length} of ${r.totalSentences} sentences ` +
        `(${ROUNDTRIP_MAX_SENTENCES_SETTING} is ${r.maxSentences}); ` +
        'the reconstruction, the scores and Apply cover those only.',
    );
  } else if (r.truncatedBy === 'tokens') {
    notices.push(
      `Draftsmith: the model read the first ${r.input.length} of ${r.totalSentences} sentences, ` +
        `${r.stats.usedInputTokens} subwords, as many as it reads at once; ` +
        'the reconstruction, the scores and Apply cover those only.',
    );
  }
  if (r.stopped !== 'end') {
    const limit =
      r.stopped === 'max-sentences' ? `${r.limits.maxSentences} sentences` : `${r.limits.maxTokens} subwords`;
    notices.push(
      `Draftsmith: the reconstruction stopped at the model's limit of 1.5× the input (${limit}) before the ` +
        `model ended the paragraph.`,
    );
  }
  if (r.reconstruction.length === 0)
    notices.push('Draftsmith: the model wrote nothing back for this paragraph, so there is nothing to apply.');
  return notices;
}

/** Replaces the part of the paragraph the model read with the reconstruction, once, as one edit. */
async function applyRoundTrip(
  ctx: Ctx,
  p: PendingRoundTrip,
  write: Run<RoundTripSource, undefined>['write'],
): Promise<ApplyOutcome> {
  if (p.text.length === 0)
    return {
      kind: 'nothing',
      message: 'Draftsmith: the model wrote nothing back for this paragraph, so there is nothing to apply.',
    };
  ctx.roundTrips.remove(p.id);
  const done = await write(p.range, p.text, 'reconstruction', ROUNDTRIP_CHANGED);
  if (done.kind !== 'inserted') return done;
  ctx.log.info(
    `roundtrip: applied the reconstruction (${p.text.length} characters) in place of ` +
      `${p.result.usedEnd - p.result.usedStart}`,
  );
  await closeDiff(p);
  return { kind: 'applied', text: p.text };
}

/** Closes the diff tabs of a round trip that was applied (the reconstruction is in the document now). */
async function closeDiff(p: PendingRoundTrip): Promise<void> {
  const key = p.reconstructionUri.toString();
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === key);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}

/**
 * Draftsmith: Apply Round-Trip Reconstruction: the diff's round trip (the title button passes its URI),
 * else the latest.
 */
export async function applyRoundTripCommand(ctx: Ctx, uri?: unknown): Promise<ApplyOutcome> {
  const from = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
  const p = ctx.roundTrips.find(from);
  if (!p) {
    const message = 'Draftsmith: there is no reconstruction to apply — run Round-Trip Paragraph first.';
    void vscode.window.showErrorMessage(message);
    return { kind: 'nothing', message };
  }
  return p.apply();
}
