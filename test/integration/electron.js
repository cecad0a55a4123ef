// `npm run test:electron`: the same in-host suite (dist/test/integration/suite.js) in a desktop VS Code
// downloaded by @vscode/test-electron. Needs network access; CI and offline machines use code-server
// (test/integration/run.sh) instead.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { runTests } = require('@vscode/test-electron');

(async () => {
  const root = path.resolve(__dirname, '..', '..');
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'draftsmith-ws-'));
  fs.copyFileSync(path.join(root, 'samples', 'sample.md'), path.join(ws, 'sample.md'));
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'dist', 'test', 'integration', 'suite.js'),
    launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust'],
  });
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
