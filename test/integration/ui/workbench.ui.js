// @ts-check
// UI test: drives the real VS Code workbench (code-server) in headless Chromium as a person would,
// with Draftsmith installed in code-server's extensions dir. Asserts on what the page shows.
//
// usage: node workbench.ui.js <workbenchUrl?folder=...> <outDir>
// env:   UI_COMMAND_TIMEOUT_S (default 300): how long a model-backed command may take
//        UI_TESTS=REGEX: only the tests whose names match (and the first, which loads the workbench)
//        DRAFTSMITH_DOC_SCREENSHOTS=1: also write the documentation's screenshots (docs/images/*.png)
// Prints one "ok"/"not ok" line per test; writes <outDir>/ui.json {passed, failed, seconds, tests}
// and screenshots into <outDir>; exits 0 only when every test passed.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch, logger } = require('../harness/browser');

const [url, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node workbench.ui.js <workbenchUrl> <outDir>');
  process.exit(2);
}
const SAMPLE = 'sample.md';
const commandTimeoutMs = Number(process.env.UI_COMMAND_TIMEOUT_S || 300) * 1000;
const log = logger('ui');
const started = Date.now();

/** @type {import('playwright-core').Page} */
let page;
/** @param {string} name */
const shot = async (name) => {
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file }).catch((e) => log('screenshot failed:', e.message));
  return file;
};
/** @param {string} s */
const nbsp = (s) => s.replace(/\u00a0/g, ' ');
// The rendered text is wrapped to the editor's width (which changes when a scrollbar comes and
// goes), and Monaco reuses line elements, so their DOM order need not be the visual order:
// compare the multiset of words.
/** @param {string} s */
const words = (s) => s.split(/\s+/).filter(Boolean).sort().join(' ');
/** A thrown value's message, for the report. @param {unknown} e */
const messageOf = (e) => String((e instanceof Error && e.message) || e);
let originalText = '';

// ------------------------------------------------------------------ workbench helpers
const activeEditorLines = () => page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
// What a click lands on: the text area's viewport, which stays put when a long line scrolls the lines
// sideways (the lines element then starts left of the editor, and its centre lies under the side bar).
const activeEditorViewport = () =>
  page.locator('.editor-group-container.active .monaco-editor .editor-scrollable').first();
const editorText = async () =>
  nbsp(
    await activeEditorLines()
      .innerText()
      .catch(() => ''),
  );

/**
 * @param {(text: string) => boolean} predicate
 * @param {number} timeoutMs
 * @param {string} what
 */
async function waitForText(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await editorText();
    if (predicate(text)) return text;
    await page.waitForTimeout(250);
  }
  throw new Error(
    `timed out after ${timeoutMs / 1000}s waiting for ${what}; editor shows: ${JSON.stringify(text.slice(-300))}`,
  );
}

/** Runs a command by its palette title. Contributions of a freshly started extension host can
 *  show up a few seconds after the workbench, so reopen the palette until the row is listed.
 *  `asks: true`: the command opens a QuickPick of its own in the same widget, so do not wait for it to close. */
/** @param {string} title */
async function runFromPalette(title, { asks = false } = {}) {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${title}"]`);
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill('>' + title);
    try {
      await row.first().waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (e) {
      if (attempt >= 20) throw new Error(`"${title}" never listed in the command palette`, { cause: e });
      log(`"${title}" not listed yet, retry ${attempt}`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_500);
    }
  }
  await row.first().click();
  if (!asks) await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  log(`ran "${title}"`);
}

/**
 * Clicks in the editor's text area. A transient workbench overlay sometimes takes pointer events for a
 * while (seen once in a run under load): then Escape, a pause, and a second try.
 */
/** @param {Parameters<import('playwright-core').Locator['click']>[0]} options */
async function clickEditor(options) {
  for (let attempt = 1; ; attempt++) {
    try {
      await activeEditorViewport().click({ ...options, timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      log(`editor click intercepted, retry ${attempt}`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_000);
    }
  }
}

/** A new untitled editor with `text` typed into it, as a person would (`what` names it in a timeout). */
/**
 * @param {string} text
 * @param {string} what
 */
async function typeIntoNewFile(text, what) {
  await runFromPalette('File: New Untitled Text File');
  await page.waitForTimeout(500);
  await page.keyboard.type(text);
  await waitForText((t) => words(t) === words(text), 30_000, what);
  await page.keyboard.press('Escape'); // a suggestion widget, if one opened
}

async function focusEditor() {
  // A click on the text area focuses the editor (moving the cursor is harmless for these tests).
  await clickEditor({ position: { x: 5, y: 5 } });
}

// ------------------------------------------------------------------ tests
/** @type {{ name: string; fn: () => Promise<void> }[]} */
const tests = [];
/**
 * @param {string} name
 * @param {() => Promise<void>} fn
 */
const test = (name, fn) => tests.push({ name, fn });
const REPO = path.resolve(__dirname, '..', '..', '..');

test('workbench loads and opens sample.md from the Explorer', async () => {
  await page.goto(url, { timeout: 120_000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 120_000 });
  await page.waitForSelector('.part.statusbar', { timeout: 120_000 });
  log('workbench visible');
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: SAMPLE }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.dblclick();
  await page.waitForSelector(`.tabs-container .tab[aria-label*="${SAMPLE}"]`, { timeout: 60_000 });
  originalText = await waitForText(
    (t) => t.includes('Harbor Street') && t.includes('in the autumn'),
    30_000,
    'the sample text',
  );
  await shot('ui-1-opened');
});

test('"Draftsmith: Summarize Document" from the command palette inserts a summary', async () => {
  await focusEditor();
  await runFromPalette('Draftsmith: Summarize Document');
  const text = await waitForText((t) => t.includes('Summary:'), commandTimeoutMs, '"Summary:" in the editor');
  log('summary line:', JSON.stringify(text.split('\n').find((l) => l.includes('Summary:'))));
  await shot('ui-2-summarized');
});

test('Ctrl+Z removes the inserted summary in one step', async () => {
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText(
    (t) => !t.includes('Summary:') && words(t) === words(originalText),
    15_000,
    'one undo to restore the original text',
  );
  await shot('ui-3-undone');
});

test('the editor context menu lists "Summarize Document", "Expand Topic Words into Essay", "Continue Story", "Write a Premise", "Score Draft", "Check Coherence", "Round-Trip Paragraph" and "Suggest Replies"', async () => {
  await clickEditor({ button: 'right', position: { x: 40, y: 10 } });
  // Menus render in a shadow root; Playwright's CSS locators pierce open shadow roots.
  const menu = page.locator('.monaco-menu .actions-container');
  await menu.first().waitFor({ state: 'visible', timeout: 15_000 });
  for (const title of [
    'Summarize Document',
    'Expand Topic Words into Essay',
    'Continue Story',
    'Write a Premise',
    'Score Draft',
    'Check Coherence',
    'Round-Trip Paragraph',
    'Suggest Replies',
  ]) {
    const item = page.locator('.monaco-menu .action-label', { hasText: title });
    await item.first().waitFor({ state: 'visible', timeout: 15_000 });
  }
  await shot('ui-4-context-menu');
  await page.keyboard.press('Escape');
});

/** The insights page: the webview host iframe nests the extension's content in #active-frame once loaded. */
async function insightsFrame() {
  await page.locator('iframe.webview').first().waitFor({ state: 'visible', timeout: 60_000 });
  const outer = page.frameLocator('iframe.webview').first();
  await outer.locator('#active-frame').waitFor({ state: 'attached', timeout: 60_000 });
  return outer.frameLocator('#active-frame');
}

test('"Draftsmith: Show Insights" opens a webview panel', async () => {
  await runFromPalette('Draftsmith: Show Insights');
  const body = (await insightsFrame()).locator('body');
  await body.waitFor({ state: 'attached', timeout: 60_000 });
  const deadline = Date.now() + 60_000;
  let inner = '';
  while (Date.now() < deadline && !(inner = (await body.innerText().catch(() => '')).trim()))
    await page.waitForTimeout(500);
  if (!inner) throw new Error('the insights webview stayed empty');
  log('webview text:', JSON.stringify(inner.slice(0, 160)));
  await page.waitForTimeout(1_000);
  await shot('ui-5-insights');
  if (process.env.DRAFTSMITH_DOC_SCREENSHOTS === '1') await docScreenshot('panel');
});

/**
 * The documentation's picture of the panel (docs/images/NAME.png), taken here so that it shows the
 * panel as it is now: in a light theme, which reads best on a web page, then back to the theme before.
 */
/** @param {string} name */
async function docScreenshot(name) {
  const before = await chooseColorTheme('Light');
  await page.waitForTimeout(1_500); // the webview restyles from the theme's colours
  const file = path.join(REPO, 'docs', 'images', `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file });
  log('documentation screenshot:', path.relative(REPO, file), before ? `(theme was ${before})` : '');
  if (before) await chooseColorTheme(before);
}

/**
 * Picks a colour theme in "Preferences: Color Theme" by (part of) its label, a Modern one first when
 * several match; returns the label of the theme that was current, to go back to.
 */
/** @param {string} label */
async function chooseColorTheme(label) {
  await runFromPalette('Preferences: Color Theme', { asks: true });
  const input = page.locator('.quick-input-widget input');
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
  const current = (await page.locator('.quick-input-list .monaco-list-row.focused').first().getAttribute('aria-label'))
    ?.split(',')[0]
    ?.trim();
  await input.fill(label);
  const modern = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${label} Modern"]`);
  const row = (await modern.count()) ? modern.first() : rows.first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await row.click();
  await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  return current;
}

// Three sentences of sample.md, last first: a draft whose order departs from the source's.
const DRAFT =
  'The council plans to hold a small festival on the riverbank next month. ' +
  'The project cost just over four million dollars. ' +
  'The town of Millbrook Falls reopened its Harbor Street footbridge on Saturday morning.';

/** Picks `label` in the QuickPick that a Draftsmith command shows for the reference or source. */
/** @param {string} label */
async function pickReference(label) {
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'Choose a file' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${label}"]`).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
  await page
    .locator('.quick-input-widget')
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => {});
  log(`picked "${label}"`);
}

