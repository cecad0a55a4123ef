/**
 * Expand Topic Words into Essay (PC-SAN): the selected topic words go to the engine under a
 * cancellable progress notification; the user picks one of the essays it writes (a quick pick, or
 * none when there is only one), and the essay is inserted after the selection as one undoable edit.
 * The command and the test API share essay().
 */
import * as vscode from 'vscode';
import { parseTopics } from '../engine/public';
import type { EssayCandidate, EssayResult } from '../protocol';
import { Ctx } from './context';
import { generate, type Ended, type GeneratingCommand } from './commandTemplate';
import { essayInsertion, type Changed } from './edits';
import { modelField } from './chosenModel';
import { describeModelChoice } from '../modelChoice';
import { candidateDetail, candidateLabel, coverageMessage } from './essayText';
import { reportMaxLength } from './notices';
import { MAX_LENGTH_SETTING, readDecodingGuards, readEssayOptions } from './settings';
import { toPanel } from '../panelViews';

export type EssayOutcome =
  /** notices: the information messages shown with the essay (topic words covered, length limit reached). */
  { kind: 'inserted'; essay: string; result: EssayResult; notices: string[] } | Ended | Changed;

/** Chooses one of the essays (an index into `candidates`); undefined inserts nothing. */
export type PickEssay = (candidates: readonly EssayCandidate[]) => Promise<number | undefined>;

const EXAMPLE = '“bee, swallow, geese, flower, frog”';
export const ESSAY_NO_SELECTION =
  `Draftsmith: Select a few topic words (for example ` + `${EXAMPLE}), then run Expand Topic Words into Essay.`;
export const ESSAY_NO_WORDS =
  `Draftsmith: Select a few topic words (for example ` + `${EXAMPLE}): the selection has no words, only punctuation.`;
export const ESSAY_CANCELLED = 'Draftsmith: essay cancelled.';

export const ESSAY: GeneratingCommand<{ selection: vscode.Selection; text: string }, 'essay.model'> = {
  op: 'essay',
  noEditor: 'Draftsmith: open a text document and select a few topic words to expand into an essay.',
  cancelled: ESSAY_CANCELLED,
  model: 'essay.model',
  // Topic words are a short selection: unlike Summarize, an empty one never means the whole document.
  source(editor) {
    const selection = editor.selection;
    const text = editor.document.getText(selection);
    if (text.trim().length === 0) return ESSAY_NO_SELECTION;
    return parseTopics(text).length === 0 ? ESSAY_NO_WORDS : { selection, text };
  },
};

export function essay(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
  pick?: PickEssay,
): Promise<EssayOutcome> {
  return generate(ctx, editor, token, ESSAY, async (run): Promise<EssayOutcome> => {
    const { selection, text } = run.source;
    const options = readEssayOptions();
    ctx.log.info(
      `essay: ${JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)} from ` +
        `${editor.document.uri.toString(true)}, ${describeModelChoice(run.model.choice)}`,
    );
    const result = await run.request('Draftsmith: Writing an essay…', {
      op: 'essay',
      topics: text,
      candidates: options.candidates,
      decoding: options.decoding,
      includeAllTopics: options.includeAllTopics,
      guards: readDecodingGuards(),
      ...modelField(run.model),
    });
    // Shown in the panel if it is open, whichever essay (if any) is inserted, as summaries are.
    ctx.present(toPanel(result), false);

    const index =
      result.candidates.length === 1
        ? 0
        : await (pick ?? ((c) => pickWithQuickPick(c, result.topics, token)))(result.candidates);
    if (index === undefined) {
      ctx.log.info('essay: no essay picked; nothing inserted');
      return { kind: 'cancelled' };
    }
    const chosen = result.candidates[index];
    if (!chosen) {
      const message = `Draftsmith: there is no essay ${index + 1} (of ${result.candidates.length}).`;
      ctx.log.error(`essay: ${message}`);
      return { kind: 'error', message };
    }

    const inserted = await run.write(selection.end, essayInsertion(chosen.text), 'essay');
    if (inserted.kind !== 'inserted') return inserted;
    // An insertion at the selection's end extends it over the essay; keep the topic words selected instead.
    if (vscode.window.visibleTextEditors.includes(editor)) editor.selection = selection;

    const s = result.stats;
    ctx.log.info(
      `essay: inserted candidate ${index + 1}/${result.candidates.length} (${chosen.text.length} characters, covers ` +
        (`${chosen.covered.length}/${result.topics.length}) ${Math.round(performance.now() - run.started)} ms ` +
          `after the command `) +
        (`(encode ${Math.round(s.encodeMs)} ms, decode ${Math.round(s.decodeMs)} ms, ` +
          `${s.tokensPerSecond.toFixed(1)} steps/s, ${s.device}, ${s.model})`),
    );
    const notices = [coverageMessage(result, chosen)];
    void vscode.window.showInformationMessage(notices[0]);
    reportMaxLength(ctx, 'essay', 'essay', chosen.hitMaxLength, MAX_LENGTH_SETTING.essay, notices);
    return { kind: 'inserted', essay: chosen.text, result, notices };
  });
}

/** The essays in a quick pick, best first; Escape (or the caller's cancel) picks none. */
async function pickWithQuickPick(
  candidates: readonly EssayCandidate[],
  topics: readonly string[],
  token: vscode.CancellationToken | undefined,
): Promise<number | undefined> {
  const items = candidates.map((c, index) => ({ label: candidateLabel(c), detail: candidateDetail(c, topics), index }));
  const choice = await vscode.window.showQuickPick(
    items,
    {
      title: 'Draftsmith: Expand Topic Words into Essay',
      placeHolder:
        `Pick one of the ${candidates.length} essays to insert ` + `after the topic words (Escape inserts nothing)`,
      matchOnDetail: true,
    },
    token,
  );
  return choice?.index;
}
