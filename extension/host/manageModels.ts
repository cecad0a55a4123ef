/**
 * Draftsmith: Manage Models…: what the writer has downloaded (each Hub model's size and place),
 * deleting one, and importing a model folder copied from another machine, so that a machine
 * without network runs a Hub model by its id. The built-in models are listed too, as always there.
 */
import * as vscode from 'vscode';
import { pickOne } from './openDialog';
import { deleteDownloaded, downloadedModels, importFolder, type DownloadedModel } from '../engine/public';
import { Ctx } from './context';
import { readHubConfig } from './settings';

const MB = 1e6;
const size = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;

type Item = vscode.QuickPickItem & { model?: DownloadedModel; action?: 'import' };

export async function manageModels(ctx: Ctx): Promise<void> {
  const { hub } = readHubConfig(ctx.extension.globalStorageUri.fsPath);
  const models = downloadedModels(hub.cacheDir);
  const items: Item[] = [
    ...models.map((m) => ({
      label: m.id + (m.revision ? `@${m.revision.slice(0, 7)}` : ''),
      description: size(m.bytes),
      detail: m.dir,
      model: m,
    })),
    ...(models.length ? [] : [{ label: 'No Hub model downloaded', description: 'Choose Model… downloads one' }]),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    {
      label: '$(folder-opened) Import a Model Folder…',
      detail: "A folder in transformers.js's layout copied from another machine: it then runs by its id, offline",
      action: 'import',
    },
  ];
  const total = models.reduce((a, m) => a + m.bytes, 0);
  const pick = await vscode.window.showQuickPick(items, {
    title: `Draftsmith: downloaded models (${size(total)} in ${hub.cacheDir})`,
    placeHolder: 'Pick a model to delete it or show it; the built-in models are always there',
    matchOnDetail: true,
  });
  if (!pick) return;
  if (pick.action === 'import') return importModel(ctx, hub.cacheDir);
  if (pick.model) return modelActions(ctx, hub.cacheDir, pick.model);
}

async function modelActions(ctx: Ctx, cacheDir: string, model: DownloadedModel): Promise<void> {
  const action = await vscode.window.showQuickPick(['Delete', 'Reveal in File Explorer', 'Copy Path'], {
    title: `${model.id}: ${size(model.bytes)}, ${model.files} files`,
  });
  if (action === 'Delete') {
    const sure = await vscode.window.showWarningMessage(
      `Delete ${model.id} (${size(model.bytes)})? A command that runs it will download it again.`,
      { modal: true },
      'Delete',
    );
    if (sure !== 'Delete') return;
    deleteDownloaded(cacheDir, model.dir);
    ctx.log.info(`deleted ${model.id} (${size(model.bytes)}) from ${model.dir}`);
    void vscode.window.showInformationMessage(`Draftsmith: ${model.id} deleted (${size(model.bytes)} freed).`);
  } else if (action === 'Reveal in File Explorer') {
    await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(model.dir));
  } else if (action === 'Copy Path') {
    await vscode.env.clipboard.writeText(model.dir);
  }
}

async function importModel(ctx: Ctx, cacheDir: string): Promise<void> {
  const folder = await pickOne('A model folder: config.json, tokenizer files and onnx/', 'Import', 'folder');
  if (!folder) return;
  const id = await vscode.window.showInputBox({
    title: 'The Hub id to run it by',
    prompt: 'owner/name, as in draftsmith.<command>.model (e.g. HuggingFaceTB/SmolLM2-360M-Instruct)',
    validateInput: (v) => (/^[\w.-]+\/[\w.-]+$/.test(v.trim()) ? undefined : 'owner/name'),
  });
  if (!id) return;
  try {
    const m = importFolder(cacheDir, folder.fsPath, id.trim());
    ctx.log.info(`imported ${folder.fsPath} as ${m.id} into ${m.dir}`);
    void vscode.window.showInformationMessage(
      `Draftsmith: ${m.id} imported (${size(m.bytes)}). Choose Model… can now pick it by its id, offline.`,
    );
  } catch (e) {
    void vscode.window.showErrorMessage(`Draftsmith: ${e instanceof Error ? e.message : String(e)}`);
  }
}