/** What `draftsmith score --document --json` prints for the draft against sample.md. */
function cliScores() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'draftsmith-ui-'));
  try {
    fs.writeFileSync(path.join(dir, 'draft.txt'), DRAFT);
    const out = execFileSync(
      process.execPath,
      [
        path.join(REPO, 'dist', 'cli.js'),
        'score',
        '--document',
        '--ref',
        path.join(REPO, 'samples', SAMPLE),
        '--hyp',
        path.join(dir, 'draft.txt'),
        '--json',
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return JSON.parse(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of the panel's [data-metric=name] cell, once it is there. */
/**
 * @param {import('playwright-core').FrameLocator} frame
 * @param {string} name
 * @param {number} timeoutMs
 */
async function panelMetric(frame, name, timeoutMs) {
  const cell = frame.locator(`[data-metric="${name}"]`).first();
  await cell.waitFor({ state: 'attached', timeout: timeoutMs });
  return ((await cell.textContent()) ?? '').trim();
}

/**
 * @param {import('playwright-core').FrameLocator} frame
 * @param {string} view
 */
async function expectChart(frame, view) {
  const canvas = frame.locator(`#app[data-view="${view}"] canvas[role="img"]`).first();
  await canvas.waitFor({ state: 'visible', timeout: 30_000 });
  await canvas.scrollIntoViewIfNeeded(); // for the screenshot
  const box = await canvas.boundingBox();
  if (!box || box.width < 50 || box.height < 50)
    throw new Error(`the ${view} chart is not drawn: ${JSON.stringify(box)}`);
  log(`${view} chart ${Math.round(box.width)}x${Math.round(box.height)}: ${await canvas.getAttribute('aria-label')}`);
}

test('"Draftsmith: Score Draft" on a new document against sample.md shows the CLI\'s numbers and a chart', async () => {
  await typeIntoNewFile(DRAFT, 'the typed draft');
  await runFromPalette('Draftsmith: Score Draft', { asks: true });
  await pickReference(SAMPLE);
  const frame = await insightsFrame();
  const shown = {
    bleu: await panelMetric(frame, 'bleu', commandTimeoutMs),
    rouge1: await panelMetric(frame, 'rouge1', 10_000),
    rougeL: await panelMetric(frame, 'rougeL', 10_000),
  };
  log('panel shows', JSON.stringify(shown));
  const cli = cliScores();
  const expected = {
    bleu: cli.bleu.score.toFixed(2),
    rouge1: (cli.rouge.rouge1.f1 * 100).toFixed(2),
    rougeL: (cli.rouge.rougeL.f1 * 100).toFixed(2),
  };
  if (JSON.stringify(shown) !== JSON.stringify(expected)) {
    throw new Error(`the panel shows ${JSON.stringify(shown)}, the CLI prints ${JSON.stringify(expected)}`);
  }
  await expectChart(frame, 'score');
  const rows = await frame.locator('.sentences-table tbody tr').count();
  if (rows !== 3) throw new Error(`expected 3 sentence rows, found ${rows}`);
  // Under the scores, the signatures as text, the same the CLI prints (default settings: sacreBLEU's defaults).
  for (const [name, want] of [
    ['BLEU', cli.signatures.BLEU],
    ['ROUGE', cli.signatures.ROUGE],
  ]) {
    const sig = await frame
      .locator(`.signatures code[data-signature="${name}"]`)
      .first()
      .textContent({ timeout: 10_000 });
    if (sig !== want)
      throw new Error(`the panel's ${name} signature is ${JSON.stringify(sig)}, the CLI's ${JSON.stringify(want)}`);
  }
  log('BLEU signature', cli.signatures.BLEU);
  await page.waitForTimeout(500);
  await shot('ui-6-score');
});

test('"Draftsmith: Check Coherence" against sample.md shows coherence L and the alignment chart', async () => {
  // The draft is one long line scrolled sideways, so click the editor's frame rather than the line's start.
  await page
    .locator('.editor-group-container.active .monaco-editor .overflow-guard')
    .first()
    .click({ position: { x: 80, y: 10 }, timeout: 10_000 });
  await runFromPalette('Draftsmith: Check Coherence', { asks: true });
  await pickReference(SAMPLE);
  const frame = await insightsFrame();
  await frame.locator('#app[data-view="coherence"]').waitFor({ state: 'attached', timeout: commandTimeoutMs });
  const L = await panelMetric(frame, 'coherence-L', 10_000);
  const pairs = await panelMetric(frame, 'coherence-pairs', 10_000);
  log(`coherence L ${L} over ${pairs} pairs`);
  if (!/^\d+\.\d{3}$/.test(L) || !(Number(L) > 0))
    throw new Error(`expected L > 0 for a reordered draft, the panel shows "${L}"`);
  await expectChart(frame, 'coherence');
  const aligned = await frame.locator('.alignment-table tbody tr').count();
  if (aligned !== 3) throw new Error(`expected 3 alignment rows, found ${aligned}`);
  await page.waitForTimeout(500);
  await shot('ui-7-coherence');
});

const TOPICS = 'bee, swallow, geese, flower, frog';

/** The active editor's rendered lines in visual order (Monaco positions each line by its style.top). */
async function editorLinesInOrder() {
  return activeEditorLines().evaluate((root) =>
    Array.from(root.querySelectorAll('.view-line'))
      .map((line) => ({
        top: parseFloat(/** @type {HTMLElement} */ (line).style.top) || 0,
        text: (line.textContent ?? '').replace(/\u00a0/g, ' '),
      }))
      .sort((a, b) => a.top - b.top)
      .map((line) => line.text),
  );
}

test('"Draftsmith: Expand Topic Words into Essay" on selected topic words inserts the picked essay; the panel charts the layer weights', async () => {
  await typeIntoNewFile(TOPICS, 'the typed topic words');
  await page.keyboard.press('Control+a');
  await runFromPalette('Draftsmith: Expand Topic Words into Essay', { asks: true });

  // The essays arrive in a quick pick (draftsmith.essay.candidates, 3 by default); Enter takes the first.
  // With only one distinct essay there is no pick and it is inserted at once.
  const essayRows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'covers' });
  const longer = (/** @type {string} */ t) => words(t).split(' ').length > words(TOPICS).split(' ').length;
  const deadline = Date.now() + commandTimeoutMs;
  for (;;) {
    if (
      await essayRows
        .first()
        .isVisible()
        .catch(() => false)
    ) {
      const offered = await essayRows.count();
      await shot('ui-8-essay-pick');
      await page.keyboard.press('Enter');
      log(`picked the first of ${offered} essays`);
      break;
    }
    if (longer(await editorText())) break;
    if (Date.now() > deadline) throw new Error(`no essays offered within ${commandTimeoutMs / 1000}s`);
    await page.waitForTimeout(250);
  }
  await waitForText(longer, 30_000, 'the essay in the editor');
  const lines = await editorLinesInOrder();
  if (lines[0] !== TOPICS) throw new Error(`the first line is ${JSON.stringify(lines[0])}, not the topic words`);
  const after = lines.slice(1).join(' ').trim();
  if (!after) throw new Error(`nothing after the topic words: ${JSON.stringify(lines)}`);
  log('essay:', JSON.stringify(after.slice(0, 120)));
  await shot('ui-9-essay');

  await runFromPalette('Draftsmith: Show Insights');
  const frame = await insightsFrame();
  await frame.locator('#app[data-view="essay"]').waitFor({ state: 'attached', timeout: 60_000 });
  const cells = frame.locator('.layer-weights-table td[data-layer][data-encoder]');
  await cells.first().waitFor({ state: 'attached', timeout: 10_000 });
  const count = await cells.count();
  const first = ((await cells.first().textContent()) ?? '').trim();
  if (!/^\d\.\d{3}$/.test(first)) throw new Error(`a layer-weight cell shows "${first}", not a weight to 3 decimals`);
  log(`${count} layer-weight cells; decoder layer 1 / ${await cells.first().getAttribute('data-encoder')}: ${first}`);
  await expectChart(frame, 'essay');
  await page.waitForTimeout(500);
  await shot('ui-10-essay-insights');
});

const STORY_PROMPT = 'The old lighthouse keeper had not spoken to anyone in years, until the night the boat came.';

test('"Draftsmith: Continue Story" at the end of typed text streams a continuation; the panel charts the fusion gates; Ctrl+Z removes the story in one step', async () => {
  await typeIntoNewFile(STORY_PROMPT, 'the typed prompt');
  await runFromPalette('Draftsmith: Continue Story');
  const longer = (/** @type {string} */ t) => words(t).split(' ').length > words(STORY_PROMPT).split(' ').length;
  await waitForText(longer, commandTimeoutMs, 'the story in the editor');
  await shot('ui-11-story-streaming');

  // The panel gets the story once it is written (the panel is open, so it is posted there).
  await runFromPalette('Draftsmith: Show Insights');
  const frame = await insightsFrame();
  await frame.locator('#app[data-view="story"]').waitFor({ state: 'attached', timeout: commandTimeoutMs });
  const gates = frame.locator('.gates-table tbody tr');
  await gates.first().waitFor({ state: 'attached', timeout: 10_000 });
  const first = ((await gates.first().locator('td').nth(2).textContent()) ?? '').trim();
  if (!/^[01]\.\d{3}$/.test(first)) throw new Error(`a gate cell shows "${first}", not a gate to 3 decimals`);
  log(`${await gates.count()} tokens with fusion gates; the first token's trained gate ${first}`);
  await expectChart(frame, 'story');
  const story = ((await frame.locator('.story-text').textContent()) ?? '').trim();
  log('story:', JSON.stringify(story.slice(0, 120)));
  await page.waitForTimeout(500);
  await shot('ui-12-story-insights');

  // Back in the story's editor, the first group (the panel's beside it may be the active one now;
  // the story is one long line scrolled sideways, so the keyboard, not a click, gets there).
  await runFromPalette('View: Focus First Editor Group');
  await page.keyboard.press('Control+z');
  await waitForText((t) => words(t) === words(STORY_PROMPT), 15_000, 'one undo to leave only the typed prompt');
  await shot('ui-13-story-undone');
});

const POST = 'I love playing tennis with my old friends on a sunny day.';

test('"Draftsmith: Suggest Replies" offers replies labelled with their keys in a quick pick; Enter inserts the first below the post; Ctrl+Z removes it', async () => {
  await typeIntoNewFile(POST, 'the typed post');
  await page.keyboard.press('Control+a');
  await runFromPalette('Draftsmith: Suggest Replies', { asks: true });
  // One row per key, its label "key — mapping" beside the reply, and "Type a key…" last.
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: '— identity' });
  await rows.first().waitFor({ state: 'visible', timeout: commandTimeoutMs });
  const typeKey = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Type a key' });
  await typeKey.first().waitFor({ state: 'visible', timeout: 10_000 });
  log(`${await rows.count()} replies steered by identity keys offered`);
  await shot('ui-reply-pick');
  await page.keyboard.press('Enter');
  const longer = (/** @type {string} */ t) => words(t).split(' ').length > words(POST).split(' ').length;
  await waitForText(longer, 30_000, 'the reply in the editor');
  const lines = await editorLinesInOrder();
  if (lines[0] !== POST) throw new Error(`the first line is ${JSON.stringify(lines[0])}, not the post`);
  log('reply:', JSON.stringify(lines.slice(1).join(' ').trim().slice(0, 120)));
  await shot('ui-reply-inserted');
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText((t) => words(t) === words(POST), 15_000, 'one undo to leave only the post');
});

// A paragraph typed into a new document, round-tripped from the palette and applied from the palette.
const PARAGRAPH =
  'The river rose after three days of rain. Farmers moved their cattle to the hills. The mayor opened the school as a shelter.';

