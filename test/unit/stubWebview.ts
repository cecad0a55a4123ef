/**
 * A stub webview panel for host code that opens the insights panel (host/insightsPanel.ts): it adds
 * window.createWebviewPanel, Uri.joinPath and ViewColumn to the 'vscode' stub, records what the host
 * posts and lets a test deliver messages as the page would. Call it before requiring the host module:
 * esbuild copies a module's exports when it is first required.
 */
import { vscodeStub } from './vscodeStub';

export interface StubWebview {
  /** What the host posted to the page. */
  posted: unknown[];
  /** Delivers `data` to the host's onDidReceiveMessage listeners, as a message from the page. */
  receive(data: unknown): void;
}

export function stubWebview(): StubWebview {
  const listeners: ((data: unknown) => void)[] = [];
  const posted: unknown[] = [];
  const disposable = { dispose: () => undefined };
  const panel = {
    webview: {
      options: {},
      html: '',
      cspSource: 'https://stub.vscode-cdn.net',
      asWebviewUri: (uri: { path: string }) => ({ toString: () => `https://stub.vscode-cdn.net${uri.path}` }),
      onDidReceiveMessage: (listener: (data: unknown) => void) => {
        listeners.push(listener);
        return disposable;
      },
      postMessage: (message: unknown) => {
        posted.push(message);
        return Promise.resolve(true);
      },
    },
    onDidDispose: () => disposable,
    onDidChangeViewState: () => disposable,
    reveal: () => undefined,
    dispose: () => undefined,
  };
  Object.assign(vscodeStub, {
    ViewColumn: { Beside: -2 },
    Uri: { joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/') }) },
    window: { createWebviewPanel: () => panel },
  });
  return { posted, receive: (data) => listeners.forEach((l) => l(data)) };
}
