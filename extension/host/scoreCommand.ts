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
import { NamedText, pickOtherText, rangeName } from './pickText';
import { toPanel } from '../panelViews';
import { readScoreOptions } from './settings';

export type { NamedText };

type CompareRequest = ScoreRequest | CoherenceRequest;

export type CompareOutcome<R extends CompareRequest> =
  | { kind: 'shown'; result: ResultFor<R> }
  | { kind: 'empty'; message: string }
  | Failure;
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
  request(draft: NamedText, other: NamedText): R;
  summary(result: ResultFor<R>): string;
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
  request: (draft, other) => ({
    op: 'score',
    hypothesis: draft.text,
    reference: other.text,
    hypothesisName: draft.name,
    referenceName: other.name,
    // draftsmith.score.*: absent when every setting is at its default (the request as before).
    ...withOptions(readScoreOptions()),
  }),
  summary: (r) =>
    `BLEU ${r.scores.bleu.score.toFixed(2)}${r.scores.chrf ? `, ${r.scores.chrf.name} ${r.scores.chrf.score.toFixed(2)}` : ''}, ROUGE-1 ${pct(r.scores.rouge.rouge1.f1)}, ROUGE-L ${pct(r.scores.rouge.rougeL.f1)}, ` +
    `${r.sentences.length} sentences in ${Math.round(r.elapsedMs)} ms`,
};

const COHERENCE: Comparison<CoherenceRequest> = {
  what: 'coherence',
  role: 'source',
  title: 'Draftsmith: Check Coherence',
  progressTitle: 'Draftsmith: Checking coherence…',
  emptyDraft: COHERENCE_EMPTY_DRAFT,
  cancelled: 'Draftsmith: coherence check cancelled.',
  request: (draft, other) => ({ op: 'coherence', output: draft.text, source: other.text, outputName: draft.name, sourceName: other.name }),
  summary: (r) => `L ${r.coherence.L ?? 'undefined'} over ${r.coherence.pairs} pairs in ${Math.round(r.elapsedMs)} ms`,
};

export function scoreDraft(ctx: Ctx, editor: vscode.TextEditor, reference: NamedText, token?: vscode.CancellationToken): Promise<ScoreOutcome> {
  return compare(ctx, SCORE, editor, reference, token);
}

export function checkCoherence(ctx: Ctx, editor: vscode.TextEditor, source: NamedText, token?: vscode.CancellationToken): Promise<CoherenceOutcome> {
  return compare(ctx, COHERENCE, editor, source, token);
}

/** The commands: the active editor's draft against a text the user picks. */
export function scoreDraftCommand(ctx: Ctx): Promise<ScoreOutcome> {
  return runOnActiveEditor(ctx, SCORE);
}

export function checkCoherenceCommand(ctx: Ctx): Promise<CoherenceOutcome> {
  return runOnActiveEditor(ctx, COHERENCE);
}

async function runOnActiveEditor<R extends CompareRequest>(ctx: Ctx, spec: Comparison<R>): Promise<CompareOutcome<R>> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    const message = `Draftsmith: open the draft to ${spec.what === 'score' ? 'score' : 'check'} in a text editor first.`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'error', message };
  }
  // An empty draft is reported before asking for the other text: there is nothing to compare.
  const empty = emptyDraft(spec, draftOf(editor).text);
  if (empty) return empty;
  const picked = await pickOtherText(editor.document, spec.role, spec.title);
  switch (picked.kind) {
    case 'cancelled':
      return picked;
    case 'error':
      void vscode.window.showErrorMessage(picked.message);
      return picked;
    case 'picked':
      return compare(ctx, spec, editor, picked.other);
  }
}

async function compare<R extends CompareRequest>(
  ctx: Ctx,
  spec: Comparison<R>,
  editor: vscode.TextEditor,
  other: NamedText,
  token?: vscode.CancellationToken,
): Promise<CompareOutcome<R>> {
  const draft = draftOf(editor);
  const empty = emptyDraft(spec, draft.text);
  if (empty) return empty;
  if (other.text.trim().length === 0) {
    const message = `Draftsmith: the ${spec.role} “${other.name}” is empty.`;
    void vscode.window.showErrorMessage(message);
    return { kind: 'empty', message };
  }
  ctx.log.info(`${spec.what}: ${draft.text.length} characters of ${draft.name} against ${other.text.length} of ${other.name}`);

  let result: ResultFor<R>;
  try {
    result = await requestWithProgress(ctx, spec.progressTitle, spec.request(draft, other), token);
  } catch (err) {
    return reportFailure(ctx, spec.what, err, spec.cancelled);
  }
  ctx.log.info(`${spec.what}: ${spec.summary(result)}`);
  ctx.present(toPanel(result), true);
  return { kind: 'shown', result };
}

function draftOf(editor: vscode.TextEditor): NamedText {
  const doc = editor.document;
  const range = sourceRange(editor);
  return { text: doc.getText(range), name: rangeName(doc, range, editor.selection.isEmpty) };
}

function emptyDraft<R extends CompareRequest>(spec: Comparison<R>, text: string): { kind: 'empty'; message: string } | undefined {
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