/** What `draftsmith roundtrip --json` writes for PARAGRAPH with the same (shipped) model: greedy decoding is deterministic. */
/**
 * The CLI's Round-Trip of the paragraph (--json): what the panel and the diff must show.
 * @returns {import('../../../extension/protocol').RoundTripResult}
 */
function cliRoundTrip() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'draftsmith-ui-'));
  try {
    fs.writeFileSync(path.join(dir, 'paragraph.txt'), PARAGRAPH);
    const out = execFileSync(
      process.execPath,
      [path.join(REPO, 'dist', 'cli.js'), 'roundtrip', path.join(dir, 'paragraph.txt'), '--json'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return JSON.parse(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('"Draftsmith: Round-Trip Paragraph" opens the reconstruction in a diff and leaves the text alone until "Apply Round-Trip Reconstruction"; Ctrl+Z undoes it', async () => {
  const expected = cliRoundTrip();
  if (!expected.reconstruction) throw new Error('the shipped model wrote nothing back for the test paragraph');
  await runFromPalette('File: New Untitled Text File');
  await page.waitForTimeout(500);
  await page.keyboard.type(PARAGRAPH);
  await waitForText((t) => words(t) === words(PARAGRAPH), 30_000, 'the typed paragraph');
  await page.keyboard.press('Escape'); // a suggestion widget, if one opened
  await runFromPalette('Draftsmith: Round-Trip Paragraph');
  // The diff beside the paragraph: the reconstruction's sentences are its lines (side by side or, in a
  // narrow window, inline, where VS Code draws the removed lines between them).
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ state: 'visible', timeout: commandTimeoutMs });
  const diffLines = () =>
    diff.evaluate((root) =>
      Array.from(root.querySelectorAll('.view-line')).map((l) => l.textContent.replace(/\u00a0/g, ' ').trim()),
    );
  const wanted = expected.output.map((o) => o.text);
  const deadline = Date.now() + 30_000;
  /** @type {string[]} */
  let lines = [];
  while (Date.now() < deadline) {
    lines = await diffLines();
    if (wanted.every((w) => lines.includes(w))) break;
    await page.waitForTimeout(250);
  }
  if (!wanted.every((w) => lines.includes(w)))
    throw new Error(`the diff shows ${JSON.stringify(lines)}, the CLI wrote ${JSON.stringify(wanted)}`);
  const title = await page
    .locator('.tab.active[aria-label*="Round-Trip"]')
    .first()
    .getAttribute('aria-label')
    .catch(() => null);
  log('diff tab:', title, 'lines:', JSON.stringify(lines));
  await shot('ui-14-roundtrip-diff');
  // Until the user applies it, the paragraph is as typed (the diff opens beside it, the focus stays on it).
  const before = await editorText();
  if (words(before) !== words(PARAGRAPH))
    throw new Error(`the document changed before Apply: ${JSON.stringify(before.slice(0, 200))}`);
  await runFromPalette('Draftsmith: Apply Round-Trip Reconstruction');
  await waitForText(
    (t) => words(t) === words(expected.reconstruction),
    30_000,
    'the reconstruction in place of the paragraph',
  );
  await shot('ui-15-roundtrip-applied');
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText((t) => words(t) === words(PARAGRAPH), 15_000, 'one undo to restore the paragraph');

  // The insights panel: the CLI's scores, one alignment row per output sentence, and the attention heatmap.
  await runFromPalette('Draftsmith: Show Insights');
  const frame = await insightsFrame();
  await frame.locator('#app[data-view="roundtrip"]').waitFor({ state: 'attached', timeout: 60_000 });
  const s = expected.scores;
  const want = {
    bleu: s.bleu.score.toFixed(2),
    rouge1: s.rouge1.f1.toFixed(3),
    rouge2: s.rouge2.f1.toFixed(3),
    rougeW: s.rougeW.f1.toFixed(3),
  };
  /** @type {Record<string, string>} */
  const got = {};
  for (const name of Object.keys(want)) got[name] = await panelMetric(frame, name, 10_000);
  if (JSON.stringify(got) !== JSON.stringify(want))
    throw new Error(`the panel shows ${JSON.stringify(got)}, the CLI prints ${JSON.stringify(want)}`);
  const L = await panelMetric(frame, 'coherence-L', 10_000);
  log('round-trip panel:', JSON.stringify(got), 'L', L);
  const rows = await frame.locator('.alignment-table tbody tr').count();
  if (rows !== expected.output.length)
    throw new Error(`expected ${expected.output.length} alignment rows, found ${rows}`);
  if (expected.architecture === 'hier-attn') {
    const cells = await frame.locator('.attention-table tbody tr').count();
    if (cells !== expected.output.length)
      throw new Error(`expected ${expected.output.length} attention rows, found ${cells}`);
    await expectChart(frame, 'roundtrip');
  }
  await page.waitForTimeout(500);
  await shot('ui-16-roundtrip-insights');
});

// Rewrite Selection with the instruct fixture (tiny random weights, SmolLM2's chat template) from the
// loopback Hub. The tiny model writes only undecodable bytes (each shown as U+FFFD), never a word of the
// text: the paragraph holds two U+FFFD of its own, which the rewrite keeps, so that there are several
// changes, one to keep and another to drop.
const REWRITE_MODEL = 'fixtures/SmolLM2-135M-Instruct';
const REWRITE_PARAGRAPH = 'The old bridge \uFFFD was closed on Tuesday \uFFFD and the council met.';

/**
 * What `draftsmith rewrite --json` writes for the paragraph with the same model (greedy: deterministic).
 * @returns {import('../../../extension/protocol').RewriteResult}
 */
function cliRewrite() {
  const out = execFileSync(
    process.execPath,
    [
      path.join(REPO, 'dist', 'cli.js'),
      'rewrite',
      '--text',
      REWRITE_PARAGRAPH,
      '--preset',
      'grammar',
      '--model',
      path.join(HUB_FIXTURES, REWRITE_MODEL),
      '--json',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return JSON.parse(out);
}

test('"Draftsmith: Rewrite Selection…" with "Fix grammar and spelling": the changes listed, one kept and another dropped by keyboard, written as one edit; Ctrl+Z undoes it', async () => {
  if (!hub.endpoint) throw new Error('the loopback Hub was not set up by the runner');
  const expected = cliRewrite();
  if (expected.changes.length < 2) throw new Error(`the fixture's rewrite has ${expected.changes.length} changes`);
  const first = expected.changes[0];
  const kept = REWRITE_PARAGRAPH.slice(0, first.start) + first.after + REWRITE_PARAGRAPH.slice(first.end);
  // The rewrite model, chosen as a person would.
  await enterModelId('Rewrite Selection', REWRITE_MODEL);
  await waitForNotification(`now use ${REWRITE_MODEL}`);

  await runFromPalette('File: New Untitled Text File');
  await page.waitForTimeout(500);
  await page.keyboard.type(REWRITE_PARAGRAPH);
  await waitForText((t) => words(t) === words(REWRITE_PARAGRAPH), 30_000, 'the typed paragraph');
  await page.keyboard.press('Escape');
  await runFromPalette('Draftsmith: Rewrite Selection', { asks: true });
  await pickRowByFilter('Fix grammar and spelling');
  // The review: one row per change, all kept to start with.
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  await rows.filter({ hasText: '→' }).first().waitFor({ state: 'visible', timeout: commandTimeoutMs });
  const shown = await rows.count();
  if (shown !== expected.changes.length)
    throw new Error(`the review lists ${shown} changes; the CLI's rewrite has ${expected.changes.length}`);
  await shot('ui-rewrite-1-review');
  // By keyboard: into the list, down to the second change and onwards, Space drops each; Enter applies.
  await page.keyboard.press('ArrowDown');
  for (let i = 1; i < expected.changes.length; i++) {
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Space');
  }
  await page.waitForTimeout(300);
  await shot('ui-rewrite-2-one-kept');
  await page.keyboard.press('Enter');
  await waitForText((t) => nbsp(t).trim() === kept, 30_000, 'the paragraph with the first change only');
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText((t) => nbsp(t).trim() === REWRITE_PARAGRAPH, 15_000, 'one undo to restore the paragraph');
});

// Hostile document text: markup, event handlers, javascript: URLs, CSS, bidirectional overrides and
// a very long line. Written into the workspace folder before the workbench loads (see the runner).
const HOSTILE_FILE = 'hostile.md';
const HOSTILE_LONG_TAIL = 'the long line ends here.';
const HOSTILE = [
  '<script>document.body.dataset.pwned = "script"</script> The council opened the <b>bridge</b> on Saturday.',
  '<img src=x onerror="document.body.dataset.pwned=\'img\'"> Residents <a href="javascript:document.body.dataset.pwned=\'link\'">cheered</a> loudly.',
  '<style>#app { display: none }</style> <div style="background:url(javascript:alert(1))" onclick="alert(1)">Shop owners</div> worried about customers.',
  'The mayor said \u202Eevil\u202C text and \u2067isolated\u2069 words stay text.',
  'A very long line about the bridge ' + 'and the river '.repeat(1500) + HOSTILE_LONG_TAIL,
].join('\n\n');

/** What the insights page holds now: elements, attributes and scripts a test should never find. */
/** @param {import('playwright-core').FrameLocator} frame */
async function inspectPanel(frame) {
  return frame.locator('body').evaluate((body) => {
    const app = /** @type {HTMLElement} */ (document.getElementById('app'));
    const allowedTags = new Set([
      'canvas',
      'caption',
      'div',
      'h1',
      'h2',
      'header',
      'li',
      'ol',
      'p',
      'section',
      'span',
      'table',
      'tbody',
      'td',
      'th',
      'thead',
      'tr',
      'ul',
      'tfoot',
      'mark',
      'dl',
      'dt',
      'dd',
      'code',
      'button',
    ]); // dl…button: Score Draft's signatures and their Copy buttons; tfoot: the folder table's corpus row
    const nodes = Array.from(app.querySelectorAll('*'));
    const meta = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
    return {
      view: app.dataset.view || '',
      strangeTags: nodes.map((n) => n.localName).filter((t) => !allowedTags.has(t)),
      // Views set custom properties and sizes through the CSSOM; nothing else may come in as an attribute.
      riskyAttributes: nodes.flatMap((n) =>
        Array.from(n.attributes)
          .filter(
            (a) =>
              /^on/i.test(a.name) ||
              ['href', 'src', 'srcset', 'action', 'formaction', 'xlink:href'].includes(a.name.toLowerCase()) ||
              (a.name === 'style' && /url\(|javascript:|expression\(/i.test(a.value)),
          )
          .map((a) => `${n.localName}[${a.name}=${a.value.slice(0, 40)}]`),
      ),
      pwned: body.dataset.pwned || null,
      appHidden: getComputedStyle(app).display === 'none',
      text: app.textContent,
      csp: meta ? meta.getAttribute('content') : null,
    };
  });
}

/**
 * @param {Awaited<ReturnType<typeof inspectPanel>>} report
 * @param {string} what
 */
function expectInert(report, what) {
  if (report.pwned) throw new Error(`${what}: document text ran as code (${report.pwned})`);
  if (report.strangeTags.length)
    throw new Error(`${what}: the panel holds elements the views never make: ${report.strangeTags.join(', ')}`);
  if (report.riskyAttributes.length)
    throw new Error(`${what}: risky attributes in the panel: ${report.riskyAttributes.join(', ')}`);
  if (report.appHidden) throw new Error(`${what}: document CSS reached the panel (#app is hidden)`);
}

test('document text with HTML, scripts, handlers, javascript: URLs, CSS, bidi overrides and a long line shows as inert text in the insights panel', async () => {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: HOSTILE_FILE }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.dblclick();
  await page.waitForSelector(`.tabs-container .tab[aria-label*="${HOSTILE_FILE}"]`, { timeout: 60_000 });
  await waitForText((t) => t.includes('Residents'), 30_000, 'the hostile document');
  // As plain text: read as Markdown, its HTML would never reach the scores or the panel.
  await setLanguageMode('Plain Text');
  await focusEditor();
  await runFromPalette('Draftsmith: Score Draft', { asks: true });
  await pickReference(SAMPLE);
  const frame = await insightsFrame();
  await frame
    .locator('#app[data-view="score"] .sentences-table', { hasText: 'Residents' })
    .first()
    .waitFor({ state: 'attached', timeout: commandTimeoutMs });

  const shown = await inspectPanel(frame);
  expectInert(shown, 'Score Draft');
  // Pieces without a full stop: the draft's sentences are split at dots (e.g. in "document.body").
  for (const piece of [
    '<script>',
    '</script>',
    '<img src=x onerror="document',
    'href="javascript:document',
    '<style>#app { display: none }</style>',
    'onclick="alert(1)"',
    '\u202Eevil\u202C',
    '\u2067isolated\u2069',
    HOSTILE_LONG_TAIL,
  ]) {
    if (!shown.text.includes(piece)) throw new Error(`the panel does not show ${JSON.stringify(piece)} as text`);
  }
  log(`hostile text shown inert: ${shown.text.length} characters of text, no stray elements or handlers`);

  // The page's own policy: a nonce for scripts, nothing inline, nothing remote.
  const csp = shown.csp || '';
  const scriptSrc = (
    csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('script-src ')) || ''
  )
    .split(/\s+/)
    .slice(1);
  if (scriptSrc.length !== 1 || !/^'nonce-[A-Za-z0-9+/=]{16,}'$/.test(scriptSrc[0]))
    throw new Error(`script-src is not a nonce alone: ${csp}`);
  if (/unsafe-inline|unsafe-eval|\shttps?:(\s|;|$)|\s\*(\s|;|$)|data:|blob:/.test(csp))
    throw new Error(`the CSP allows too much: ${csp}`);
  log('CSP:', csp);

  // Messages that are not the protocol's are ignored: the view stays as it is.
  const rows = await frame.locator('.sentences-table tbody tr').count();
  await frame.locator('body').evaluate(() => {
    for (const m of [
      { type: 'html', html: '<img src=x onerror="document.body.dataset.pwned=1">' },
      { type: 'score' },
      { type: 'summarize', view: { summary: '<b>x</b>' } },
      '<script>document.body.dataset.pwned = 2</script>',
      null,
    ])
      window.postMessage(m, '*');
  });
  await page.waitForTimeout(1_000);
  const after = await inspectPanel(frame);
  expectInert(after, 'malformed messages');
  const rowsAfter = await frame.locator('.sentences-table tbody tr').count();
  if (after.view !== 'score' || rowsAfter !== rows)
    throw new Error(`a malformed message changed the view: ${after.view}, ${rowsAfter} rows (was ${rows})`);

  // A well-formed summary of the same text renders its tokens inert as well (attention shading, phrases).
  await frame.locator('body').evaluate((_, text) => {
    const pieces = text.split(/(\s+)/).filter(Boolean);
    let at = 0;
    const tokens = pieces.map((p, i) => {
      const t = { text: p, start: at, end: at + p.length, weight: (i % 7) / 7 };
      at += p.length;
      return t;
    });
    const stats = {
      inputTokens: tokens.length,
      usedInputTokens: tokens.length,
      outputTokens: 3,
      encodeMs: 1,
      decodeMs: 1,
      tokensPerSecond: 1,
      device: 'cpu',
      model: '<img src=x onerror=1>',
    };
    /** @type {import('../../../extension/protocol').ToPanel} */
    const message = {
      type: 'summarize',
      view: {
        summary: '<script>document.body.dataset.pwned = 3</script>',
        source: text,
        mode: 'abstractive',
        extractedSentences: 0,
        truncated: false,
        usedChars: text.length,
        tokens,
        topPhrases: [{ text: tokens[0].text, start: 0, end: tokens[0].end, weight: 1 }],
        topics: [{ id: 0, words: ['<a href="javascript:1">x</a>'] }],
        sections: [],
        readNotes: [],
        stats,
      },
    };
    window.postMessage(message, '*');
  }, HOSTILE);
  await frame.locator('#app[data-view="summarize"]').waitFor({ state: 'attached', timeout: 10_000 });
  const summary = await inspectPanel(frame);
  expectInert(summary, 'summary view');
  if (!summary.text.includes('<script>document.body.dataset.pwned = 3</script>'))
    throw new Error('the summary view does not show the summary as text');
  await shot('ui-11-hostile');
});

// Hub models. A loopback Hub, started by the runner below: test/fixtures/hub served in the
// Hub's URL layout, <endpoint><owner>/<name>/resolve/<revision>/<file>, with the model API's listing
// (<endpoint>api/models/<owner>/<name>/revision/<revision>, names and sizes) that the engine chooses
// the files from, as test/unit/loopbackHub.ts serves them to the in-host tests (which see the rest:
// redirects, Range, sha256, hostile servers). The runner writes its address into draftsmith.hub.endpoint in the
// user settings before the workbench loads; the test chooses the model as a person would.
// Every view of the panel with every class of hostile text in every string it shows (views.json's
// real views, each string replaced; test/fixtures/panel/hostile.js), then the forged messages.
const hostilePanel = require('../../fixtures/panel/hostile.js');

test('every panel view (summarize, essay, story, round trip, score, coherence, folder of drafts) shows every hostile class (script, handlers, javascript: URLs, CSS url(), SVG, bidi overrides, attribute breakouts) as inert text, and ignores forged messages', async () => {
  const frame = await insightsFrame();
  const body = frame.locator('body');
  const failures = [];
  for (const { view, cls, message } of hostilePanel.hostileMessages()) {
    await body.evaluate((_, m) => {
      /** @type {HTMLElement} */ (document.getElementById('app')).removeAttribute('data-view');
      window.postMessage(m, '*');
    }, message);
    await frame.locator(`#app[data-view="${view}"]`).waitFor({ state: 'attached', timeout: 10_000 });
    await page.waitForTimeout(50); // charts draw on the next frame
    const report = await inspectPanel(frame);
    const extra = await body.evaluate(() => {
      const app = /** @type {HTMLElement} */ (document.getElementById('app'));
      const nodes = Array.from(app.querySelectorAll('*'));
      const bidi = /[\u202A-\u202E\u2066-\u2069]/;
      return {
        // An attribute breakout would add attributes of its own.
        strayAttributes: nodes.flatMap((n) =>
          Array.from(n.attributes)
            .map((a) => a.name)
            .filter((a) => ['autofocus', 'data-x', 'xlink:href', 'onfocus', 'onload'].includes(a)),
        ),
        // A bidi override inside a shown string must end with its element: each element holding one isolates it.
        // (a canvas's text is fallback content, never shown; its chart draws each label on its own)
        unisolated: nodes
          .filter(
            (n) =>
              n.localName !== 'canvas' &&
              Array.from(n.childNodes).some((c) => c.nodeType === 3 && bidi.test(c.nodeValue ?? '')),
          )
          .filter((n) => !['isolate', 'plaintext', 'isolate-override'].includes(getComputedStyle(n).unicodeBidi))
          .map((n) => n.localName + (n.className ? `.${n.className}` : '')),
        canvases: app.querySelectorAll('canvas').length,
        html: app.innerHTML.length,
      };
    });
    const hostile = hostilePanel.HOSTILE_CLASSES[/** @type {keyof typeof hostilePanel.HOSTILE_CLASSES} */ (cls)];
    const problems = [];
    try {
      expectInert(report, `${view}/${cls}`);
    } catch (e) {
      problems.push(messageOf(e));
    }
    if (report.view !== view) problems.push(`view ${report.view}`);
    if (!report.text.includes(hostile.slice(0, 12)))
      problems.push(`does not show ${JSON.stringify(hostile.slice(0, 12))} as text`);
    if (extra.strayAttributes.length) problems.push(`attributes from the text: ${extra.strayAttributes.join(', ')}`);
    if (extra.unisolated.length)
      problems.push(`bidi text not isolated in ${[...new Set(extra.unisolated)].join(', ')}`);
    if (problems.length) failures.push(`${view}/${cls}: ${problems.join('; ')}`);

    if (cls === 'bidi') {
      // Forged messages while this view shows: none changes the page.
      const before = await body.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('app')).innerHTML);
      await body.evaluate((_, forged) => {
        for (const m of forged) window.postMessage(m, '*');
      }, hostilePanel.forgedMessages());
      await page.waitForTimeout(300);
      const after = await inspectPanel(frame);
      const html = await body.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('app')).innerHTML);
      if (after.pwned || after.view !== view || html !== before)
        failures.push(`${view}: a forged message changed the page (view ${after.view}, pwned ${after.pwned})`);
      await shot(`ui-hostile-${view}`);
    }
  }
  log(
    `hostile panel: ${hostilePanel.hostileMessages().length} messages (${hostilePanel.VIEWS.length} views x ${Object.keys(hostilePanel.HOSTILE_CLASSES).length} classes) and ${hostilePanel.forgedMessages().length} forged messages per view`,
  );
  if (failures.length) throw new Error(failures.join('\n'));
});

