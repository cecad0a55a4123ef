/**
 * Draftsmith: Choose Model…: which model each command with a model setting runs. A quick
 * pick of the commands (MODEL_COMMANDS), then one of the models: the built-in one, the recommended
 * Hub models, the GGUF models already on this computer (Ollama's, LM Studio's, draftsmith.gguf.folders')
 * for the commands a language model serves, a Hub id typed in, a local folder, or a GGUF file. The
 * current choice is marked. The choice is
 * written to draftsmith.<command>.model: in the workspace's settings when the workspace already sets
 * it (and is trusted: a restricted workspace's value does not count), else in the user's.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { pickOne } from './openDialog';
import type { ModelChoice } from '../protocol';
import {
  describeModelChoice,
  MODEL_SETTINGS,
  folderLayout,
  formatModelChoice,
  hubIdProblem,
  parseModelChoice,
  sameModelChoice,
} from '../modelChoice';
import { findLocalGgufs, type LocalGguf } from '../engine/public';
import type { Ctx } from './context';
import { downloadSize, MODEL_COMMANDS, type ModelCommand, type RecommendedModel } from './recommendedModels';
import { HUB_OFFLINE_SETTING, readGgufFolders, readHubConfig, readModelChoice, SECTION } from './settings';

const TITLE = 'Draftsmith: Choose Model';

interface ModelItem extends vscode.QuickPickItem {
  /** What choosing it does: a model, or a further step. */
  action: { kind: 'choice'; choice: ModelChoice } | { kind: 'enter-id' } | { kind: 'folder' } | { kind: 'gguf-file' };
}

export async function chooseModel(ctx: Ctx): Promise<void> {
  const command = await pickCommand();
  if (!command) return;
  const current = readModelChoice(command.key);
  const currentChoice = 'model' in current ? current.model.choice : undefined;
  const item = await pickModel(command, currentChoice, 'error' in current ? current.error : undefined);
  if (!item) return;
  let choice: ModelChoice | undefined;
  if (item.action.kind === 'choice') choice = item.action.choice;
  else if (item.action.kind === 'enter-id') choice = await enterHubId(currentChoice);
  else if (item.action.kind === 'gguf-file') choice = await chooseGgufFile(command);
  else choice = await chooseFolder(command);
  if (!choice) return;
  await save(ctx, command, choice);
}

async function pickCommand(): Promise<ModelCommand | undefined> {
  const items = MODEL_COMMANDS.map((command) => {
    const current = readModelChoice(command.key);
    return {
      label: command.label,
      description:
        'model' in current ? describeModelChoice(current.model.choice) : `draftsmith.${command.key} is not valid`,
      command,
    };
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: `${TITLE} (1/2)`,
    placeHolder: 'Choose the model of which command?',
  });
  return picked?.command;
}

/** A recommended model as a choice: pinned to the revision its size was checked at. */
const recommendedChoice = (model: RecommendedModel): ModelChoice => ({
  kind: 'hub',
  id: model.id,
  revision: model.revision,
});

function recommendedItem(model: RecommendedModel, current: ModelChoice | undefined): ModelItem {
  const choice = recommendedChoice(model);
  const isCurrent = current !== undefined && sameModelChoice(current, choice);
  return {
    label: `${isCurrent ? '$(check) ' : ''}${model.id}`,
    description: `${downloadSize(model.bytes)} to download once · ${model.licence}${isCurrent ? ' · current' : ''}`,
    detail: model.what,
    action: { kind: 'choice', choice },
  };
}

