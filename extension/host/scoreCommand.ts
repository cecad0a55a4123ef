/**
 * Score Draft and Check Coherence: the draft (the selection, or the whole document) is measured by
 * the engine's metrics against another text (the reference, or the source it should follow), and
 * the result is shown in the insights panel. Neither command edits the document. The commands and
 * the test API share scoreDraft() / checkCoherence().
 */
import * as vscode from 'vscode';
import type { CoherenceRequest, ResultFor, ScoreOptions, ScoreRequest } from '../protocol';
import { Ctx } from './context';
import { sourceRange } from './edits';
import { Failure, reportFailure, requestWithProgress } from './engineProgress';
import { NamedText, namedText, pickOtherText, rangeName } from './pickText';
import { toPanel } from '../panelViews';
import { readScoreOptions } from './settings';

export type { NamedText };

type CompareRequest = ScoreRequest | CoherenceRequest;

export type CompareOutcome<R extends CompareRequest> =
  { kind: 'shown'; result: ResultFor<R> } | { kind: 'empty'; message: string } | Failure;
export type ScoreOutcome = CompareOutcome<ScoreRequest>;
export type CoherenceOutcome = CompareOutcome<CoherenceRequest>;

/** What differs between the two commands; everything else is compare(). */
interface Comparison<R extends CompareRequest> {
  /** Log prefix. */
  readonly what: string;
  /** What the other text is to the user. */
  readonly role: 'reference' | 'source';
  readonly title: string;
  readonly progressTitle: string;
  readonly emptyDraft: string;
  readonly cancelled: string;
  request(draft: NamedText, other: NamedText, second?: NamedText): R;
  summary(result: ResultFor<R>): string;
  /** How Markdown texts were read (what was skipped), for the log. */
  readNotes(result: ResultFor<R>): string[];
}

export const SCORE_EMPTY_DRAFT = 'Draftsmith: nothing to score — the selection (or document) is empty.';
export const COHERENCE_EMPTY_DRAFT = 'Draftsmith: nothing to check — the selection (or document) is empty.';

const SCORE: Comparison<ScoreRequest> = {
  what: 'score',
  role: 'reference',
  title: 'Draftsmith: Score Draft',
  progressTitle: 'Draftsmith: Scoring the draft…',
  emptyDraft: SCORE_EMPTY_DRAFT,
  cancelled: 'Draftsmith: scoring cancelled.',
  request: (draft, other, second) => ({
    op: 'score',
    hypothesis: draft.text,
    reference: other.text,
    hypothesisName: draft.name,
    referenceName: other.name,
    // draftsmith.score.*: absent when every setting is at its default (the request as before).
    ...withOptions(readScoreOptions()),
    ...(second === undefined
      ? {}
      : {
          second: { hypothesis: second.text, name: second.name, ...(second.format ? { format: second.format } : {}) },
        }),
    // Markdown texts are scored on their prose only.
    ...(draft.format ? { hypothesisFormat: draft.format } : {}),
    ...(other.format ? { referenceFormat: other.format } : {}),
  }),
  summary: (r) =>
    `BLEU ` +
    `${r.scores.bleu.score.toFixed(2)}` +
    `${r.scores.chrf ? `, ${r.scores.chrf.name} ${r.scores.chrf.score.toFixed(2)}` : ''}, ` +
    `ROUGE-1 ${pct(r.scores.rouge.rouge1.f1)}, ROUGE-L ${pct(r.scores.rouge.rougeL.f1)}, ` +
    `${r.sentences.length} sentences in ${Math.round(r.elapsedMs)} ms` +
    (r.comparison === undefined
      ? ''
      : `; against ${r.comparison.secondName} over ${r.comparison.segments} segments (${r.comparison.segmentation}): ` +
        r.comparison.metrics
          .map(
            (m) =>
              `${m.metric} ${m.first.score.toFixed(2)} vs ${m.second.score.toFixed(2)}, p = ` +
              `${m.second.pValue.toFixed(4)}`,
          )
          .join('; ')),
  readNotes: (r) => r.readNotes ?? [],
};