const STORY_LM = 'draftsmith/story-gpt2';
const HUB_FIXTURES = path.join(REPO, 'test', 'fixtures', 'hub');
/** @type {{ endpoint: string; requests: string[]; server: import('http').Server | undefined }} */
const hub = { endpoint: '', requests: [], server: undefined };

function startHub() {
  const http = require('http');
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent((req.url || '').split('?')[0]);
    hub.requests.push(url);
    const api = /^\/api\/models\/([^/]+)\/([^/]+?)(?:\/revision\/[^/]+)?$/.exec(url);
    if (api) {
      const dir = path.join(HUB_FIXTURES, api[1], api[2]);
      if (!dir.startsWith(HUB_FIXTURES + path.sep) || !fs.existsSync(dir)) {
        res
          .writeHead(401, { 'Content-Type': 'application/json', 'X-Error-Code': 'RepoNotFound' })
          .end(JSON.stringify({ error: 'Repository not found' }));
        return;
      }
      /** @type {(rel: string) => { rfilename: string; size: number }[]} */
      const walk = (rel) =>
        fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
          const r = rel ? `${rel}/${d.name}` : d.name;
          return d.isDirectory() ? walk(r) : [{ rfilename: r, size: fs.statSync(path.join(dir, r)).size }];
        });
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ id: `${api[1]}/${api[2]}`, siblings: walk('') }));
      return;
    }
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url);
    const local = m && path.join(HUB_FIXTURES, m[1], m[2], m[4]);
    if (!local || !local.startsWith(HUB_FIXTURES + path.sep) || !fs.existsSync(local) || !fs.statSync(local).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Entry not found');
      return;
    }
    res.writeHead(200, {
      'Content-Length': String(fs.statSync(local).size),
      'Content-Type': 'application/octet-stream',
    });
    fs.createReadStream(local).pipe(res);
  });
  hub.server = server;
  return /** @type {Promise<void>} */ (
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        hub.endpoint = `http://127.0.0.1:${/** @type {import('net').AddressInfo} */ (server.address()).port}/`;
        resolve();
      });
    })
  );
}