async function pickModel(
  command: ModelCommand,
  current: ModelChoice | undefined,
  problem: string | undefined,
): Promise<ModelItem | undefined> {
  const builtIn: ModelChoice = { kind: 'built-in' };
  const isBuiltIn = current !== undefined && sameModelChoice(current, builtIn);
  const items: (ModelItem | vscode.QuickPickItem)[] = [
    {
      label: `${isBuiltIn ? '$(check) ' : ''}Built-in model`,
      description: isBuiltIn ? 'current' : undefined,
      detail: command.builtIn,
      action: { kind: 'choice', choice: builtIn },
    } satisfies ModelItem,
  ];
  // A current Hub id or folder that is not in the list: shown, marked, so that it can be kept.
  const custom =
    current !== undefined &&
    current.kind !== 'built-in' &&
    !command.recommended.some((m) => sameModelChoice(current, recommendedChoice(m)));
  if (custom) {
    items.push({
      label: `$(check) ${formatModelChoice(current)}`,
      description: 'current',
      detail:
        current.kind === 'hub'
          ? 'A Hugging Face Hub model'
          : current.kind === 'gguf'
            ? 'A GGUF model, run with llama.cpp'
            : 'A local model folder',
      action: { kind: 'choice', choice: current },
    } satisfies ModelItem);
  }
  // The models other commands run that this one can run too: already chosen, often already downloaded.
  const shared = sharedChoices(command).filter(
    (s) =>
      !(current !== undefined && sameModelChoice(current, s.choice)) &&
      !command.recommended.some((m) => sameModelChoice(s.choice, recommendedChoice(m))),
  );
  if (shared.length > 0) {
    items.push({ label: 'Chosen for another command', kind: vscode.QuickPickItemKind.Separator });
    items.push(
      ...shared.map(
        (s) =>
          ({
            label: formatModelChoice(s.choice),
            description: `the model of ${s.label}`,
            detail: describeModelChoice(s.choice),
            action: { kind: 'choice', choice: s.choice },
          }) satisfies ModelItem,
      ),
    );
  }
  const gguf = MODEL_SETTINGS[systemOf(command)].gguf;
  // The GGUF models writers already keep, first: nothing to download.
  const local = gguf ? localGgufs() : [];
  if (local.length > 0) {
    items.push({
      label: 'On this computer: GGUF models, run with llama.cpp',
      kind: vscode.QuickPickItemKind.Separator,
    });
    items.push(...local.map((m) => localItem(m, current)));
  }
  items.push({ label: 'Hugging Face Hub: downloaded once, on first use', kind: vscode.QuickPickItemKind.Separator });
  items.push(...command.recommended.map((m) => recommendedItem(m, current)));
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({
    label: 'Enter a model id…',
    detail:
      "Any causal language model on the Hub with ONNX files in transformers.js's layout (owner/name, e.g. " +
      'Xenova/distilgpt2)',
    action: { kind: 'enter-id' },
  } satisfies ModelItem);
  if (gguf)
    items.push({
      label: 'Choose a GGUF file…',
      detail: "A .gguf model file, run with llama.cpp (Ollama's and LM Studio's are listed above)",
      action: { kind: 'gguf-file' },
    } satisfies ModelItem);
  items.push({
    label: 'Choose a local folder…',
    detail: "A Draftsmith model folder (model.json), or a folder in transformers.js's layout (config.json and onnx/)",
    action: { kind: 'folder' },
  } satisfies ModelItem);

  const quickPick = vscode.window.createQuickPick<ModelItem | vscode.QuickPickItem>();
  quickPick.title = `${TITLE} (2/2): ${command.label}`;
  quickPick.placeholder = problem
    ? `${problem.replace(/^Draftsmith: /, '')} Choose a model:`
    : `Now: ${current ? describeModelChoice(current) : 'the built-in model'}. Choose a model:`;
  quickPick.items = items;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  const active = items.find(
    (i) =>
      'action' in i && i.action.kind === 'choice' && current !== undefined && sameModelChoice(i.action.choice, current),
  );
  if (active) quickPick.activeItems = [active];
  return new Promise<ModelItem | undefined>((resolve) => {
    let picked: ModelItem | undefined;
    quickPick.onDidAccept(() => {
      const item = quickPick.selectedItems[0];
      if (item && 'action' in item) picked = item as ModelItem;
      quickPick.hide();
    });
    quickPick.onDidHide(() => {
      quickPick.dispose();
      resolve(picked);
    });
    quickPick.show();
  });
}

/** The models chosen for the commands `command` shares with (MODEL_COMMANDS' shares), each once. */
function sharedChoices(command: ModelCommand): { choice: ModelChoice; label: string }[] {
  const out: { choice: ModelChoice; label: string }[] = [];
  for (const key of command.shares ?? []) {
    const read = readModelChoice(key);
    if (!('model' in read) || read.model.choice.kind === 'built-in') continue;
    const choice = read.model.choice;
    if (out.some((o) => sameModelChoice(o.choice, choice))) continue;
    out.push({ choice, label: MODEL_COMMANDS.find((c) => c.key === key)?.label ?? key });
  }
  return out;
}

