/**
 * Draftsmith: Manage Models…: what the writer has downloaded (each Hub model's size, licence and place),
 * how fast each language model runs on this machine (measured on request, never on its own: it costs
 * seconds of CPU), the model recommended for the wait the writer accepts (draftsmith.models.targetSeconds),
 * deleting one, and importing a model folder copied from another machine, so that a machine without
 * network runs a Hub model by its id. Everything here is offline: only what is downloaded is listed and
 * measured. The built-in models are always there.
 */
import * as vscode from 'vscode';
import { pickOne } from './openDialog';
import { deleteDownloaded, downloadedModels, importFolder, type DownloadedModel } from '../engine/public';
import { Ctx } from './context';
import { reportFailure, requestWithProgress } from './engineProgress';
import {
  describeSpeed,
  keepMeasurement,
  licenceOf,
  measurementOf,
  modelShape,
  recommend,
  seconds,
  type Machine,
  type Measurement,
  type Recommendation,
} from './modelSpeeds';
import { readEngineConfig, readHubConfig, readTargetSeconds, TARGET_SECONDS_SETTING } from './settings';

const MB = 1e6;
const size = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;

/** A downloaded model as the manager shows it. */
interface Listed {
  model: DownloadedModel;
  /** A language model (causal LM): one the writing commands run, and Measure Speed can time. */
  causal: boolean;
  parameters: number;
  licence: string | undefined;
  measurement: Measurement | undefined;
}

type Item = vscode.QuickPickItem & {
  listed?: Listed;
  action?: 'import' | 'measure-all' | 'target';
};

const label = (m: DownloadedModel) => m.id + (m.revision ? `@${m.revision.slice(0, 7)}` : '');

function machineOf(ctx: Ctx): Machine {
  const config = readEngineConfig(ctx.extension.extensionPath, ctx.extension.globalStorageUri.fsPath);
  return { device: config.device, threads: config.threads };
}

function listModels(ctx: Ctx, cacheDir: string, machine: Machine): Listed[] {
  return downloadedModels(cacheDir).map((model) => {
    const shape = modelShape(model.dir);
    return {
      model,
      causal: shape?.causal ?? false,
      parameters: shape?.parameters ?? 0,
      licence: licenceOf(model.id, model.dir),
      measurement: measurementOf(ctx.extension.globalState, model.dir, model.stamp, machine),
    };
  });
}

/** The recommendation in one line: the placeholder of the manager's list. */
function recommendationLine(rec: Recommendation<Listed>, target: number): string {
  if (rec.kind === 'fits')
    return (
      `Recommended for a 150-word rewrite within ${seconds(target)}: ` +
      `${label(rec.model.model)} (≈ ${seconds(rec.seconds)})`
    );
  if (rec.kind === 'none-fits')
    return (
      `None of the measured models rewrites 150 words within ${seconds(target)}; ` +
      `the fastest is ${label(rec.fastest.model)} (≈ ${seconds(rec.seconds)})`
    );
  return 'Measure the models on this machine for a recommendation; pick a model to delete, measure or show it';
}

function modelItem(l: Listed, rec: Recommendation<Listed>): Item {
  const recommended = rec.kind === 'fits' && rec.model === l;
  const fastest = rec.kind === 'none-fits' && rec.fastest === l;
  // The numbers lead the second line, where they are not cut off; the folder follows them.
  const detail = [
    ...(recommended ? ['Recommended'] : fastest ? ['The fastest here, slower than you accept'] : []),
    ...(l.measurement ? [describeSpeed(l.measurement)] : l.causal ? ['speed not measured on this machine'] : []),
    l.model.dir,
  ];
  return {
    label: `${recommended ? '$(star-full) ' : fastest ? '$(zap) ' : ''}${label(l.model)}`,
    description: `${size(l.model.bytes)} · ${l.licence ?? 'licence not stated'}`,
    detail: detail.join(' · '),
    listed: l,
  };
}