/**
 * Where code-server keeps the user's machine-scoped settings: run.sh keeps the user data beside the
 * workspace folder. The workbench is a remote window, so VS Code reads and writes the settings of
 * scope "machine-overridable" (draftsmith.story.model, draftsmith.hub.endpoint) in the remote
 * machine's settings (user-data/Machine/settings.json), not in user-data/User/settings.json: the
 * file Choose Model… writes to (ConfigurationTarget.Global), and the one VS Code reads them from.
 */
/** @param {string} folder */
const userSettingsFile = (folder) => path.join(path.dirname(folder), 'user-data', 'Machine', 'settings.json');
let settingsFile = '';
const readUserSettings = () => JSON.parse(fs.readFileSync(settingsFile, 'utf8'));

/** Waits until the user settings file holds `value` for `key` (VS Code writes it a moment after the pick). */
/**
 * @param {string} key
 * @param {unknown} value
 * @param {number} timeoutMs
 */
async function waitForUserSetting(key, value, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let now;
  while (Date.now() < deadline) {
    try {
      now = readUserSettings()[key];
    } catch {
      now = '(unreadable)';
    }
    if (now === value) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`${key} in ${settingsFile} is ${JSON.stringify(now)}, not ${JSON.stringify(value)}`);
}

/** Clicks the row of the quick pick now shown whose text contains all of `texts`. */
/** @param {string[]} texts */
async function pickRow(...texts) {
  let row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  for (const t of texts) row = row.filter({ hasText: t });
  await row.first().waitFor({ state: 'visible', timeout: 30_000 });
  await row.first().click();
  log(`picked "${texts.join(' … ')}"`);
}

/** Types `text` into the open quick pick's filter, waits until the first row shown is the one labelled `text`, and accepts it with Enter. */
/** @param {string} text */
async function pickRowByFilter(text) {
  await page.locator('.quick-input-widget input').fill(text);
  const first = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
  await first.filter({ hasText: text }).waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
  log(`picked "${text}" (filtered, Enter)`);
}

/**
 * The text of the notification that contains `text`, once there: as a toast, or in the notification
 * centre (this headless workbench often files an information message there without a toast), which
 * is then opened to look and closed again. `act(item)`, when given, runs while the item is shown
 * (to click one of its buttons).
 */
/**
 * @param {string} text
 * @param {number} [timeoutMs]
 * @param {(item: import('playwright-core').Locator) => Promise<void>} [act]
 */
async function waitForNotification(text, timeoutMs = 30_000, act = undefined) {
  const item = page
    .locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item', {
      hasText: text,
    })
    .first();
  const center = page.locator('.notifications-center.visible');
  const deadline = Date.now() + timeoutMs;
  let opened = false;
  try {
    for (;;) {
      if (await item.isVisible().catch(() => false)) {
        const shown = nbsp((await item.innerText()).replace(/\s+/g, ' '));
        if (act) await act(item);
        return shown;
      }
      if (Date.now() > deadline) throw new Error(`no notification saying "${text}" within ${timeoutMs / 1000}s`);
      if (!(await center.isVisible().catch(() => false))) {
        await runFromPalette('Notifications: Show Notifications');
        opened = true;
      }
      await page.waitForTimeout(500);
    }
  } finally {
    if (opened && (await center.isVisible().catch(() => false)))
      await runFromPalette('Notifications: Hide Notifications').catch(() => {});
  }
}

/** Choose Model… → the story commands → "Enter a model id…" → `id`. */
/** @param {string} id */
async function enterStoryModelId(id) {
  await enterModelId('Continue Story and Write a Premise', id);
}

/** Choose Model… → the commands labelled `label` → "Enter a model id…" → `id`. */
/**
 * @param {string} label
 * @param {string} id
 */
async function enterModelId(label, id) {
  await chooseModelFor(label);
  await pickRow('Enter a model id');
  const input = page.locator('.quick-input-widget input');
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: 'a Hugging Face Hub model' })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(id);
  await page.waitForTimeout(300); // the box validates what was typed
  await shot(`ui-hub-model-id-${id.replace(/\W+/g, '-')}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
}

/** Runs "Draftsmith: Choose Model…" and picks the story commands (step 1 of 2). */
async function chooseStoryModel() {
  await chooseModelFor('Continue Story and Write a Premise');
}

/** Runs "Draftsmith: Choose Model…" and picks the commands labelled `label` (step 1 of 2). */
/** @param {string} label */
async function chooseModelFor(label) {
  await runFromPalette('Draftsmith: Choose Model', { asks: true });
  await pickRow(label);
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: label })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
}

/** The folders the engine keeps a Hub model's download in: <globalStorage>/hub/<owner>/<name> under the user data. */
/**
 * @param {string} root
 * @param {string} id
 */
function cachedDownloads(root, id) {
  /** @type {string[]} */
  const found = [];
  /**
   * @param {string} dir
   * @param {number} depth
   */
  const walk = (dir, depth) => {
    if (depth > 6) return;
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const full = path.join(dir, e.name);
      if (full.endsWith(path.join('hub', ...id.split('/')))) found.push(full);
      else walk(full, depth + 1);
    }
  };
  walk(root, 0);
  return found;
}

test('"Draftsmith: Choose Model…" → "Continue Story and Write a Premise" → "Enter a model id…" sets draftsmith.story.model to a Hub id; Continue Story then downloads it from the (loopback) Hub and writes with it; back to the built-in model', async () => {
  if (!hub.endpoint || !settingsFile)
    throw new Error('the loopback Hub or the user settings file was not set up by the runner');
  const settings = readUserSettings();
  if (settings['draftsmith.hub.endpoint'] !== hub.endpoint)
    throw new Error(`draftsmith.hub.endpoint is ${JSON.stringify(settings['draftsmith.hub.endpoint'])}`);
  if (settings['draftsmith.story.model'] !== undefined)
    throw new Error(`draftsmith.story.model is already set: ${JSON.stringify(settings['draftsmith.story.model'])}`);
  // The in-host suite, when it ran first, left its download in the same global storage: removed, so that this run downloads.
  for (const dir of cachedDownloads(path.dirname(path.dirname(settingsFile)), STORY_LM)) {
    fs.rmSync(dir, { recursive: true, force: true });
    log(`removed an earlier download: ${dir}`);
  }

  // The earlier tests' notifications cleared: in a full run the notification center's list holds
  // dozens, and the one this test waits for can be drawn below the list's visible part.
  await runFromPalette('Notifications: Clear All Notifications');
  // Choose the model as a person would: the command, the commands it is for, "Enter a model id…", the id.
  await enterStoryModelId(STORY_LM);
  const told = await waitForNotification(`now use ${STORY_LM}`);
  log('told:', JSON.stringify(told));
  if (!told.includes(hub.endpoint))
    throw new Error(`the message does not say where the model is downloaded from (${hub.endpoint}): ${told}`);
  await waitForUserSetting('draftsmith.story.model', STORY_LM, 15_000);
  log(`${settingsFile}: draftsmith.story.model = ${JSON.stringify(STORY_LM)}`);
  await shot('ui-hub-1-chosen');

  // Continue Story runs the Hub model: downloaded from the loopback Hub on first use.
  await typeIntoNewFile(STORY_PROMPT, 'the typed prompt');
  const before = hub.requests.length;
  await runFromPalette('Draftsmith: Continue Story');
  const longer = (/** @type {string} */ t) => words(t).split(' ').length > words(STORY_PROMPT).split(' ').length;
  const deadline = Date.now() + commandTimeoutMs;
  let progress = '';
  for (;;) {
    // The download's progress is shown while it runs (a small model may be done before it is seen).
    const shown = await page
      .locator('.notification-list-item, .statusbar-item', { hasText: `Downloading ${STORY_LM}` })
      .first()
      .innerText({ timeout: 100 })
      .catch(() => '');
    if (shown && !progress) {
      progress = nbsp(shown.replace(/\s+/g, ' '));
      await shot('ui-hub-2-downloading');
    }
    if (longer(await editorText())) break;
    if (Date.now() > deadline)
      throw new Error(
        `no story within ${commandTimeoutMs / 1000}s; editor shows ${JSON.stringify((await editorText()).slice(-200))}`,
      );
    await page.waitForTimeout(100);
  }
  log(progress ? `progress seen: ${JSON.stringify(progress)}` : 'the download was done before its progress was seen');
  const asked = hub.requests.slice(before);
  if (!asked.some((r) => r === `/${STORY_LM}/resolve/main/onnx/model.onnx`))
    throw new Error(`the model was not downloaded from the loopback Hub; it was asked for ${JSON.stringify(asked)}`);
  log(`${asked.length} requests to the loopback Hub`);

  // The insights panel names the model that wrote the story.
  await runFromPalette('Draftsmith: Show Insights');
  const frame = await insightsFrame();
  const model = frame.locator('#app[data-view="story"] .external-model dd[data-field="model"]').first();
  await model.waitFor({ state: 'attached', timeout: commandTimeoutMs });
  if (((await model.textContent()) ?? '').trim() !== STORY_LM)
    throw new Error(`the panel says the story came from ${await model.textContent()}`);
  const story = ((await frame.locator('#app[data-view="story"] .story-text').first().textContent()) ?? '').trim();
  log(`story by ${STORY_LM}:`, JSON.stringify(story.slice(0, 120)));
  // The editor holds the prompt and that story after it.
  await runFromPalette('View: Focus First Editor Group');
  await waitForText(
    (t) => words(t) === words(`${STORY_PROMPT} ${story}`),
    15_000,
    'the prompt and the story the panel shows',
  );
  await page.waitForTimeout(500);
  await shot('ui-hub-3-story');
  await page.keyboard.press('Control+z');
  await waitForText((t) => words(t) === words(STORY_PROMPT), 15_000, 'one undo to leave only the typed prompt');

  // Choose Model… again: the Hub id is marked as the current model; "Built-in model" puts the setting back.
  await chooseStoryModel();
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: STORY_LM })
    .filter({ hasText: 'current' })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  await shot('ui-hub-4-current');
  // By keyboard, as the list filters: in full runs under load, a click on this row (the list's focus set on
  // the "current" row) left the setting unchanged several times; the cause was not traced. The setting is
  // checked before the notification, so a failure says which of the two is missing.
  await pickRowByFilter('Built-in model');
  await waitForUserSetting('draftsmith.story.model', 'built-in', 15_000);
  await waitForNotification('now use the built-in model');
});

test('a Hub id the (loopback) Hub does not have: Continue Story fails with "not found", changes nothing, and the error\'s "Use Built-in Model" puts draftsmith.story.model back', async () => {
  if (!hub.endpoint || !settingsFile)
    throw new Error('the loopback Hub or the user settings file was not set up by the runner');
  const MISSING = 'draftsmith/no-such-model';
  await enterStoryModelId(MISSING);
  await waitForUserSetting('draftsmith.story.model', MISSING, 15_000);
  await typeIntoNewFile(STORY_PROMPT, 'the typed prompt');
  await runFromPalette('Draftsmith: Continue Story');
  let clicked = false;
  const error = await waitForNotification(`${MISSING} was not found`, commandTimeoutMs, async (item) => {
    await shot('ui-hub-5-not-found');
    await item.locator('.monaco-button', { hasText: 'Use Built-in Model' }).first().click({ timeout: 10_000 });
    clicked = true;
  });
  log('error:', JSON.stringify(error));
  if (!clicked) throw new Error('the error offers no "Use Built-in Model"');
  if (!error.includes(hub.endpoint))
    throw new Error(`the error does not say where the model was looked for (${hub.endpoint}): ${error}`);
  await waitForUserSetting('draftsmith.story.model', 'built-in', 15_000);
  await waitForNotification('now use the built-in model');
  const text = await editorText();
  if (words(text) !== words(STORY_PROMPT)) throw new Error(`the document changed: ${JSON.stringify(text.slice(-200))}`);
});

// Manage Models knows this machine: a downloaded language model measured on request, its numbers
// beside its size and licence, and the recommendation for the wait the writer accepts.
const SPEED_MODEL = 'fixtures/SmolLM2-135M-Instruct';

/**
 * The fixture as a download: copied into the extension's download cache, as Import a Model Folder… does
 * (the Rewrite test, when it ran, already downloaded it there from the loopback Hub).
 */
function downloadSpeedModel() {
  const userData = path.dirname(path.dirname(settingsFile));
  const cache = path.join(userData, 'User', 'globalStorage', 'draftsmith.draftsmith', 'hub');
  const dir = path.join(cache, ...SPEED_MODEL.split('/'));
  if (fs.existsSync(path.join(dir, 'config.json'))) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.cpSync(path.join(HUB_FIXTURES, SPEED_MODEL), dir, { recursive: true });
  log(`copied ${SPEED_MODEL} into ${cache}`);
}

test('"Draftsmith: Manage Models…" → a downloaded model → "Measure Speed on This Machine": its first token, tokens/s and a 150-word rewrite\'s expected time appear beside its size and licence, it is recommended, and nothing is downloaded', async () => {
  if (!settingsFile) throw new Error('the user settings file was not set up by the runner');
  downloadSpeedModel();
  const asked = hub.requests.length;
  await runFromPalette('Notifications: Clear All Notifications');
  await runFromPalette('Draftsmith: Manage Models', { asks: true });
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  await rows
    .filter({ hasText: SPEED_MODEL })
    .filter({ hasText: 'not measured' })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  await shot('ui-models-1-not-measured');
  await pickRowByFilter(SPEED_MODEL);
  await pickRowByFilter('Measure Speed on This Machine');
  // The measurement runs under a progress notification; the manager then opens again with the numbers.
  const measured = rows.filter({ hasText: SPEED_MODEL }).filter({ hasText: 'tokens/s' }).first();
  await measured.waitFor({ state: 'visible', timeout: commandTimeoutMs });
  const row = nbsp((await measured.innerText()).replace(/\s+/g, ' '));
  log('measured:', JSON.stringify(row));
  // Size and licence on the first line; "Recommended" (the default wait, 30 s, is far above what the tiny
  // fixture takes) and the numbers lead the second.
  const numbers =
    /\d+(?:\.\d+)? MB · (.+?) Recommended · first token \d+(?:\.\d+)? m?s · (\d+(?:\.\d+)?) tokens\/s · 150-word rewrite ≈ (\d+(?:\.\d+)?) s/.exec(
      row,
    );
  if (!numbers)
    throw new Error(
      `the row does not show size, licence, "Recommended", first token, tokens/s and the rewrite's time: ${row}`,
    );
  const [, licence, rate, rewrite] = numbers;
  if (!licence.trim()) throw new Error(`no licence shown: ${row}`);
  if (!(Number(rate) > 0) || !(Number(rewrite) > 0)) throw new Error(`the numbers are not measurements: ${row}`);
  const placeholder = nbsp(
    (await page
      .locator('.quick-input-widget input')
      .first()
      .getAttribute('placeholder')
      .catch(() => '')) ?? '',
  );
  if (!placeholder.includes(`Recommended for a 150-word rewrite within 30 s: ${SPEED_MODEL}`))
    throw new Error(`the manager does not say which model it recommends: ${JSON.stringify(placeholder)}`);
  await shot('ui-models-2-measured');
  await page.keyboard.press('Escape');
  if (hub.requests.length !== asked)
    throw new Error(`measuring asked the Hub for ${JSON.stringify(hub.requests.slice(asked))}: it must stay offline`);
});

