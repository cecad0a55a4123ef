/** Information messages that come with a result, non-blocking: the result is already in the document. */
import * as vscode from 'vscode';
import { maxLengthNote } from '../engine/public';
import type { MaxLengthHit } from '../protocol';
import type { Ctx } from './context';
import { BUILT_IN, describeModelChoice } from '../modelChoice';
import { MODEL_SETTING_COMMANDS, SECTION, type ChosenModel } from './settings';

const OPEN_SETTING = 'Open Setting';
export const USE_BUILT_IN = 'Use Built-in Model';
export const SHOW_LOG = 'Show Log';

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
export function reportMaxLength(
  ctx: Ctx,
  op: string,
  what: string,
  hit: MaxLengthHit | null,
  setting: string,
  notices: string[],
): void {
  if (!hit) return;
  const message = `Draftsmith: ${maxLengthNote(what, hit, setting)}`;
  notices.push(message);
  ctx.log.info(`${op}: stopped at the length limit (${hit.maxLength} tokens, set by the ${hit.limitedBy})`);
  showSettingNotice(message, setting);
}

/**
 * An error message whose "Open Setting" button opens the Settings UI at `setting` (a setting with a
 * value the command cannot use).
 */
export function showSettingError(message: string, setting: string): void {
  void vscode.window.showErrorMessage(message, OPEN_SETTING).then((choice) => {
    if (choice === OPEN_SETTING) void vscode.commands.executeCommand('workbench.action.openSettings', setting);
  });
}

/**
 * A chosen model could not be had (a Hub model not downloaded, or files that do not load):
 * the engine's message, which model and setting it was, and two ways on: "Use Built-in Model" sets
 * the setting back to "built-in" where it was set, "Show Log" opens the log. Returns the message.
 */
export function showModelFailure(ctx: Ctx, engineMessage: string, model: ChosenModel | undefined): string {
  const chosen = model && model.choice.kind !== 'built-in' ? model : undefined;
  const message = chosen
    ? `Draftsmith: ${engineMessage} (${describeModelChoice(chosen.choice)} is the model chosen for ` +
      `${MODEL_SETTING_COMMANDS[chosen.key]} in ${chosen.setting}.)`
    : `Draftsmith: ${engineMessage}`;
  const actions = chosen ? [USE_BUILT_IN, SHOW_LOG] : [SHOW_LOG];
  void vscode.window.showErrorMessage(message, ...actions).then((action) => {
    if (action === SHOW_LOG) ctx.log.show(true);
    if (action === USE_BUILT_IN && chosen) void useBuiltIn(ctx, chosen);
  });
  return message;
}

/** Sets the model setting back to "built-in" in the settings file where it was set, and says so. */
export async function useBuiltIn(ctx: Ctx, model: ChosenModel): Promise<void> {
  try {
    await vscode.workspace.getConfiguration(SECTION).update(model.key, BUILT_IN, model.target);
    ctx.log.info(`${model.setting}: set to "${BUILT_IN}" (${vscode.ConfigurationTarget[model.target]} settings)`);
    void vscode.window.showInformationMessage(
      `Draftsmith: ${MODEL_SETTING_COMMANDS[model.key]} now use the built-in model.`,
    );
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    ctx.log.error(`${model.setting}: could not be set to "${BUILT_IN}": ${why}`);
    showSettingError(`Draftsmith: could not set ${model.setting} to "${BUILT_IN}": ${why}`, model.setting);
  }
}