export async function manageModels(ctx: Ctx): Promise<void> {
  const { hub } = readHubConfig(ctx.extension.globalStorageUri.fsPath);
  const machine = machineOf(ctx);
  const listed = listModels(ctx, hub.cacheDir, machine);
  const target = readTargetSeconds();
  const rec = recommend(
    listed.filter((l) => l.causal).map((l) => ({ model: l, rank: l.parameters, measurement: l.measurement })),
    target,
  );
  const measurable = listed.filter((l) => l.causal);
  const items: Item[] = [
    ...listed.map((l) => modelItem(l, rec)),
    ...(listed.length ? [] : [{ label: 'No Hub model downloaded', description: 'Choose Model… downloads one' }]),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    ...(measurable.length
      ? [
          {
            label: '$(dashboard) Measure Speed of All Models',
            detail:
              `First token and tokens/s of ${measurable.length} language model${measurable.length === 1 ? '' : 's'} ` +
              `on this machine (${machine.device}, threads ${machine.threads || 'auto'}): a few seconds each, offline`,
            action: 'measure-all' as const,
          },
        ]
      : []),
    {
      label: `$(watch) The Wait You Accept: ${seconds(target)}`,
      detail: `For a 150-word rewrite (${TARGET_SECONDS_SETTING}): the recommendation is the best model within it`,
      action: 'target',
    },
    {
      label: '$(folder-opened) Import a Model Folder…',
      detail: "A folder in transformers.js's layout copied from another machine: it then runs by its id, offline",
      action: 'import',
    },
  ];
  const total = listed.reduce((a, l) => a + l.model.bytes, 0);
  const pick = await vscode.window.showQuickPick(items, {
    title: `Draftsmith: downloaded models (${size(total)} in ${hub.cacheDir})`,
    placeHolder: recommendationLine(rec, target),
    matchOnDetail: true,
    matchOnDescription: true,
  });
  if (!pick) return;
  if (pick.action === 'import') return importModel(ctx, hub.cacheDir);
  if (pick.action === 'target')
    return void vscode.commands.executeCommand('workbench.action.openSettings', TARGET_SECONDS_SETTING);
  if (pick.action === 'measure-all') {
    await measure(ctx, measurable, machine);
    return manageModels(ctx);
  }
  if (pick.listed) return modelActions(ctx, hub.cacheDir, pick.listed, machine);
}

const MEASURE = 'Measure Speed on This Machine';

async function modelActions(ctx: Ctx, cacheDir: string, listed: Listed, machine: Machine): Promise<void> {
  const model = listed.model;
  const actions = [...(listed.causal ? [MEASURE] : []), 'Delete', 'Reveal in File Explorer', 'Copy Path'];
  const action = await vscode.window.showQuickPick(actions, {
    title: `${model.id}: ${size(model.bytes)}, ${model.files} files, ${listed.licence ?? 'licence not stated'}`,
  });
  if (action === MEASURE) {
    await measure(ctx, [listed], machine);
    return manageModels(ctx);
  }
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

/**
 * Measures each model in turn on this machine (its folder, so nothing is downloaded), each under a
 * progress notification with Cancel; a Cancel stops the rest. Each result is kept as it comes.
 */
async function measure(ctx: Ctx, models: readonly Listed[], machine: Machine): Promise<void> {
  for (const [i, l] of models.entries()) {
    const m = l.model;
    const of = models.length > 1 ? ` (${i + 1} of ${models.length})` : '';
    try {
      const result = await requestWithProgress(ctx, `Draftsmith: measuring ${label(m)}${of}`, {
        op: 'speed',
        model: { kind: 'folder', dir: m.dir },
      });
      const kept = await keepMeasurement(ctx.extension.globalState, m.dir, m.stamp, machine, result);
      ctx.log.info(
        `measured ${label(m)} (${result.dtype}, ${result.device}, threads ${machine.threads || 'auto'}): ` +
          `loaded in ${Math.round(result.loadMs)} ms, first token after ${Math.round(result.firstTokenMs)} ms on a ` +
          `${result.promptTokens}-token prompt, ${result.decodeTokens} tokens in ${Math.round(result.decodeMs)} ms ` +
          `(${result.tokensPerSecond.toFixed(1)} tokens/s): ${describeSpeed(kept)}`,
      );
    } catch (e) {
      const failure = reportFailure(ctx, `Measure Speed of ${label(m)}`, e, 'Draftsmith: measuring cancelled.');
      if (failure.kind === 'cancelled') return;
    }
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