test('"Draftsmith: Manage Models…" → "Measure Speed of All Models" with a GGUF folder set (draftsmith.gguf.folders): the Hub model and the GGUF file, through llama.cpp, both measured offline; the GGUF file is not offered for deletion', async () => {
  if (!settingsFile) throw new Error('the user settings file was not set up by the runner');
  downloadSpeedModel();
  const GGUF_FOLDER = path.join(REPO, 'test', 'fixtures', 'gguf');
  const GGUF_NAME = 'smollm2-tiny.gguf';
  const before = readUserSettings();
  fs.writeFileSync(settingsFile, JSON.stringify({ ...before, 'draftsmith.gguf.folders': [GGUF_FOLDER] }, null, 2));
  const asked = hub.requests.length;
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  try {
    // The settings file is read again a moment after it changes: the manager lists the file once it is.
    for (let attempt = 1; ; attempt++) {
      await runFromPalette('Draftsmith: Manage Models', { asks: true });
      await rows.first().waitFor({ state: 'visible', timeout: 30_000 });
      // The list shows only the rows that fit: with many models downloaded, the file's row is found by name.
      await page.locator('.quick-input-widget input').fill(GGUF_NAME);
      await page.waitForTimeout(300);
      if (await rows.filter({ hasText: GGUF_NAME }).count()) break;
      if (attempt >= 10) throw new Error(`the manager never listed ${GGUF_NAME} from draftsmith.gguf.folders`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_000);
    }
    await pickRowByFilter('Measure Speed of All Models');
    // The manager opens again once both are measured (the Hub model's row may show an earlier measurement).
    const gguf = rows.filter({ hasText: GGUF_NAME }).filter({ hasText: 'tokens/s' }).first();
    /**
     * Waits for `row` once the manager is open again, its list filtered to `name`.
     * @param {string} name
     * @param {import('playwright-core').Locator} row
     */
    const measuredRow = async (name, row) => {
      for (const end = Date.now() + commandTimeoutMs; ;) {
        await page
          .locator('.quick-input-widget input')
          .fill(name, { timeout: 1_000 })
          .catch(() => {});
        if (await row.isVisible()) return;
        if (Date.now() > end) throw new Error(`the manager never showed ${name} measured`);
        await page.waitForTimeout(1_000);
      }
    };
    await measuredRow(GGUF_NAME, gguf);
    const row = nbsp((await gguf.innerText()).replace(/\s+/g, ' '));
    await measuredRow(SPEED_MODEL, rows.filter({ hasText: SPEED_MODEL }).filter({ hasText: 'tokens/s' }).first());
    log('GGUF measured:', JSON.stringify(row));
    const numbers = new RegExp(
      String.raw`first token \d+(?:\.\d+)? m?s · (\d+(?:\.\d+)?) tokens/s · 150-word rewrite ≈ (\d+(?:\.\d+)?) s`,
    ).exec(row);
    if (!numbers || !(Number(numbers[1]) > 0)) throw new Error(`the GGUF file's row shows no measurement: ${row}`);
    await shot('ui-models-3-all-measured');
    // Its actions: measure, reveal, copy the path; deleting is its app's business.
    await pickRowByFilter(GGUF_NAME);
    await rows.filter({ hasText: 'Copy Path' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    if (await rows.filter({ hasText: 'Delete' }).count()) throw new Error('the manager offers to delete a GGUF file');
    await page.keyboard.press('Escape');
  } finally {
    fs.writeFileSync(settingsFile, JSON.stringify(before, null, 2));
  }
  if (hub.requests.length !== asked)
    throw new Error(`measuring asked the Hub for ${JSON.stringify(hub.requests.slice(asked))}: it must stay offline`);
});

// Inline suggestions: the status bar item and the toggle command, ghost text after a pause
// in a Markdown document, Tab, one Undo; typing during a generation cancels it; none in TypeScript.
const INLINE_TEXT = 'Tom had a little dog named Max. One day Tom and Max went to the';
/** @param {string} state */
const inlineStatus = (state) =>
  page.locator(`.statusbar-item[aria-label*="Draftsmith inline suggestions ${state}"]`).first();
const ghost = () =>
  page.locator(
    '.editor-group-container.active .monaco-editor .ghost-text-decoration, .editor-group-container.active .monaco-editor .ghost-text',
  );
const ghostText = async () =>
  nbsp(
    (
      await ghost()
        .allInnerTexts()
        .catch(() => [])
    ).join(''),
  );
/**
 * The words of the document as shown, without the ghost text's (the editor's lines hold both, and a
 * long suggestion wraps onto lines of its own): words() of what remains.
 */
async function documentText() {
  for (let attempt = 0; ; attempt++) {
    const g = await ghostText();
    const text = await editorText();
    if (g === (await ghostText()) || attempt > 10) {
      const left = text.split(/\s+/).filter(Boolean);
      for (const w of g.split(/\s+/).filter(Boolean)) {
        const i = left.lastIndexOf(w);
        if (i >= 0) left.splice(i, 1);
      }
      return left.join(' ');
    }
  }
}
/**
 * @param {(text: string) => boolean} predicate
 * @param {number} timeoutMs
 * @param {string} what
 */
async function waitForDocument(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await documentText();
    if (predicate(text)) return text;
    await page.waitForTimeout(200);
  }
  throw new Error(
    `timed out after ${timeoutMs / 1000}s waiting for ${what}; the document shows: ${JSON.stringify(text.slice(-300))}`,
  );
}

/** Change Language Mode of the active editor to `language` (as the status bar's picker does). */
/** @param {string} language */
async function setLanguageMode(language) {
  await runFromPalette('Change Language Mode', { asks: true });
  const input = page.locator('.quick-input-widget input');
  await input.fill(language);
  await page
    .locator(`.quick-input-list .monaco-list-row[aria-label^="${language}"]`)
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  await page.waitForTimeout(300);
}

/** A new untitled editor in `language` (Change Language Mode), with `text` typed into it. */
/**
 * @param {string} language
 * @param {string} text
 * @param {string} what
 */
async function typeIntoNewFileOf(language, text, what) {
  await runFromPalette('File: New Untitled Text File');
  await page.waitForTimeout(500);
  await setLanguageMode(language);
  await page.keyboard.type(text);
  await waitForText((t) => words(t) === words(text), 30_000, what);
}

/** The ghost text, once shown (it may take the first model load). */
/** @param {number} timeoutMs */
async function waitForGhost(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await ghostText();
    if (text.trim()) return text;
    if (Date.now() > deadline)
      throw new Error(
        `no ghost text within ${timeoutMs / 1000}s; editor shows ${JSON.stringify((await editorText()).slice(-200))}`,
      );
    await page.waitForTimeout(100);
  }
}

