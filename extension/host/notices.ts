/** Information messages that come with a result, non-blocking: the result is already in the document. */
import * as vscode from 'vscode';
import { maxLengthNote } from '../engine/systems/lengthLimit';
import type { MaxLengthHit } from '../protocol';
import type { Ctx } from './context';

const OPEN_SETTING = 'Open Setting';

/** An information message whose "Open Setting" button opens the Settings UI at `setting`. */
export function showSettingNotice(message: string, setting: string): void {
  void vscode.window.showInformationMessage(message, OPEN_SETTING).then((choice) => {
    if (choice === OPEN_SETTING) void vscode.commands.executeCommand('workbench.action.openSettings', setting);
  });
}

/**
 * When the inserted `what` ("summary", "essay") stopped at the length limit: tells the user, naming
 * `setting`, logs it, and adds the message to `notices` (the outcome the test API returns).
 */
export function reportMaxLength(ctx: Ctx, op: string, what: string, hit: MaxLengthHit | null, setting: string, notices: string[]): void {
  if (!hit) return;
  const message = `Draftsmith: ${maxLengthNote(what, hit, setting)}`;
  notices.push(message);
  ctx.log.info(`${op}: stopped at the length limit (${hit.maxLength} tokens, set by the ${hit.limitedBy})`);
  showSettingNotice(message, setting);
}
