/**
 * The insights webview: one panel class owning its disposables (the webview-sample shape), and an
 * owner that opens, revives (serializer) and feeds it. The page itself is webview/panel.ts.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { FromPanel, SummarizeResult, ToPanel } from '../protocol';

export const INSIGHTS_VIEW_TYPE = 'draftsmith.insights';
export const EMPTY_INSIGHTS = 'Run Draftsmith: Summarize Document to see what the model attended to.';

type LastResult = () => SummarizeResult | undefined;

class InsightsPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly lastResult: LastResult,
    private readonly log: vscode.LogOutputChannel,
    onDisposed: () => void,
  ) {
    // Also set on revive: a deserialized panel keeps the options it was saved with, which may predate ours.
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => {
        onDisposed();
        this.dispose();
      }),
      panel.webview.onDidReceiveMessage((data: unknown) => this.onMessage(data)),
      // Without retainContextWhenHidden the page reloads when shown again and then says 'ready';
      // posting here too covers a page that kept its context.
      panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.visible) this.sendCurrent();
      }),
    );
  }

  reveal(): void {
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  show(result: SummarizeResult): void {
    this.post({ type: 'summarize', result });
  }

  dispose(): void {
    // panel.dispose() fires onDidDispose, which calls back here; the emptied list ends the loop.
    const disposables = this.disposables.splice(0);
    if (disposables.length === 0) return;
    this.panel.dispose();
    for (const d of disposables) d.dispose();
  }

  private sendCurrent(): void {
    const result = this.lastResult();
    this.post(result ? { type: 'summarize', result } : { type: 'empty', message: EMPTY_INSIGHTS });
  }

  private post(message: ToPanel): void {
    void this.panel.webview.postMessage(message).then(undefined, (err: unknown) => {
      this.log.warn(`insights: could not post to the panel: ${String(err)}`);
    });
  }

  private onMessage(data: unknown): void {
    const parsed = FromPanel.safeParse(data);
    if (!parsed.success) {
      this.log.warn(`insights: ignoring a malformed message from the panel: ${parsed.error.message}`);
      return;
    }
    switch (parsed.data.type) {
      case 'ready':
        this.sendCurrent();
        return;
    }
  }

  private html(): string {
    const webview = this.panel.webview;
    const root = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.css'));
    const nonce = randomBytes(18).toString('base64'); // fresh per load
    const csp = [
      `default-src 'none'`,
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource}`,
      `connect-src 'none'`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Draftsmith Insights</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

/** Holds the one insights panel, if open. */
export class InsightsPanels implements vscode.Disposable, vscode.WebviewPanelSerializer {
  private current: InsightsPanel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly lastResult: LastResult,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get isOpen(): boolean {
    return this.current !== undefined;
  }

  show(): void {
    if (this.current) {
      this.current.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      INSIGHTS_VIEW_TYPE,
      'Draftsmith Insights',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      webviewOptions(this.extensionUri),
    );
    this.adopt(panel);
  }

  /** WebviewPanelSerializer: a panel left open survives a window reload. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, _state: unknown): Promise<void> {
    this.current?.dispose();
    this.adopt(panel);
  }

  /** Sends a fresh result to the panel when it is open; the page asks for it anyway on load. */
  post(result: SummarizeResult): void {
    this.current?.show(result);
  }

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    const owned: InsightsPanel = new InsightsPanel(panel, this.extensionUri, this.lastResult, this.log, () => {
      if (this.current === owned) this.current = undefined;
    });
    this.current = owned;
  }
}