/** The Draftsmith output channel's log file (its lines tell how many suggestions typing cancelled). */
function draftsmithLog() {
  if (!settingsFile) return '';
  /** @type {string[]} */
  const found = [];
  /**
   * @param {string} dir
   * @param {number} depth
   */
  const walk = (dir, depth) => {
    if (depth > 8) return;
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full, depth + 1);
      else if (/Draftsmith\.log$/.test(e.name)) found.push(full);
    }
  };
  walk(path.join(path.dirname(path.dirname(settingsFile)), 'logs'), 0);
  found.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return found.length ? fs.readFileSync(found[0], 'utf8') : '';
}

test('"Draftsmith: Toggle Inline Suggestions" turns them on (the status bar says so); after a pause in a Markdown document the rest of the sentence shows as ghost text; Tab inserts it; one Undo removes it', async () => {
  await typeIntoNewFileOf('Markdown', INLINE_TEXT, 'the typed text');
  await inlineStatus('off').waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(1500);
  if ((await ghostText()).trim()) throw new Error('ghost text while inline suggestions are off');
  await runFromPalette('Draftsmith: Toggle Inline Suggestions');
  await inlineStatus('on').waitFor({ state: 'visible', timeout: 15_000 });
  // A pause after a keystroke (the setting's 500 ms) asks for a suggestion.
  await page.keyboard.press('End');
  await page.keyboard.type(' ');
  await page.keyboard.press('Backspace');
  const shown = await waitForGhost(commandTimeoutMs);
  log('ghost text:', JSON.stringify(shown));
  await shot('ui-inline-1-ghost');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Escape'); // the next sentence's suggestion, if one comes
  await waitForDocument((t) => words(t) === words(INLINE_TEXT + shown), 15_000, 'Tab to insert the ghost text');
  await shot('ui-inline-2-accepted');
  // The insights panel shows the accepted suggestion with its fusion gates, as it shows Continue Story's story.
  await runFromPalette('Draftsmith: Show Insights');
  const frame = await insightsFrame();
  await frame.locator('#app[data-view="story"]').waitFor({ state: 'attached', timeout: 60_000 });
  const deadline = Date.now() + 30_000;
  let panelText = '';
  while (words(panelText) !== words(shown)) {
    if (Date.now() > deadline)
      throw new Error(
        `the panel shows ${JSON.stringify(panelText)}, not the accepted suggestion ${JSON.stringify(shown)}`,
      );
    panelText = nbsp(
      (await frame
        .locator('.story-text')
        .first()
        .textContent()
        .catch(() => '')) || '',
    );
    await page.waitForTimeout(250);
  }
  await frame.locator('.gates-table tbody tr').first().waitFor({ state: 'attached', timeout: 10_000 });
  await shot('ui-inline-2b-insights');
  await runFromPalette('View: Focus First Editor Group');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+z');
  await waitForDocument((t) => words(t) === words(INLINE_TEXT), 15_000, 'one undo to leave only the typed text');
});

test('typing while a suggestion is being written cancels it: no stale suggestion, and the one shown is for the text as typed', async () => {
  await typeIntoNewFileOf('Markdown', 'Anna found a shell on the beach. She', 'the typed text');
  await page.keyboard.press('Escape');
  const before = (draftsmithLog().match(/inline: suggested/g) || []).length;
  // Pause just past the delay (500 ms: a request goes out), then type on while it is being written
  // (a suggestion takes tens of ms, so the pauses step across that window): the keystroke cancels it.
  const typed = [
    ' ran',
    ' to',
    ' show',
    ' her',
    ' mother',
    ' and',
    ' her',
    ' father',
    ' what',
    ' she',
    ' had',
    ' found',
    ' on',
    ' the',
    ' sand',
  ];
  for (const [i, word] of typed.entries()) {
    await page.waitForTimeout(500 + i * 6);
    await page.keyboard.type(word, { delay: 15 });
  }
  const final = `Anna found a shell on the beach. She${typed.join('')}`;
  const shown = await waitForGhost(commandTimeoutMs);
  log('ghost text after typing on:', JSON.stringify(shown));
  const text = await documentText();
  if (words(text) !== words(final)) throw new Error(`the document is not the text typed: ${JSON.stringify(text)}`);
  // The ghost text continues the text as typed, at its end (a stale one would have come for an earlier text).
  await page.keyboard.press('Tab');
  await page.keyboard.press('Escape');
  await waitForDocument(
    (t) => words(t) === words(final + shown),
    15_000,
    'the suggestion inserted after the text as typed',
  );
  const lines = draftsmithLog()
    .split('\n')
    .filter((l) => l.includes('inline: suggested'));
  const last = lines[lines.length - 1] || '';
  log('log:', last.trim());
  const cancelled = Number((/cancelled (\d+)/.exec(last) || [])[1] || 0);
  if (lines.length > before && cancelled < 1) throw new Error(`typing during a suggestion cancelled none: ${last}`);
  await shot('ui-inline-3-typed-on');
});

test('no inline suggestion in a TypeScript file; the status bar item turns them off, and then none in Markdown either', async () => {
  await typeIntoNewFileOf('TypeScript', 'const story = 1; // Tom and Max went to the', 'the typed code');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(3000);
  if ((await ghostText()).trim())
    throw new Error(`ghost text in a TypeScript file: ${JSON.stringify(await ghostText())}`);
  await typeIntoNewFileOf('Markdown', 'The cat sat by the window and', 'the typed text');
  await waitForGhost(commandTimeoutMs);
  await page.keyboard.press('Escape');
  await inlineStatus('on').click();
  await inlineStatus('off').waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.type(' looked');
  await page.waitForTimeout(3000);
  if ((await ghostText()).trim())
    throw new Error(`ghost text after turning inline suggestions off: ${JSON.stringify(await ghostText())}`);
  await shot('ui-inline-4-off');
});

