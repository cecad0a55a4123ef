/**
 * The insights webview: one panel class owning its disposables (the webview-sample shape), and an
 * owner that opens, revives (serializer) and feeds it. The page itself is webview/panel.ts.
 */
import * as vscode from 'vscode';
import type { FromPanel, ToPanel } from '../protocol';
import { EMPTY_INSIGHTS } from '../panelViews';
import { schemas } from './schemas';
import { insightsHtml, newNonce } from './panelHtml';

export const INSIGHTS_VIEW_TYPE = 'draftsmith.insights';

/** The message the panel should show now (any view), if there is one. */
type Current = () => ToPanel | undefined;

/** The page's requests the owner answers ('ready' is the panel's own: it is answered with the current view). */
export type PanelRequest = Exclude<FromPanel, { type: 'ready' }>;
type Handler<T extends PanelRequest['type']> = (message: Extract<PanelRequest, { type: T }>) => void;
type Dispatch = (message: PanelRequest) => void;

class InsightsPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly current: Current,
    private readonly log: vscode.LogOutputChannel,
    private readonly dispatch: Dispatch,
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

  post(message: ToPanel): void {
    void this.panel.webview.postMessage(message).then(undefined, (err: unknown) => {
      this.log.warn(`insights: could not post to the panel: ${String(err)}`);
    });
  }

  dispose(): void {
    // panel.dispose() fires onDidDispose, which calls back here; the emptied list ends the loop.
    const disposables = this.disposables.splice(0);
    if (disposables.length === 0) return;
    this.panel.dispose();
    for (const d of disposables) d.dispose();
  }

  private sendCurrent(): void {
    this.post(this.current() ?? { type: 'empty', message: EMPTY_INSIGHTS });
  }

  private onMessage(data: unknown): void {
    const parsed = schemas().FromPanel.safeParse(data);
    if (!parsed.success) {
      this.log.warn(`insights: ignoring a malformed message from the panel: ${parsed.error.message}`);
      return;
    }
    if (parsed.data.type === 'ready') this.sendCurrent();
    else this.dispatch(parsed.data);
  }

  private html(): string {
    const webview = this.panel.webview;
    const root = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    return insightsHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'panel.css')).toString(),
      nonce: newNonce(), // fresh per load
    });
  }
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

/**
 * Holds the one insights panel, if open. What the page asks for is answered by the handlers its
 * owner registers (handle()), so this module knows no command.
 */
export class InsightsPanels implements vscode.Disposable, vscode.WebviewPanelSerializer {
  private panel: InsightsPanel | undefined;
  private readonly handlers = new Map<PanelRequest['type'], (message: PanelRequest) => void>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly current: Current,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal();
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
    this.panel?.dispose();
    this.adopt(panel);
  }

  /** Answers the page's `type` requests with `handler` (one per type) until the disposable is disposed. */
  handle<T extends PanelRequest['type']>(type: T, handler: Handler<T>): vscode.Disposable {
    if (this.handlers.has(type)) throw new Error(`insights: a second handler for '${type}'`);
    this.handlers.set(type, handler as (message: PanelRequest) => void);
    return { dispose: () => this.handlers.delete(type) };
  }

  /** Sends a message to the panel when it is open; a page that loads later asks for the current one. */
  post(message: ToPanel): void {
    this.panel?.post(message);
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    const dispatch: Dispatch = (message) => {
      const handler = this.handlers.get(message.type);
      if (handler) handler(message);
      else this.log.warn(`insights: nothing answers the panel's '${message.type}' yet`);
    };
    const owned: InsightsPanel = new InsightsPanel(panel, this.extensionUri, this.current, this.log, dispatch, () => {
      if (this.panel === owned) this.panel = undefined;
    });
    this.panel = owned;
  }
}
