// The insights page's Content-Security-Policy and the messages the page accepts: document text
// must never become script, and nothing may be loaded from outside the extension.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, insightsHtml, newNonce } from '../../extension/host/panelHtml';
import { summarizeView } from '../../extension/panelViews';
import { ToPanel, type SummarizeResult } from '../../extension/protocol';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

/** directive -> its sources, from the page's <meta http-equiv="Content-Security-Policy">. */
function policyOf(html: string): Map<string, string[]> {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(meta, 'the page has no Content-Security-Policy meta tag');
  const decoded = meta[1]
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return new Map(
    decoded
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

function page(nonce = newNonce()) {
  return {
    nonce,
    html: insightsHtml({
      cspSource: CSP_SOURCE,
      scriptUri: `${CSP_SOURCE}/dist/webview/panel.js`,
      styleUri: `${CSP_SOURCE}/dist/webview/panel.css`,
      nonce,
    }),
  };
}

test('scripts run only by a fresh nonce: no inline scripts, no eval, and the one script tag carries it', () => {
  const { html, nonce } = page();
  const policy = policyOf(html);
  assert.deepEqual(policy.get('default-src'), ["'none'"]);
  assert.deepEqual(policy.get('script-src'), [`'nonce-${nonce}'`]);
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic/);
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1);
  assert.match(scripts[0], new RegExp(` nonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}"`));
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'an inline event handler');
  // 144 random bits, and a new one for every page.
  assert.equal(Buffer.from(nonce, 'base64').length, 18);
  assert.equal(new Set(Array.from({ length: 50 }, () => newNonce())).size, 50);
});

test("nothing loads from outside the extension: every source is the webview's own or none", () => {
  const policy = policyOf(page().html);
  for (const [directive, sources] of policy) {
    for (const source of sources) {
      assert.ok(
        source === "'none'" || source === CSP_SOURCE || (directive === 'script-src' && source.startsWith("'nonce-")),
        `${directive} allows ${source}`,
      );
    }
  }
  for (const directive of ['connect-src', 'base-uri', 'form-action'])
    assert.deepEqual(policy.get(directive), ["'none'"], directive);
  // No scheme wildcards, data: or blob: anywhere.
  assert.doesNotMatch(contentSecurityPolicy(CSP_SOURCE, 'n'), /\s(\*|https?:|data:|blob:|filesystem:)(\s|;|$)/);
});

test('the panel accepts only well-formed protocol messages', () => {
  const stats = {
    inputTokens: 1,
    usedInputTokens: 1,
    outputTokens: 1,
    encodeMs: 1,
    decodeMs: 1,
    tokensPerSecond: 1,
    device: 'cpu',
    model: 'm',
  };
  const summary: SummarizeResult = {
    op: 'summarize',
    summary: 's',
    source: 'x',
    truncated: false,
    usedChars: 1,
    hitMaxLength: null,
    tokens: [],
    topPhrases: [],
    topics: [],
    stats,
  };
  const view = summarizeView(summary);
  assert.ok(ToPanel.safeParse({ type: 'summarize', view }).success);
  assert.ok(
    ToPanel.safeParse({ type: 'empty', message: '<img src=x onerror=alert(1)>' }).success,
    'text is text: the view escapes it',
  );
  for (const bad of [
    undefined,
    null,
    42,
    'summarize',
    [],
    {},
    { type: 'html', html: '<script>alert(1)</script>' },
    { type: 'summarize' },
    // The engine's result is not a view: the page takes views only.
    { type: 'summarize', result: summary },
    { type: 'summarize', view: { ...view, mode: 'essay' } },
    { type: 'summarize', view: { ...view, tokens: [{ text: 'x', start: '0', end: 1, weight: 1 }] } },
    { type: 'summarize', view: { ...view, stats: { ...stats, device: { toString: 'x' } } } },
    { type: 'essay', view: {} },
    { type: 'score', view },
    { type: 'empty' },
    { type: 'empty', message: 7 },
  ]) {
    assert.equal(ToPanel.safeParse(bad).success, false, JSON.stringify(bad));
  }
});
