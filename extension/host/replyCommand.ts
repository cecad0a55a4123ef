/**
 * Suggest Replies (ESED): the selection (or the whole document) is the post; the engine writes one
 * reply per semantic key under a cancellable progress notification; a quick pick offers them,
 * labelled with their key and mapping ("champion → winner — synonym"), plus "Type a key…" (an input
 * box: the reply is then steered by the typed word). The chosen reply is inserted below the post as
 * one undoable edit. The command and the test API share suggestReplies().
 */
import * as vscode from 'vscode';
import { hasLetter } from '../engine/public';
import type { ReplyCandidate, ReplyResult } from '../protocol';
import { Ctx } from './context';
import { generate, type Ended, type GeneratingCommand } from './commandTemplate';
import { replyInsertion, selectionOrDocument, type Changed, type SourceText } from './edits';
import { readDecodingGuards, readReplyOptions } from './settings';

export type ReplyOutcome =
  { kind: 'inserted'; reply: string; candidate: ReplyCandidate; result: ReplyResult } | Ended | Changed;

/** What the user chose: a candidate (an index), or to type a key; undefined inserts nothing. */
export type ReplyChoice = { index: number } | { typedKey: string } | undefined;
/** Chooses among the candidates (the quick pick, or a test's answer); `result` says what the post's keys were. */
export type PickReply = (candidates: readonly ReplyCandidate[], result: ReplyResult) => Promise<ReplyChoice>;

export const REPLY_EMPTY = 'Draftsmith: nothing to reply to — the selection (or document) is empty.';
export const REPLY_CANCELLED = 'Draftsmith: Suggest Replies cancelled.';
const TYPE_A_KEY = '$(edit) Type a key…';

export const REPLY: GeneratingCommand<SourceText> = {
  op: 'reply',
  noEditor: 'Draftsmith: open a text document with a message to reply to.',
  cancelled: REPLY_CANCELLED,
  model: undefined,
  source: selectionOrDocument(REPLY_EMPTY),
};

export function suggestReplies(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
  pick?: PickReply,
): Promise<ReplyOutcome> {
  return generate(ctx, editor, token, REPLY, async (run): Promise<ReplyOutcome> => {
    const { range, text } = run.source;
    const options = readReplyOptions();
    ctx.log.info(
      `reply: ${text.length} characters from ${editor.document.uri.toString(true)}, mappers ` +
        `${options.mappers.join(', ')}`,
    );
    const ask = (key?: string) =>
      run.request('Draftsmith: Suggesting replies…', {
        op: 'reply',
        text,
        mappers: options.mappers,
        maxCandidates: options.candidates,
        guards: readDecodingGuards(),
        ...(key !== undefined ? { key } : {}),
      });

    let result = await ask();
    for (const note of result.notes) {
      ctx.log.info(`reply: ${note}`);
      void vscode.window.showInformationMessage(`Draftsmith: ${note}`);
    }
    ctx.log.info(
      `reply: keys ${result.postKeys.map((k) => `${k.lemma}${k.inMemory ? '' : '?'}`).join(', ') || 'none'}; ` +
        (`${result.candidates.length} candidates: ` +
          `${result.candidates.map((c) => `${c.label} (${c.score.toFixed(2)})`).join('; ')}`),
    );

    let choice = await (pick ?? ((c, r) => pickWithQuickPick(c, r, token)))(result.candidates, result);
    if (choice && 'typedKey' in choice) {
      result = await ask(choice.typedKey);
      // One key typed, one candidate: it is what the user asked for.
      choice = result.candidates.length > 0 ? { index: 0 } : undefined;
    }
    if (choice === undefined) {
      ctx.log.info('reply: no reply picked; nothing inserted');
      return { kind: 'cancelled' };
    }
    const chosen = result.candidates[choice.index];
    if (!chosen) {
      const message = `Draftsmith: there is no reply ${choice.index + 1} (of ${result.candidates.length}).`;
      ctx.log.error(`reply: ${message}`);
      return { kind: 'error', message };
    }
    const inserted = await run.write(range.end, replyInsertion(chosen.text), 'reply');
    if (inserted.kind !== 'inserted') return inserted;
    const s = result.stats;
    ctx.log.info(
      `reply: inserted "${chosen.label}" (${chosen.text.length} characters) ` +
        `${Math.round(performance.now() - run.started)} ms after the command ` +
        `(encode ${Math.round(s.encodeMs)} ms, decode ${Math.round(s.decodeMs)} ms, ${s.device}, ${s.model})`,
    );
    return { kind: 'inserted', reply: chosen.text, candidate: chosen, result };
  });
}

/** The candidates, best first, and "Type a key…" (with no candidates, the input box straight away). */
async function pickWithQuickPick(
  candidates: readonly ReplyCandidate[],
  result: ReplyResult,
  token: vscode.CancellationToken | undefined,
): Promise<ReplyChoice> {
  type Item = vscode.QuickPickItem & { index?: number };
  if (candidates.length > 0) {
    const items: Item[] = [
      ...candidates.map((c, index) => ({
        label: c.text || '(empty reply)',
        description: c.label,
        detail: c.example ? `memory: “${c.example}”` : undefined,
        index,
      })),
      { label: TYPE_A_KEY, description: 'steer the reply with a word of your own', alwaysShow: true },
    ];
    const picked = await vscode.window.showQuickPick(
      items,
      {
        title: 'Draftsmith: Suggest Replies',
        placeHolder:
          `Pick a reply to insert below the post (${candidates.length} keys), or type a key (Escape inserts ` +
          `nothing)`,
        matchOnDescription: true,
      },
      token,
    );
    if (!picked) return undefined;
    if (picked.index !== undefined) return { index: picked.index };
  }
  const known = result.postKeys.filter((k) => k.inMemory).map((k) => k.lemma);
  const key = await vscode.window.showInputBox(
    {
      title: 'Draftsmith: Suggest Replies — type a key',
      prompt:
        "A noun or an adjective to steer the reply (it must be one of the reply memory's keys; a message names " +
        'the nearest ones otherwise).',
      placeHolder: known.length ? `e.g. ${known.join(', ')}` : 'e.g. music, dog, weekend, happy',
      validateInput: (v) => (hasLetter(v) ? undefined : 'Type a word.'),
    },
    token,
  );
  return key ? { typedKey: key } : undefined;
}
