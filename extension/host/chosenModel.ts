/**
 * The model a command runs (draftsmith.<command>.model), read before anything is written:
 * a value the setting does not take stops the command with a message naming the setting (Open
 * Setting goes there). Shared by every command with a model setting.
 */
import type { ModelChoice } from '../protocol';
import type { Ctx } from './context';
import { showSettingError } from './notices';
import { readModelChoice, type ChosenModel, type ModelSettingKey } from './settings';

/** The chosen model, or the message that stopped the command (already shown and logged). */
export function chosenModel(ctx: Ctx, key: ModelSettingKey, what: string): ChosenModel | { error: string } {
  const read = readModelChoice(key);
  if ('model' in read) return read.model;
  ctx.log.error(`${what}: ${read.error}`);
  showSettingError(read.error, read.setting);
  return { error: read.error };
}

/** The request's model: none for the built-in one, so that its requests are the ones sent before there was a choice. */
export function modelField(model: ChosenModel): { model?: ModelChoice } {
  return model.choice.kind === 'built-in' ? {} : { model: model.choice };
}
