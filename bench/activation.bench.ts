/**
 * Activation and the first command, without the editor: dist/host.js is required with a stub
 * 'vscode' module and activate() is called, which must start no worker and load no model (they
 * start on the first command); then the engine's worker (dist/worker.js, through the host's
 * EngineClient) serves a first Summarize Document cold, and a second warm, timed from the request to
 * the first token and to the result. Prints numbers; asserts nothing.
 *   node dist/bench/activation.bench.js       (npm run bench runs it with the rest)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EngineClient } from '../extension/host/engineClient';
import { peakRssMB, Reporter } from './report';

const root = path.resolve(__dirname, '..', '..');
const r = new Reporter('activation');

/** Any property is another stub, calling or constructing one gives a stub: enough for activate(). */
function anything(name: string): unknown {
  const fn = function stub() {
    /* a stub */
  };
  return new Proxy(fn, {
    get: (_t, key) => {
      if (key === Symbol.toPrimitive) return () => `[stub ${name}]`;
      if (key === 'then') return undefined; // not a promise
      return anything(`${name}.${String(key)}`);
    },
    // Assignments (a status bar item's text) are accepted and forgotten.
    set: () => true,
    apply: () => anything(`${name}()`),
    construct: () => anything(`new ${name}`) as object,
  });
}

// The names the host uses (bundlers copy a module's own keys, so they must be there, not proxied).
const vscodeStub: Record<string, unknown> = {
  ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  workspace: new Proxy(
    {
      isTrusted: true,
      getConfiguration: () => ({ get: (_k: string, d?: unknown) => d, inspect: () => undefined, has: () => false }),
    },
    { get: (t, k) => (k in t ? t[k as keyof typeof t] : anything(`workspace.${String(k)}`)) },
  ),
};
for (const name of [
  'window',
  'commands',
  'Uri',
  'Disposable',
  'CancellationTokenSource',
  'Position',
  'ProgressLocation',
  'QuickPickItemKind',
  'Range',
  'TabInputText',
  'ViewColumn',
  'WorkspaceEdit',
  'EventEmitter',
  'env',
  'l10n',
  'languages',
  'StatusBarAlignment',
  'InlineCompletionItem',
  'CodeActionKind',
  'CodeAction',
  'Diagnostic',
  'DiagnosticSeverity',
  'MarkdownString',
]) {
  vscodeStub[name] = anything(name);
}

// 'vscode' resolves to the stub for the host bundle.

const Module = require('node:module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = {
  id: 'vscode',
  filename: 'vscode',
  loaded: true,
  exports: vscodeStub,
} as unknown as NodeJS.Module;

// Count worker threads started (the module object, which the bundles read Worker from at each use).

const workerThreads = require('node:worker_threads') as typeof import('node:worker_threads');
let workers = 0;
const RealWorker = workerThreads.Worker;
(workerThreads as { Worker: unknown }).Worker = class extends RealWorker {
  constructor(...args: ConstructorParameters<typeof RealWorker>) {
    super(...args);
    workers++;
  }
};

const loaded = (name: string) =>
  Object.keys(require.cache).some(
    (k) => k.includes(`node_modules${path.sep}${name}`) || k.includes(`node_modules/${name}`),
  );

(async () => {
  r.section('activation (dist/host.js with a stub vscode module)');
  let t = performance.now();
  const host = require(path.join(root, 'dist', 'host.js')) as {
    activate(c: unknown): unknown;
    deactivate(): Promise<void> | undefined;
  };
  const requireMs = performance.now() - t;
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    extensionPath: root,
    extensionUri: anything('extensionUri'),
    // Where Hub models would be downloaded; activation only names it.
    globalStorageUri: { fsPath: path.join(root, '.work', 'bench-storage') },
    extensionMode: 1,
    globalState: anything('globalState'),
    workspaceState: anything('workspaceState'),
  };
  t = performance.now();
  host.activate(context);
  const activateMs = performance.now() - t;
  r.row('require dist/host.js', requireMs, 'ms');
  r.row('activate()', activateMs, 'ms');
  r.row('require + activate', requireMs + activateMs, 'ms', 'target < 100 ms');
  r.row('worker threads started by activation', workers, undefined, 'the engine starts on the first command');
  r.row('onnxruntime-node loaded by activation', loaded('onnxruntime-node') ? 'yes' : 'no');
  r.row('@huggingface/tokenizers loaded by activation', loaded('@huggingface/tokenizers') ? 'yes' : 'no');
  await host.deactivate();

  r.section('first command through the engine worker (no editor)');
  const text = readFileSync(path.join(root, 'samples', 'sample.md'), 'utf8');
  const threads = Number(process.env.THREADS ?? 1);
  const client = new EngineClient(
    path.join(root, 'dist', 'worker.js'),
    { modelsDir: path.join(root, 'models'), device: 'cpu', threads },
    { info: () => {}, warn: () => {}, error: () => {} },
  );
  const summarize = async () => {
    const start = performance.now();
    let first = NaN;
    await client.request(
      { op: 'summarize', text },
      {
        onProgress: (_m, f) => {
          if (f !== undefined && f > 0 && Number.isNaN(first)) first = performance.now() - start;
        },
      },
    );
    return { first, total: performance.now() - start };
  };
  const cold = await summarize();
  const warm = await summarize();
  r.row(
    'first Summarize Document: to the first token',
    cold.first,
    'ms',
    'worker start, onnxruntime-node load, model load, encoder, first step (beam 4)',
  );
  r.row('first Summarize Document: to the result', cold.total, 'ms');
  r.row('next Summarize Document: to the first token', warm.first, 'ms', 'target < 300 ms');
  r.row('next Summarize Document: to the result', warm.total, 'ms');
  r.row(
    `peak RSS of the process with the worker (threads ${threads})`,
    peakRssMB(),
    'MB',
    'the worker is a thread of the extension host',
  );
  await client.shutdown();

  // What the last in-host test run printed (npm test): the time from the command to the edit in VS Code.
  r.section('in the editor (from the last `npm test`, test/integration/.out/in-host.log)');
  try {
    const log = readFileSync(path.join(root, 'test', 'integration', '.out', 'in-host.log'), 'utf8');
    // The suite prints "<what>: N ms from command to <result>" for each command it times
    // (test/integration/suite/helpers.ts).
    const timed = [...log.matchAll(/^\[info\] (.+?): (\d+) ms from command to (.+)$/gm)];
    for (const [, what, ms, result] of timed) r.row(`${what}: command to ${result}`, Number(ms), 'ms');
    if (timed.length === 0) r.row('command to edit', null, undefined, 'not in the log: run npm test');
  } catch {
    r.row('command to edit', null, undefined, 'no in-host log: run npm test');
  }
  r.done();
})();