// ------------------------------------------------------------------ runner
(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  const folder = new URL(url).searchParams.get('folder');
  if (folder) fs.writeFileSync(path.join(folder, HOSTILE_FILE), HOSTILE);
  // The loopback Hub, and its address in the user settings, before the workbench reads them.
  await startHub();
  log(`loopback Hub at ${hub.endpoint}`);
  if (folder && fs.existsSync(path.dirname(path.dirname(userSettingsFile(folder))))) {
    settingsFile = userSettingsFile(folder);
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    const before = fs.existsSync(settingsFile) ? readUserSettings() : {};
    fs.writeFileSync(settingsFile, JSON.stringify({ ...before, 'draftsmith.hub.endpoint': hub.endpoint }, null, 2));
  }
  const results = [];
  let browser;
  try {
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.on('pageerror', (e) => log('pageerror:', e.message));
    let broken = false;
    // UI_TESTS=REGEX: only the tests whose names match (and the first, which loads the workbench).
    const only = process.env.UI_TESTS ? new RegExp(process.env.UI_TESTS) : null;
    for (const [i, t] of tests.entries()) {
      const t0 = Date.now();
      if (only && i > 0 && !only.test(t.name)) continue;
      if (broken) {
        results.push({ name: t.name, ok: false, error: 'skipped: the workbench did not load' });
        console.log(`not ok ${i + 1} - ${t.name} (not run: the workbench did not load)`);
        continue;
      }
      try {
        await t.fn();
        results.push({ name: t.name, ok: true, seconds: (Date.now() - t0) / 1000 });
        console.log(`ok ${i + 1} - ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
      } catch (e) {
        const file = await shot(`ui-fail-${i + 1}`);
        results.push({ name: t.name, ok: false, error: messageOf(e) });
        console.log(
          `not ok ${i + 1} - ${t.name}\n    ${messageOf(e).split('\n').join('\n    ')}\n    screenshot: ${file}`,
        );
        if (i === 0) broken = true;
        await page.keyboard.press('Escape').catch(() => {});
        await page.keyboard.press('Escape').catch(() => {});
      }
    }
  } catch (e) {
    log('ERROR', e instanceof Error && e.stack ? e.stack : e);
    for (const t of tests.slice(results.length)) results.push({ name: t.name, ok: false, error: messageOf(e) });
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (hub.server) {
      hub.server.closeAllConnections();
      hub.server.close();
    }
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  fs.writeFileSync(path.join(outDir, 'ui.json'), JSON.stringify({ passed, failed, seconds, tests: results }, null, 2));
  log(`UI: ${passed} passed, ${failed} failed in ${seconds}s`);
  process.exit(failed ? 1 : 0);
})();

// Score Drafts in Folder, as a person would: the explorer's context menu on a
// folder of 20 drafts, the references folder from the dialog, a click on a column to sort, Export CSV.
const UI_DRAFTS = 'ui-drafts';
const UI_REFS = 'references';
const UI_SENTENCES = [
  'The town reopened its footbridge on Saturday after two years of repairs.',
  'Hundreds of residents walked across the new deck in light rain.',
  'The project cost four million dollars, most of it from a regional grant.',
  'Shop owners hope that customers will now return on foot.',
  'The mayor thanked the engineers and the volunteers.',
  'A festival on the river bank is planned for next month.',
];

/** @param {string} folder */
function writeUiDrafts(folder) {
  const drafts = path.join(folder, UI_DRAFTS);
  const refs = path.join(folder, UI_REFS);
  fs.mkdirSync(drafts, { recursive: true });
  fs.mkdirSync(refs, { recursive: true });
  for (let i = 0; i < 20; i++) {
    const ref = `${UI_SENTENCES[i % 6]} ${UI_SENTENCES[(i + 1) % 6]}`;
    const draft = ref
      .split(' ')
      .filter((_, k) => k % (2 + (i % 5)) !== 1)
      .join(' ');
    const name = `draft-${String(i + 1).padStart(2, '0')}.txt`;
    fs.writeFileSync(path.join(drafts, name), draft);
    fs.writeFileSync(path.join(refs, name), ref);
  }
}

test('"Score Drafts in Folder…" from the explorer on 20 drafts: the table sorts by a click, Export CSV opens the sorted table', async () => {
  const folder = new URL(url).searchParams.get('folder');
  if (!folder) throw new Error('no workspace folder in the workbench URL');
  writeUiDrafts(folder);
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: UI_DRAFTS }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-label', { hasText: 'Score Drafts in Folder' }).first();
  await item.waitFor({ state: 'visible', timeout: 15_000 });
  await item.hover();
  await item.click();
  // A click on a context menu item sometimes only highlights it (seen under load): Enter runs it then.
  await page.waitForTimeout(700);
  if (await item.isVisible().catch(() => false)) {
    log('the menu is still open after the click: Enter');
    await page.keyboard.press('Enter');
  }
  // The references: the sibling "references" folder, offered first.
  await pickRow(UI_REFS);
  await shot('ui-folder-1-references');
  const frame = await insightsFrame();
  const rows = frame.locator('#app[data-view="folder"] .folder-table tbody tr');
  await rows.nth(19).waitFor({ state: 'attached', timeout: commandTimeoutMs });
  const count = await rows.count();
  if (count !== 20) throw new Error(`the table has ${count} rows, not 20`);
  await expectChart(frame, 'folder');

  // Sort by BLEU: a click on its header, highest first.
  await frame.locator('.folder-table th[data-column="bleu"] button').click();
  await frame
    .locator('.folder-table th[data-column="bleu"][aria-sort="descending"]')
    .waitFor({ state: 'attached', timeout: 10_000 });
  const shown = await frame
    .locator('.folder-table tbody td[data-metric="bleu"]')
    .evaluateAll((cells) => cells.map((c) => Number(c.dataset.value)));
  if (JSON.stringify(shown) !== JSON.stringify([...shown].sort((a, b) => b - a)))
    throw new Error(`not sorted by BLEU: ${shown}`);
  const firstDraft = await frame.locator('.folder-table tbody tr').first().getAttribute('data-draft');
  await shot('ui-folder-2-sorted');

  // Export CSV: the table in that order, as a new document.
  await frame.locator('button[data-export="csv"]').click();
  await page.waitForSelector('.tabs-container .tab[aria-label*="draftsmith-scores-"]', { timeout: 30_000 });
  await waitForText((t) => t.includes('(corpus)'), 30_000, 'the exported CSV');
  // In visual order (Monaco reuses line elements, so their DOM order is not the document's).
  const lines = (await editorLinesInOrder()).map((l) => l.trim()).filter(Boolean);
  if (!lines[0].startsWith('draft,bleu,rouge1,')) throw new Error(`the CSV header is ${JSON.stringify(lines[0])}`);
  if (lines.length !== 22) throw new Error(`the CSV has ${lines.length} lines, not 22 (header, 20 drafts, corpus)`);
  if (!lines[1].startsWith(`${firstDraft},`))
    throw new Error(
      `the CSV starts with ${JSON.stringify(lines[1].slice(0, 30))}, the sorted table with ${firstDraft}`,
    );
  const bleu = lines.slice(1, 21).map((l) => Number(l.split(',')[1]));
  if (JSON.stringify(bleu) !== JSON.stringify([...bleu].sort((a, b) => b - a)))
    throw new Error("the CSV is not in the table's order");
  if (!lines[21].startsWith('(corpus),')) throw new Error(`the last line is ${JSON.stringify(lines[21].slice(0, 30))}`);
  log(`exported CSV: ${lines.length} lines, first ${firstDraft}`);
  await shot('ui-folder-3-csv');
});

// A Markdown draft with a table between its paragraphs, and a second heading for the sections view.
// Two sentences a section: a section of one sentence is its own summary, without a model run or attention.
const MARKDOWN_DRAFT =
  '# Bridge\n\nThe council plans to hold a small festival on the riverbank next month. Officials said the next step is to repair the riverside path.\n\n' +
  '| item | cost |\n|---|---|\n| tablecell | four |\n\n## Funding\n\nThe project cost just over four million dollars. Most of it was paid for by a regional grant.\n';

test("Markdown in the panel: Check Coherence says the table was skipped and aligns prose sentences only; a sectioned summary's titles jump to their part of the attention view", async () => {
  await runFromPalette('File: New Untitled Text File');
  await page.waitForTimeout(500);
  await setLanguageMode('Markdown');
  // Line by line, with Escape before each Enter: a word suggestion ("bridge" from sample.md) must not be taken.
  for (const [i, line] of MARKDOWN_DRAFT.split('\n').entries()) {
    if (i > 0) {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type(line);
  }
  await page.keyboard.press('Escape');
  await waitForText((t) => words(t) === words(MARKDOWN_DRAFT), 30_000, 'the typed Markdown draft');
  await runFromPalette('Draftsmith: Check Coherence', { asks: true });
  // By its name: after the other tests many documents are open, and the list scrolls.
  await page.locator('.quick-input-widget input').fill(SAMPLE);
  const sample = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${SAMPLE}"]`).first();
  await sample.waitFor({ state: 'visible', timeout: 30_000 });
  await sample.click();
  const frame = await insightsFrame();
  const note = frame.locator('#app[data-view="coherence"] .read-notes li').first();
  await note.waitFor({ state: 'attached', timeout: commandTimeoutMs });
  const said = (await note.textContent()) ?? '';
  log('read note:', said);
  if (!/was read as Markdown, prose only: skipped 1 table/.test(said))
    throw new Error(`the panel says ${JSON.stringify(said)}`);
  const rows = await frame.locator('.alignment-table tbody tr').allTextContents();
  if (rows.length !== 6 || rows.some((r) => /tablecell|\|/.test(r)))
    throw new Error(`the draft's sentences in the panel: ${JSON.stringify(rows)}`);
  await shot('ui-md-1-coherence');

  await focusEditor();
  await runFromPalette('Draftsmith: Summarize Document');
  await frame
    .locator('#app[data-view="summarize"] .section-list li')
    .nth(1)
    .waitFor({ state: 'attached', timeout: commandTimeoutMs });
  const titles = frame.locator('.section-list .section-title');
  if ((await titles.count()) !== 2) throw new Error(`${await titles.count()} sections listed, not 2`);
  const marks = await frame
    .locator('.source-text [data-section]')
    .evaluateAll((spans) => spans.map((s) => `${s.dataset.section}:${s.textContent}`));
  log('sections in the attention view:', marks.join(' '));
  if (marks.length !== 2) throw new Error(`the attention view marks ${marks.length} sections, not 2: ${marks}`);
  await titles.nth(1).focus();
  await page.keyboard.press('Enter'); // keyboard access: the title is focusable and jumps
  await shot('ui-md-2-sections');
  // Back to the draft's editor (the panel's group has the focus now): one Undo removes the summary.
  await page.locator('.tabs-container .tab[aria-label*="Bridge"]').first().click();
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText((t) => !t.includes('Summary:'), 15_000, 'one undo to remove the summary');
});

// Prose checks as a writer meets them: three problems in one typed sentence, their squiggles, a quick
// fix from Ctrl+., Fix All Safe Issues for the other two in one edit, one Undo for that edit, and the
// words in the status bar.
const CHECKED_SENTENCE = 'He go to the the libary every day.';
const squiggles = () =>
  page.locator(
    '.editor-group-container.active .monaco-editor .squiggly-warning, .editor-group-container.active .monaco-editor .squiggly-error',
  );

/**
 * @param {number} count
 * @param {number} timeoutMs
 * @param {string} what
 */
async function waitForSquiggles(count, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let n = -1;
  while (Date.now() < deadline) {
    n = await squiggles().count();
    if (n === count) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}: ${n} squiggles, not ${count}`);
}

/**
 * The cursor to line:column, through Go to Line (the quick open's ":"), checked in the status bar's
 * "Ln, Col". Enter waits for the picker to offer the line: pressed while it still lists files, it
 * opens one of them.
 * @param {number} line
 * @param {number} column
 */
async function cursorTo(line, column) {
  await page.keyboard.press('Control+g');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`:${line}:${column}`);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: new RegExp(`line ${line}\\b`, 'i') })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  await page
    .locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
}

/**
 * The quick fix labelled `label` in the Ctrl+. menu at the cursor. The menu lists what the providers
 * had when it opened, so a slow provider gets a second chance after Escape.
 * @param {string} label
 */
async function quickFixRow(label) {
  const row = page.locator('.action-widget .monaco-list-row', { hasText: label }).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+.');
    try {
      await row.waitFor({ state: 'visible', timeout: attempt === 1 ? 7_500 : 15_000 });
      return row;
    } catch (e) {
      if (attempt === 2) throw e;
      log(`quick fix "${label}" not in the menu yet; again`);
      await page.keyboard.press('Escape');
    }
  }
}

test('Prose checks: a typed Markdown sentence with a misspelling, a doubled word and an agreement error shows three diagnostics; the quick fix and Fix All Safe Issues correct them; one Undo takes Fix All back; the status bar counts the words', async () => {
  await typeIntoNewFileOf('Markdown', CHECKED_SENTENCE, 'the typed sentence');
  await page.keyboard.press('Escape');
  // The first check loads Harper and the dictionary in the extension host.
  await waitForSquiggles(3, commandTimeoutMs, 'the three diagnostics');
  await shot('ui-checks-1-three');
  const status = page.locator('.statusbar-item', { hasText: /8 words/ }).first();
  await status.waitFor({ state: 'visible', timeout: 15_000 });

  // The agreement error's quick fix, from Ctrl+. on "go".
  await cursorTo(1, 5);
  const fix = await quickFixRow('Change to “goes”');
  await shot('ui-checks-2-quickfix');
  await fix.click();
  await waitForText((t) => t.includes('He goes to the the libary'), 15_000, 'the quick fix');
  await waitForSquiggles(2, 60_000, 'two diagnostics left');

  // The doubled word and the misspelling (one suggestion) are safe: one edit fixes both.
  await runFromPalette('Draftsmith: Fix All Safe Issues');
  await waitForText((t) => t.includes('He goes to the library every day.'), 30_000, 'Fix All Safe Issues');
  await waitForSquiggles(0, 60_000, 'no diagnostic left');
  await page
    .locator('.statusbar-item', { hasText: /7 words/ })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await shot('ui-checks-3-fixed');

  // One Undo takes back Fix All Safe Issues as a whole, and its two diagnostics come back.
  await focusEditor();
  await page.keyboard.press('Control+z');
  await waitForText((t) => t.includes('He goes to the the libary every day.'), 15_000, 'one undo of Fix All');
  await waitForSquiggles(2, 60_000, 'the two diagnostics back after the undo');
  await shot('ui-checks-4-undo');
});
