// Runs the in-host test module (extensionTestsPath) inside code-server's Node extension host,
// the way @vscode/test-electron does inside Electron: a workbench page opened with a `payload`
// naming extensionDevelopmentPath and extensionTestsPath. code-server must have been started with
// `--vscode-option enable-smoke-test-driver`, or the built workbench ignores the payload.
// The module's console output comes back through window.codeAutomationLog, its result through
// window.codeAutomationExit(code).
//
// usage: node in-host.js <baseUrl> <workspaceFolder> <extensionDevelopmentPath> <extensionTestsPath> <outDir>
// env:   INHOST_TIMEOUT_S (default 900)
// Writes <outDir>/in-host.json {passed, failed, exitCode, seconds} and exits 0 only when the module passed.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch, logger, remoteUri, parseCounts } = require('./browser');

const [base, folder, devPath, testsPath, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node in-host.js <baseUrl> <folder> <extDevPath> <extTestsPath> <outDir>');
  process.exit(2);
}
const timeoutS = Number(process.env.INHOST_TIMEOUT_S || 900);
const log = logger('in-host');
const started = Date.now();

(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  const transcript = fs.createWriteStream(path.join(outDir, 'in-host.log'));
  let relayed = ''; // what the module printed, to find its "N passed, M failed"
  let sawAutomationLog = false;
  let browser, page, result;
  try {
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let done;
    const exited = new Promise((resolve) => (done = resolve));
    // The workbench's log, which in extension-test mode carries the extension host's console
    // (the test module's output) too.
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      sawAutomationLog = true;
      const text = (Array.isArray(args) ? args : [args])
        .map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))
        .join(' ');
      transcript.write(`[${type}] ${text}\n`);
      relayed += text + '\n';
      // Stack frames inside the workbench bundle are noise here (they stay in in-host.log).
      const lines = text.split('\n').filter((l) => !/^\s+at .*\/static\/out\/vs\//.test(l));
      for (const line of lines) console.log(`[vscode${type === 'info' || type === 'log' ? '' : ' ' + type}] ${line}`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => {
      log('codeAutomationExit', code);
      done(code);
    });
    // The browser console carries the same extension-host lines ("[Extension Host] ...") and
    // workbench noise; keep it all in the transcript, and relay extension-host lines only when
    // codeAutomationLog is not doing it.
    page.on('console', (m) => {
      const text = m.text();
      transcript.write(`[console.${m.type()}] ${text}\n`);
      if (!sawAutomationLog && /Extension Host/.test(text)) {
        const clean = text.replace(/%c/g, '').replace(/\s*color: [^ ]+/g, '');
        relayed += clean + '\n';
        console.log(`[console] ${clean}`);
      }
    });
    page.on('pageerror', (e) => {
      transcript.write(`[pageerror] ${e.message}\n`);
      log('pageerror:', e.message);
    });

    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remoteUri(base, devPath)],
      ['extensionTestsPath', remoteUri(base, testsPath)],
      ['skipWelcome', 'true'],
    ]);
    const url = `${base}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`;
    log('open', url);
    await page.goto(url, { timeout: 120_000 });
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), timeoutS * 1000))]);
    if (code === 'timeout') log(`no result within ${timeoutS}s`);
    await page.screenshot({ path: path.join(outDir, 'in-host.png') }).catch(() => {});
    result = { exitCode: code };
  } catch (e) {
    log('ERROR', (e && e.stack) || e);
    if (page) await page.screenshot({ path: path.join(outDir, 'in-host-error.png') }).catch(() => {});
    result = { exitCode: 'error', error: String((e && e.message) || e) };
  } finally {
    if (browser) await browser.close().catch(() => {});
    transcript.end();
  }
  // The module's own count; a failing exit or a missing count is a failure in any case.
  const counts = parseCounts(relayed) || { passed: 0, failed: 0 };
  if (result.exitCode !== 0 && counts.failed === 0) counts.failed = 1;
  if (result.exitCode === 0 && counts.passed + counts.failed === 0) counts.passed = 1;
  // The failing tests' names and first error line, so the run's last lines say which failed.
  const failures = [...relayed.matchAll(/^✖ (.*)\n(?:\s+(.*))?/gm)].map((m) => ({ name: m[1], error: m[2] || '' }));
  const summary = {
    ...counts,
    failures,
    exitCode: result.exitCode,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  fs.writeFileSync(path.join(outDir, 'in-host.json'), JSON.stringify(summary, null, 2));
  log(`exit code ${result.exitCode}; ${counts.passed} passed, ${counts.failed} failed in-host`);
  process.exit(result.exitCode === 0 && counts.failed === 0 ? 0 : 1);
})();
