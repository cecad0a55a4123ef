/**
 * The extension's state in one place (rust-analyzer's ctx.ts shape): the log, the engine client,
 * the insights panels, the last results, and every disposable, released together on deactivate.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FolderScores, SummarizeResult, ToPanel } from '../protocol';
import { EngineClient } from './engineClient';
import { InsightsPanels, INSIGHTS_VIEW_TYPE } from './insightsPanel';
import { askLargeDownload } from './largeDownload';
import { RoundTrips } from './roundtripDocuments';
import { affectsEngine, readEngineConfig, readHubConfig } from './settings';
import { toPanel } from '../panelViews';

export class Ctx implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  private latestSummary: SummarizeResult | undefined;
  /** What the insights panel shows (any view); a panel opened or reloaded later asks for it. */
  private lastShown: ToPanel | undefined;
  readonly log: vscode.LogOutputChannel;
  readonly engine: EngineClient;
  readonly insights: InsightsPanels;
  /** Round-Trip Paragraph's diff documents and the reconstructions waiting for Apply. */
  readonly roundTrips: RoundTrips;
  /**
   * Score Drafts in Folder: the last folder scored (what Export CSV / Export JSON write) and the
   * exports so far (their names).
   */
  readonly folders: { latest: FolderScores | undefined; exports: number } = { latest: undefined, exports: 0 };
  /** The latest progress notification's messages ("Sections done: 3 / 20"), for the tests' API: what the user saw. */
  readonly progressShown: string[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = this.own(vscode.window.createOutputChannel('Draftsmith', { log: true }));
    // dist/host.js and dist/worker.js are bundled side by side.
    // The test hooks (crashForTest) only when VS Code runs the extension's tests, or asked for.
    const testHooks =
      extension.extensionMode === vscode.ExtensionMode.Test || process.env.DRAFTSMITH_TEST_CRASH === '1';
    // Hub models are downloaded into the extension's global storage, under hub/.
    const storageDir = extension.globalStorageUri.fsPath;
    this.engine = this.own(
      new EngineClient(
        path.join(__dirname, 'worker.js'),
        readEngineConfig(extension.extensionPath, storageDir),
        this.log,
        { testHooks, confirmDownload: askLargeDownload },
      ),
    );
    this.insights = this.own(new InsightsPanels(extension.extensionUri, () => this.lastShown, this.log));
    this.own(vscode.window.registerWebviewPanelSerializer(INSIGHTS_VIEW_TYPE, this.insights));
    this.roundTrips = this.own(new RoundTrips());
    const reconfigure = (why: string) => {
      const config = readEngineConfig(extension.extensionPath, storageDir);
      const hub = config.hub ? `, Hub ${config.hub.endpoint}${config.hub.offline ? ' (offline)' : ''}` : '';
      this.log.info(`${why}: models ${config.modelsDir}, device ${config.device}, threads ${config.threads}${hub}`);
      const problem = readHubConfig(storageDir).problem;
      if (problem) this.log.warn(`${problem} Until it is fixed, nothing is downloaded.`);
      this.engine.configure(config);
    };
    this.own(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsEngine(event)) reconfigure('settings changed');
      }),
    );
    // A workspace's own draftsmith.modelsPath counts only once the workspace is trusted
    // (capabilities.untrustedWorkspaces.restrictedConfigurations in package.json).
    this.own(vscode.workspace.onDidGrantWorkspaceTrust(() => reconfigure('workspace trusted')));
  }

  /** The last summary: only Summarize's results are kept (the panel's last message is lastPanelMessage). */
  get lastSummary(): SummarizeResult | undefined {
    return this.latestSummary;
  }

  get lastPanelMessage(): ToPanel | undefined {
    return this.lastShown;
  }

  /** Remembers the summary and shows it in the insights panel when that is open. */
  setLastSummary(result: SummarizeResult): void {
    this.latestSummary = result;
    this.present(toPanel(result), false);
  }

  /**
   * Makes `message` what the insights panel shows: sent now to an open panel; with `reveal`, the
   * panel is also opened (a new page asks for the message once loaded, so it is not sent twice).
   */
  present(message: ToPanel, reveal: boolean): void {
    const wasOpen = this.insights.isOpen;
    this.lastShown = message;
    if (reveal) this.insights.show();
    if (wasOpen) this.insights.post(message);
  }

  own<T extends vscode.Disposable>(disposable: T): T {
    this.subscriptions.push(disposable);
    return disposable;
  }

  dispose(): void {
    // Reverse order: the engine and panels go before the log they write to.
    for (const d of this.subscriptions.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // keep releasing the rest
      }
    }
  }
}