const COHERENCE: Comparison<CoherenceRequest> = {
  what: 'coherence',
  role: 'source',
  title: 'Draftsmith: Check Coherence',
  progressTitle: 'Draftsmith: Checking coherence…',
  emptyDraft: COHERENCE_EMPTY_DRAFT,
  cancelled: 'Draftsmith: coherence check cancelled.',
  request: (draft, other) => ({
    op: 'coherence',
    output: draft.text,
    source: other.text,
    outputName: draft.name,
    sourceName: other.name,
    ...(draft.format ? { outputFormat: draft.format } : {}),
    ...(other.format ? { sourceFormat: other.format } : {}),
  }),
  summary: (r) => `L ${r.coherence.L ?? 'undefined'} over ${r.coherence.pairs} pairs in ${Math.round(r.elapsedMs)} ms`,
  readNotes: (r) => r.readNotes ?? [],
};

export function scoreDraft(
  ctx: Ctx,
  editor: vscode.TextEditor,
  reference: NamedText,
  token?: vscode.CancellationToken,
): Promise<ScoreOutcome> {
  return compare(ctx, SCORE, editor, reference, token);
}

export const TWO_SELECTIONS_NEEDED =
  'Draftsmith: to score two drafts, select both (hold Alt and select the second), or use Compare Two Drafts… ' +
  'to pick the second from another editor.';

/** Score Draft with two drafts against one reference, the paired bootstrap between them in the panel:
 * the editor's selection (or document) and `second`; with no `second`, the editor's two selections. */
export async function scoreTwoDrafts(
  ctx: Ctx,
  editor: vscode.TextEditor,
  second: NamedText | undefined,
  reference: NamedText,
  token?: vscode.CancellationToken,
): Promise<ScoreOutcome> {
  if (second !== undefined) return compare(ctx, SCORE, editor, reference, token, { second });
  const two = twoSelections(editor);
  if (!two) {
    void vscode.window.showErrorMessage(TWO_SELECTIONS_NEEDED);
    return { kind: 'error', message: TWO_SELECTIONS_NEEDED };
  }
  return compare(ctx, SCORE, editor, reference, token, { draft: two[0], second: two[1] });
}

export function checkCoherence(
  ctx: Ctx,
  editor: vscode.TextEditor,
  source: NamedText,
  token?: vscode.CancellationToken,
): Promise<CoherenceOutcome> {
  return compare(ctx, COHERENCE, editor, source, token);
}

/** The commands: the active editor's draft against a text the user picks. */
export function scoreDraftCommand(ctx: Ctx): Promise<ScoreOutcome> {
  // Two selections (Alt+click, or Add Selection): two drafts of the same text, compared.
  const editor = vscode.window.activeTextEditor;
  const two = editor ? twoSelections(editor) : undefined;
  if (editor && two) return pickAndCompareTwo(ctx, editor, two[0], two[1]);
  return runOnActiveEditor(ctx, SCORE);
}

/** Draftsmith: Compare Two Drafts…: the active editor's draft (its selection or document) and a second
 * draft (another open document or a file, or the editor's second selection), then the reference. */
export async function compareDraftsCommand(ctx: Ctx): Promise<ScoreOutcome> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    const message = 'Draftsmith: open the first draft in a text editor first.';
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  const two = twoSelections(editor);
  if (two) return pickAndCompareTwo(ctx, editor, two[0], two[1]);
  const first = draftOf(editor);
  const empty = emptyDraft(SCORE, first.text);
  if (empty) return empty;
  const second = await pickOtherText(
    editor.document,
    'second draft',
    'Draftsmith: Compare Two Drafts (1/2: the second draft)',
  );
  if (second.kind !== 'picked') return second;
  const reference = await pickOtherText(
    editor.document,
    'reference',
    'Draftsmith: Compare Two Drafts (2/2: the reference)',
  );
  if (reference.kind !== 'picked') return reference;
  return compare(ctx, SCORE, editor, reference.other, undefined, { draft: first, second: second.other });
}

