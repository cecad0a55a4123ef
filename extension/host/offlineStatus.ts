/**
 * The status bar's Offline indicator: whether Draftsmith may download a model the writer chose
 * (draftsmith.hub.offline). A click toggles the setting (user settings), so a writer on a train
 * or a machine without network sees at a glance that nothing will be fetched.
 */
import * as vscode from 'vscode';
import { HUB_OFFLINE_SETTING } from './settings';

export const TOGGLE_OFFLINE_COMMAND = 'draftsmith.toggleOffline';

const [SECTION, KEY] = [HUB_OFFLINE_SETTING.split('.')[0], HUB_OFFLINE_SETTING.split('.').slice(1).join('.')];

const isOffline = () => vscode.workspace.getConfiguration(SECTION).get(KEY) === true;

export class OfflineStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('draftsmith.offline', vscode.StatusBarAlignment.Right, 99);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor() {
    this.item.name = 'Draftsmith: Offline';
    this.item.command = TOGGLE_OFFLINE_COMMAND;
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(HUB_OFFLINE_SETTING)) this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  /** What the item says now (the in-host tests read it). */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const offline = isOffline();
    this.item.text = offline ? '$(cloud-offline) Offline' : '$(cloud) Online';
    this.item.tooltip = offline
      ? 'Draftsmith downloads no model (draftsmith.hub.offline). Models already downloaded, local folders and ' +
        'the built-in models still run. Click to allow downloads.'
      : 'Draftsmith downloads a Hub model only when you choose one (Choose Model…). Click to work offline.';
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Draftsmith: Toggle Offline (the item's click): in the user's settings. */
export async function toggleOffline(): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update(KEY, !isOffline(), vscode.ConfigurationTarget.Global);
}
