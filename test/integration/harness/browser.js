// Shared by the harness scripts: Debian's Chromium driven by playwright-core, and small helpers.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless Chromium with no network chatter of its own, and a throwaway HOME so that it writes
 *  nothing (dconf, crash-report settings) into the real one. */
async function launch() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'draftsmith-chromium-'));
  const browser = await chromium
    .launch({
      executablePath: CHROMIUM,
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
      },
      headless: true,
      timeout: 120_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-extensions',
      ],
    })
    .catch((e) => {
      fs.rmSync(home, { recursive: true, force: true });
      throw e;
    });
  browser.on('disconnected', () => fs.rmSync(home, { recursive: true, force: true }));
  return browser;
}

/** console.log with seconds since start, for slow-machine diagnostics. */
/** @param {string} tag */
function logger(tag) {
  const t0 = Date.now();
  return (/** @type {unknown[]} */ ...a) => console.log(`[${tag} ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
}

/** vscode-remote URI of an absolute path on the code-server machine. */
/**
 * @param {string} base
 * @param {string} absPath
 */
function remoteUri(base, absPath) {
  return `vscode-remote://${new URL(base).host}${absPath.split('/').map(encodeURIComponent).join('/')}`;
}

/** Last "N passed, M failed" in text, or undefined. */
/** @param {string} text */
function parseCounts(text) {
  let m, last;
  const re = /(?:^|\s)(\d+) passed, (\d+) failed/g;
  while ((m = re.exec(text))) last = { passed: Number(m[1]), failed: Number(m[2]) };
  return last;
}

module.exports = { launch, logger, remoteUri, parseCounts, CHROMIUM };
