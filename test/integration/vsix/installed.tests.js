// Runs inside code-server's extension host (the extensionTestsPath contract) against Draftsmith
// installed from the VSIX by `code-server --install-extension`: the extension under development is
// only test/integration/vsix/probe, so every command here is the installed copy's.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const EXTENSION_ID = 'draftsmith.draftsmith';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(condition, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const tests = [
  {
    name: "Draftsmith is the VSIX's copy in the extensions folder: dist/ and the models, no tests, sources or training code",
    async run() {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext, `${EXTENSION_ID} is not installed`);
      const at = ext.extensionPath;
      assert.match(path.basename(at), /^draftsmith\.draftsmith-\d+\.\d+\.\d+/, at);
      for (const f of [
        'dist/host.js',
        'dist/worker.js',
        'dist/webview/panel.js',
        'models/summarize/model.json',
        'models/essay/model.json',
      ]) {
        assert.ok(fs.existsSync(path.join(at, f)), `the installed extension lacks ${f}`);
      }
      for (const f of [
        'dist/test',
        'dist/bench',
        'test',
        'extension',
        'webview',
        'scripts',
        'models/train/export.py',
        '.git',
        'node_modules/typescript',
        'node_modules/onnxruntime-web',
      ]) {
        assert.ok(!fs.existsSync(path.join(at, f)), `the installed extension holds ${f}`);
      }
      // onnxruntime-node: this platform's binary only, and no CUDA/TensorRT provider library.
      const bin = path.join(at, 'node_modules/onnxruntime-node/bin/napi-v6');
      const platforms = fs
        .readdirSync(bin)
        .flatMap((os) => fs.readdirSync(path.join(bin, os)).map((arch) => `${os}-${arch}`));
      assert.deepEqual(platforms, [`${process.platform}-${process.arch}`]);
      const natives = fs.readdirSync(path.join(bin, process.platform, process.arch));
      assert.deepEqual(
        natives.filter((f) => /providers_(cuda|tensorrt|shared)/.test(f)),
        [],
      );
    },
  },
  {
    name: 'Summarize Document, run from the installed extension, appends a summary to the document',
    async run() {
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder, 'no workspace folder');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'sample.md'));
      const editor = await vscode.window.showTextDocument(doc, { preview: false });
      editor.selection = new vscode.Selection(0, 0, 0, 0); // the whole document
      const original = doc.getText();
      const started = Date.now();
      await vscode.commands.executeCommand('draftsmith.summarize');
      await waitFor(() => doc.getText() !== original, 'the summary in the document', 150_000);
      console.log(`installed summarize: ${Date.now() - started} ms from command to inserted summary`);
      const text = doc.getText();
      assert.ok(
        text.startsWith(`${original}\n\nSummary: `),
        `not a summary after the text: ${JSON.stringify(text.slice(original.length))}`,
      );
      const summary = text
        .slice(original.length)
        .replace(/^\n\nSummary: /, '')
        .trim();
      assert.ok(summary.length > 0 && summary.length < original.length / 2, `summary: ${JSON.stringify(summary)}`);
      console.log(`    summary: ${summary}`);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    },
  },
];

exports.run = async function run() {
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    try {
      await t.run();
      passed++;
      console.log(`✔ ${t.name}`);
    } catch (err) {
      failed++;
      console.log(`✖ ${t.name}`);
      for (const line of String((err && err.stack) || err).split('\n')) console.log(`    ${line}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} of ${tests.length} VSIX tests failed`);
};