async function pickAndCompareTwo(
  ctx: Ctx,
  editor: vscode.TextEditor,
  first: NamedText,
  second: NamedText,
): Promise<ScoreOutcome> {
  const picked = await pickOtherText(
    editor.document,
    'reference',
    `Draftsmith: Score Two Drafts (${first.name} and ${second.name})`,
  );
  if (picked.kind !== 'picked') return picked;
  return compare(ctx, SCORE, editor, picked.other, undefined, { draft: first, second });
}

/** The editor's first two non-empty selections in document order, as drafts; undefined unless there are exactly two. */
export function twoSelections(editor: vscode.TextEditor): [NamedText, NamedText] | undefined {
  const ranges = editor.selections.filter((s) => !s.isEmpty).sort((x, y) => x.start.compareTo(y.start));
  if (ranges.length !== 2) return undefined;
  const doc = editor.document;
  const names = ranges.map((r) => rangeName(doc, r, false));
  if (names[0] === names[1])
    names.forEach((n, i) => {
      names[i] = `${n} (${i === 0 ? 'first' : 'second'} selection)`;
    });
  return [namedText(doc, doc.getText(ranges[0]), names[0]), namedText(doc, doc.getText(ranges[1]), names[1])];
}

export function checkCoherenceCommand(ctx: Ctx): Promise<CoherenceOutcome> {
  return runOnActiveEditor(ctx, COHERENCE);
}

async function runOnActiveEditor<R extends CompareRequest>(ctx: Ctx, spec: Comparison<R>): Promise<CompareOutcome<R>> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    const message =
      `Draftsmith: open the draft to ` + `${spec.what === 'score' ? 'score' : 'check'} in a text ` + `editor first.`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  // An empty draft is reported before asking for the other text: there is nothing to compare.
  const empty = emptyDraft(spec, draftOf(editor).text);
  if (empty) return empty;
  const picked = await pickOtherText(editor.document, spec.role, spec.title);
  if (picked.kind !== 'picked') return picked;
  return compare(ctx, spec, editor, picked.other);
}

async function compare<R extends CompareRequest>(
  ctx: Ctx,
  spec: Comparison<R>,
  editor: vscode.TextEditor,
  other: NamedText,
  token?: vscode.CancellationToken,
  two: { draft?: NamedText; second?: NamedText } = {},
): Promise<CompareOutcome<R>> {
  const draft = two.draft ?? draftOf(editor);
  const empty = emptyDraft(spec, draft.text);
  if (empty) return empty;
  if (two.second !== undefined && two.second.text.trim().length === 0) {
    const message = `Draftsmith: the second draft “${two.second.name}” is empty.`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'empty', message };
  }
  if (other.text.trim().length === 0) {
    const message = `Draftsmith: the ${spec.role} “${other.name}” is empty.`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'empty', message };
  }
  ctx.log.info(
    `${spec.what}: ${draft.text.length} characters of ` +
      `${draft.name}${two.second ? ` and ${two.second.text.length} of ${two.second.name}` : ''} against ` +
      `${other.text.length} of ${other.name}`,
  );

  let result: ResultFor<R>;
  try {
    result = await requestWithProgress(ctx, spec.progressTitle, spec.request(draft, other, two.second), token);
  } catch (err) {
    return reportFailure(ctx, spec.what, err, spec.cancelled);
  }
  ctx.log.info(`${spec.what}: ${spec.summary(result)}`);
  for (const note of spec.readNotes(result)) ctx.log.info(`${spec.what}: ${note}`);
  ctx.present(toPanel(result), true);
  return { kind: 'shown', result };
}

function draftOf(editor: vscode.TextEditor): NamedText {
  const doc = editor.document;
  const range = sourceRange(editor);
  return namedText(doc, doc.getText(range), rangeName(doc, range, editor.selection.isEmpty));
}

function emptyDraft<R extends CompareRequest>(
  spec: Comparison<R>,
  text: string,
): { kind: 'empty'; message: string } | undefined {
  if (text.trim().length > 0) return undefined;
  void vscode.window.showErrorMessage(spec.emptyDraft);
  return { kind: 'empty', message: spec.emptyDraft };
}

function withOptions(options: ScoreOptions): { options?: ScoreOptions } {
  return Object.keys(options).length > 0 ? { options } : {};
}

function pct(f1: number): string {
  return `${(f1 * 100).toFixed(2)}`;
}
