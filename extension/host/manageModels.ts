/**
 * Draftsmith: Manage Models…: what the writer has downloaded (each Hub model's size, licence and place),
 * how fast each language model runs on this machine (measured on request, never on its own: it costs
 * seconds of CPU), the model recommended for the wait the writer accepts (draftsmith.models.targetSeconds),
 * deleting one, and importing a model folder copied from another machine, so that a machine without
 * network runs a Hub model by its id. Everything here is offline: only what is downloaded is listed and
 * measured. The built-in models are always there.
 */
import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import { pickOne } from './openDialog';
import type { ModelChoice } from '../protocol';
import type { LocalGguf } from '../engine/public';
import { localGgufs } from './chooseModel';
import { deleteDownloaded, downloadedModels, importFolder, type DownloadedModel } from '../engine/public';
import { Ctx } from './context';
import { reportFailure, requestWithProgress } from './engineProgress';
import {
  describeSpeed,
  ggufParameters,
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

/** A downloaded model as the manager shows it: a Hub model in the download cache, or a GGUF file on this computer. */
interface Listed {
  /** Its id (Hub) or its app's name (GGUF). */
  name: string;
  /** Its folder, or the GGUF file. */
  place: string;
  bytes: number;
  stamp: string;
  /** What the engine is asked to measure: the folder itself (nothing fetched), or the file. */
  choice: ModelChoice;
  /** The Hub download (delete, files); absent for a GGUF file, which is its app's to delete. */
  hub?: DownloadedModel;
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
const GGUF_FROM: Record<LocalGguf['source'], string> = {
  ollama: 'Ollama',
  'lm-studio': 'LM Studio',
  folder: 'draftsmith.gguf.folders',
};

function machineOf(ctx: Ctx): Machine {
  const config = readEngineConfig(ctx.extension.extensionPath, ctx.extension.globalStorageUri.fsPath);
  return { device: config.device, threads: config.threads };
}

function listModels(ctx: Ctx, cacheDir: string, machine: Machine): Listed[] {
  const state = ctx.extension.globalState;
  const hub = downloadedModels(cacheDir).map((model): Listed => {
    const shape = modelShape(model.dir);
    return {
      name: label(model),
      place: model.dir,
      bytes: model.bytes,
      stamp: model.stamp,
      choice: { kind: 'folder', dir: model.dir },
      hub: model,
      causal: shape?.causal ?? false,
      parameters: shape?.parameters ?? 0,
      licence: licenceOf(model.id, model.dir),
      measurement: measurementOf(state, model.dir, model.stamp, machine),
    };
  });
  const gguf = localGgufs().map((g): Listed => {
    const stamp = fileStamp(g.file);
    return {
      name: `${g.name} (${GGUF_FROM[g.source]})`,
      place: g.file,
      bytes: g.bytes,
      stamp,
      choice: { kind: 'gguf', file: g.file },
      causal: true,
      parameters: ggufParameters(g.bytes),
      licence: undefined,
      measurement: measurementOf(state, g.file, stamp, machine),
    };
  });
  return [...hub, ...gguf];
}

/** The recommendation in one line: the placeholder of the manager's list. */
function recommendationLine(rec: Recommendation<Listed>, target: number): string {
  const within = `a 150-word rewrite within ${seconds(target)}`;
  if (rec.kind === 'fits') return `Recommended for ${within}: ${rec.model.name} (≈ ${seconds(rec.seconds)})`;
  if (rec.kind === 'none-fits')
    return (
      `None of the measured models rewrites 150 words within ${seconds(target)}; ` +
      `the fastest is ${rec.fastest.name} (≈ ${seconds(rec.seconds)})`
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
    l.place,
  ];
  return {
    label: `${recommended ? '$(star-full) ' : fastest ? '$(zap) ' : ''}${l.name}`,
    description: `${size(l.bytes)} · ${l.licence ?? 'licence not stated'}`,
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
    ...(listed.length ? [] : [{ label: 'No model downloaded', description: 'Choose Model… downloads one' }]),
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
  const total = listed.reduce((a, l) => a + (l.hub?.bytes ?? 0), 0);
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
  const model = listed.hub;
  const actions = [
    ...(listed.causal ? [MEASURE] : []),
    ...(model ? ['Delete'] : []),
    'Reveal in File Explorer',
    'Copy Path',
  ];
  const files = model ? `, ${model.files} files` : '';
  const action = await vscode.window.showQuickPick(actions, {
    title: `${listed.name}: ${size(listed.bytes)}${files}, ${listed.licence ?? 'licence not stated'}`,
  });
  if (action === MEASURE) {
    await measure(ctx, [listed], machine);
    return manageModels(ctx);
  }
  if (action === 'Delete' && model) {
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
    await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(listed.place));
  } else if (action === 'Copy Path') {
    await vscode.env.clipboard.writeText(listed.place);
  }
}

/** A GGUF file's stamp: its size and latest change (a file that changed is measured again). */
function fileStamp(file: string): string {
  try {
    const st = statSync(file);
    return `1:${st.size}:${Math.round(st.mtimeMs)}`;
  } catch {
    return 'missing';
  }
}

/**
 * Measures each model in turn on this machine (its folder, so nothing is downloaded), each under a
 * progress notification with Cancel; a Cancel stops the rest. Each result is kept as it comes.
 */
async function measure(ctx: Ctx, models: readonly Listed[], machine: Machine): Promise<void> {
  for (const [i, l] of models.entries()) {
    const of = models.length > 1 ? ` (${i + 1} of ${models.length})` : '';
    try {
      const result = await requestWithProgress(ctx, `Draftsmith: measuring ${l.name}${of}`, {
        op: 'speed',
        model: l.choice,
      });
      const kept = await keepMeasurement(ctx.extension.globalState, l.place, l.stamp, machine, result);
      ctx.log.info(
        `measured ${l.name} (${result.dtype}, ${result.device}, threads ${machine.threads || 'auto'}): ` +
          `loaded in ${Math.round(result.loadMs)} ms, first token after ${Math.round(result.firstTokenMs)} ms on a ` +
          `${result.promptTokens}-token prompt, ${result.decodeTokens} tokens in ${Math.round(result.decodeMs)} ms ` +
          `(${result.tokensPerSecond.toFixed(1)} tokens/s): ${describeSpeed(kept)}`,
      );
    } catch (e) {
      const failure = reportFailure(ctx, `Measure Speed of ${l.name}`, e, 'Draftsmith: measuring cancelled.');
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
