// Used by `scripts/start.sh --check`: loads the started workbench in headless Chromium and checks
// that it shows the workspace's sample.md, open in an editor, and that the command palette lists Draftsmith's commands.
// usage: node check-start.js <workbenchUrl> <screenshot.png>
'use strict';
const { launch, logger } = require('./browser');

const [url, shotPath] = process.argv.slice(2);
const WANT = ['Draftsmith: Summarize Document', 'Draftsmith: Show Insights'];
const log = logger('check');

(async () => {
  let browser,
    page,
    ok = false;
  try {
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url, { timeout: 120_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 120_000 });
    await page.waitForSelector('.part.statusbar', { timeout: 120_000 });
    log('workbench visible');
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'sample.md' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    log('Explorer shows sample.md');
    // ... and it is open in an editor (what `npm start` promises), with its text.
    await page
      .locator('.tabs-container .tab', { hasText: 'sample.md' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.editor-instance .view-lines').first().waitFor({ state: 'visible', timeout: 60_000 });
    log('sample.md is open in an editor');
    // The extension's contributions can appear a few seconds after the workbench: retry the palette.
    const input = page.locator('.quick-input-widget input');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    let listed = [];
    for (let attempt = 1; attempt <= 20; attempt++) {
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 30_000 });
      // Each command asked for by name: the list draws only the rows that fit, and "Draftsmith"
      // alone now matches more commands than that.
      listed = [];
      for (const w of WANT) {
        await input.fill(`>${w}`);
        await page.waitForTimeout(attempt === 1 ? 1_000 : 2_000);
        listed.push(
          ...(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || ''))).filter(Boolean),
        );
      }
      if (WANT.every((w) => listed.some((l) => l.includes(w)))) break;
      log(`palette lists ${JSON.stringify(listed)}; retry ${attempt}`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_000);
    }
    ok = WANT.every((w) => listed.some((l) => l.includes(w)));
    log(ok ? 'PASS' : 'FAIL', 'palette lists:', JSON.stringify(listed));
    await page.screenshot({ path: shotPath });
  } catch (e) {
    log('ERROR', (e && e.message) || e);
    if (page) await page.screenshot({ path: shotPath }).catch(() => {});
  } finally {
    if (browser) await browser.close().catch(() => {});
  }
  process.exit(ok ? 0 : 1);
})();