async function enterHubId(current: ModelChoice | undefined): Promise<ModelChoice | undefined> {
  const value = await vscode.window.showInputBox({
    title: `${TITLE}: a Hugging Face Hub model`,
    prompt:
      'A Hub model id, owner/name (optionally owner/name@revision): a causal language model with ONNX files in ' +
      "transformers.js's layout",
    placeHolder: 'Xenova/distilgpt2',
    value: current?.kind === 'hub' ? formatModelChoice(current) : undefined,
    validateInput: (text) => hubIdProblem(text),
  });
  if (value === undefined) return undefined;
  // Never a folder here: the box takes Hub ids only.
  const parsed = parseModelChoice(value, () => false);
  if ('error' in parsed || parsed.choice.kind !== 'hub') {
    void vscode.window.showErrorMessage(
      `Draftsmith: ${'error' in parsed ? parsed.error : `"${value}" is not a Hub model id.`}`,
    );
    return undefined;
  }
  return parsed.choice;
}

async function chooseFolder(command: ModelCommand): Promise<ModelChoice | undefined> {
  const dir = (await pickOne(`${TITLE}: a model folder for ${command.label}`, 'Use This Model Folder', 'folder'))
    ?.fsPath;
  if (!dir) return undefined;
  if (!folderLayout(dir, existsSync)) {
    void vscode.window.showErrorMessage(
      `Draftsmith: ${dir} holds neither model.json (a Draftsmith model folder) nor config.json and onnx/ ` +
        `(transformers.js's layout); the model was not changed.`,
    );
    return undefined;
  }
  return { kind: 'folder', dir };
}

/** The system a model setting belongs to ('story' of 'story.model'). */
const systemOf = (command: ModelCommand) => command.key.split('.')[0] as keyof typeof MODEL_SETTINGS;

const SOURCE_NAMES: Record<LocalGguf['source'], string> = {
  ollama: 'Ollama',
  'lm-studio': 'LM Studio',
  folder: 'draftsmith.gguf.folders',
};

/** The GGUF files already on this computer: Ollama's, LM Studio's, draftsmith.gguf.folders'. */
export function localGgufs(): LocalGguf[] {
  return findLocalGgufs({
    home: os.homedir(),
    platform: process.platform,
    env: process.env,
    folders: readGgufFolders(),
  });
}

function localItem(model: LocalGguf, current: ModelChoice | undefined): ModelItem {
  const choice: ModelChoice = { kind: 'gguf', file: model.file };
  const isCurrent = current !== undefined && sameModelChoice(current, choice);
  return {
    label: `${isCurrent ? '$(check) ' : ''}${model.name}`,
    description: `${SOURCE_NAMES[model.source]} · ${downloadSize(model.bytes)}${isCurrent ? ' · current' : ''}`,
    detail: model.file,
    action: { kind: 'choice', choice },
  };
}

async function chooseGgufFile(command: ModelCommand): Promise<ModelChoice | undefined> {
  const file = (
    await pickOne(`${TITLE}: a GGUF model for ${command.label}`, 'Use This Model File', 'file', {
      // Ollama's blobs have no .gguf name: any file may be chosen, and the engine checks it.
      filters: { 'GGUF models': ['gguf'], 'All files': ['*'] },
    })
  )?.fsPath;
  if (!file) return undefined;
  return { kind: 'gguf', file };
}

async function save(ctx: Ctx, command: ModelCommand, choice: ModelChoice): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const inspected = cfg.inspect(command.key);
  const inWorkspace = vscode.workspace.isTrusted && inspected?.workspaceValue !== undefined;
  const target = inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const setting = `${SECTION}.${command.key}`;
  try {
    await cfg.update(command.key, formatModelChoice(choice), target);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    ctx.log.error(`${setting}: could not be set: ${why}`);
    void vscode.window.showErrorMessage(`Draftsmith: could not set ${setting}: ${why}`);
    return;
  }
  const where = inWorkspace ? " (in this workspace's settings)" : '';
  ctx.log.info(`${setting} set to "${formatModelChoice(choice)}"${where}`);
  let message = `Draftsmith: ${command.label} now use ${describeModelChoice(choice)}${where}.`;
  if (choice.kind === 'hub') {
    const { hub, problem } = readHubConfig(ctx.extension.globalStorageUri.fsPath);
    const size = command.recommended.find((m) => sameModelChoice(choice, recommendedChoice(m)))?.bytes;
    message += problem
      ? ` ${problem.replace(/^Draftsmith: /, '')}`
      : hub.offline
        ? ` ${HUB_OFFLINE_SETTING} is on: it loads only if it was downloaded before.`
        : ` It is downloaded${size ? ` (${downloadSize(size)})` : ''} from ${hub.endpoint} the first time it ` +
          `runs, and kept.`;
  }
  void vscode.window.showInformationMessage(message);
}
