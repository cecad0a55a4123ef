/**
 * The insights page's HTML and its Content-Security-Policy, kept apart from 'vscode' so a unit
 * test can read the policy: scripts only by a fresh nonce (no 'unsafe-inline', no 'unsafe-eval'),
 * styles, images and fonts only from the extension's own webview resources, nothing else at all.
 */
import { randomBytes } from 'node:crypto';

export interface PanelResources {
  /** webview.cspSource: where the webview may load the extension's own files from. */
  cspSource: string;
  /** webview.asWebviewUri of dist/webview/panel.js and panel.css. */
  scriptUri: string;
  styleUri: string;
  /** A fresh value for every page load (newNonce()). */
  nonce: string;
}

/** 144 random bits, base64: a nonce the page cannot guess or reuse. */
export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource}`,
    `connect-src 'none'`,
    `font-src ${cspSource}`,
    // No <base> to redirect the script's relative URLs, no forms to post document text anywhere.
    `base-uri 'none'`,
    `form-action 'none'`,
  ].join('; ');
}

/** Attribute values are escaped, though they come from VS Code, not from the document. */
const attr = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function insightsHtml(r: PanelResources): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(r.cspSource, r.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(r.styleUri)}">
<title>Draftsmith Insights</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${attr(r.nonce)}" src="${attr(r.scriptUri)}"></script>
</body>
</html>`;
}
