/**
 * The insights panel page (bundled for the browser). It talks to the host only through the
 * ToPanel / FromPanel messages of protocol.ts, parses every message on arrival, and builds the page
 * with DOM APIs and textContent only, so document text is never interpreted as HTML.
 *
 * The summarize view follows the TAAS paper's Figure 4: the source shaded token by token by its
 * topic-aware attention weight α, the five most attended phrases outlined and ranked.
 */
import { FromPanel, SummarizeResult, ToPanel } from '../extension/protocol';

interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): WebviewApi;

const vscode = acquireVsCodeApi();
const app = document.getElementById('app') ?? document.body;
const DEFAULT_EMPTY = 'Run Draftsmith: Summarize Document to see what the model attended to.';

/** What the page shows now; kept in the webview state so a reload shows it again at once. */
let shown: SummarizeResult | undefined;

function send(message: FromPanel): void {
  vscode.postMessage(message);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function formatWeight(w: number): string {
  return w.toFixed(3);
}

// ---- views -------------------------------------------------------------------------------------

function renderEmpty(message: string): void {
  shown = undefined;
  vscode.setState(undefined);
  const box = el('section', 'empty');
  box.append(el('p', undefined, message));
  app.replaceChildren(box);
}

function renderSummarize(result: SummarizeResult): void {
  shown = result;
  vscode.setState({ type: 'summarize', result } satisfies ToPanel);

  const phrases = [...result.topPhrases].sort((a, b) => b.weight - a.weight).slice(0, 5);

  const summary = el('section', 'summary');
  summary.append(el('h2', undefined, 'Summary'), el('p', 'summary-text', result.summary));

  const source = el('section', 'source');
  source.append(
    el('h2', undefined, 'Source, shaded by topic-aware attention α'),
    el('p', 'hint', 'Each token’s background grows with its weight (relative to the largest); the five most attended phrases are outlined.'),
    renderSource(result, phrases),
  );

  const ranked = el('section', 'phrases');
  ranked.append(el('h2', undefined, 'Top 5 attended phrases'));
  if (phrases.length === 0) {
    ranked.append(el('p', 'hint', 'The model reported no phrases.'));
  } else {
    const list = el('ol', 'phrase-list');
    phrases.forEach((phrase, rank) => list.append(renderPhraseItem(phrase.text, phrase.weight, rank)));
    ranked.append(list);
  }

  const topics = el('section', 'topics');
  topics.append(el('h2', undefined, 'Topics'));
  if (result.topics.length === 0) {
    topics.append(el('p', 'hint', 'No topics.'));
  } else {
    const list = el('ul', 'topic-list');
    for (const topic of result.topics) {
      const item = el('li');
      item.append(el('span', 'topic-id', `Topic ${topic.id}`), document.createTextNode(` ${topic.words.join(', ')}`));
      list.append(item);
    }
    topics.append(list);
  }

  app.replaceChildren(summary, renderStats(result), source, ranked, topics);
}

function renderStats(result: SummarizeResult): HTMLElement {
  const s = result.stats;
  const parts = [
    `${s.tokensPerSecond.toFixed(1)} tokens/s`,
    `encode ${Math.round(s.encodeMs)} ms`,
    `decode ${Math.round(s.decodeMs)} ms`,
    `${s.usedInputTokens} of ${s.inputTokens} input tokens`,
    `${s.outputTokens} output tokens`,
    s.device,
    s.model,
  ];
  const stats = el('p', 'stats', parts.join(' · '));
  if (result.truncated) {
    stats.append(el('span', 'truncated', ` · truncated: the model read the first ${result.usedChars} of ${result.source.length} characters`));
  }
  return stats;
}

/**
 * The source as it was written: token spans shaded by weight, and the text between tokens
 * (whitespace, skipped characters) as plain text so the passage reads naturally.
 */
function renderSource(result: SummarizeResult, phrases: readonly { start: number; end: number }[]): HTMLElement {
  const { source } = result;
  const box = el('div', 'source-text');
  const maxWeight = result.tokens.reduce((m, t) => Math.max(m, t.weight), 0);
  const tokens = [...result.tokens].sort((a, b) => a.start - b.start);
  let cursor = 0;
  // A top phrase is one outlined element around its tokens (and the spaces between them), not a box per token.
  let phraseBox: { el: HTMLElement; end: number } | undefined;
  const target = (): HTMLElement => (phraseBox && cursor < phraseBox.end ? phraseBox.el : box);
  for (const token of tokens) {
    // Spans come from the engine; skip any that overlap an earlier one or fall outside the text.
    if (token.start < cursor || token.end > source.length || token.end <= token.start) continue;
    if (phraseBox && token.start >= phraseBox.end) phraseBox = undefined;
    if (token.start > cursor) target().append(document.createTextNode(source.slice(cursor, token.start)));
    const rank = phrases.findIndex((p) => token.start < p.end && p.start < token.end);
    if (rank >= 0 && !phraseBox) {
      const mark = el('span', 'top-phrase');
      mark.dataset.rank = String(rank);
      box.append(mark);
      phraseBox = { el: mark, end: phrases[rank].end };
    }
    const span = el('span', 'token', source.slice(token.start, token.end));
    const share = maxWeight > 0 ? Math.max(0, token.weight) / maxWeight : 0;
    // A custom property, not a colour: panel.css mixes the theme colour with it (CSSOM is CSP-safe).
    span.style.setProperty('--alpha', `${Math.round(share * 100)}%`);
    span.title = `α = ${formatWeight(token.weight)}`;
    cursor = token.start;
    target().append(span);
    cursor = token.end;
  }
  const readEnd = result.truncated ? Math.max(cursor, Math.min(result.usedChars, source.length)) : source.length;
  if (readEnd > cursor) box.append(document.createTextNode(source.slice(cursor, readEnd)));
  if (readEnd < source.length) {
    const unread = el('span', 'unread', source.slice(readEnd));
    unread.title = 'Not read by the model (past its input limit)';
    box.append(unread);
  }
  return box;
}

function renderPhraseItem(text: string, weight: number, rank: number): HTMLElement {
  const item = el('li', 'phrase');
  item.tabIndex = 0;
  item.dataset.rank = String(rank);
  item.setAttribute('aria-label', `${rank + 1}. ${text}, weight ${formatWeight(weight)}`);
  item.append(el('span', 'phrase-text', text), el('span', 'weight', formatWeight(weight)));
  const spans = (): HTMLElement[] => Array.from(app.querySelectorAll<HTMLElement>(`.top-phrase[data-rank="${rank}"]`));
  const mark = (on: boolean): void => spans().forEach((s) => s.classList.toggle('active', on));
  item.addEventListener('mouseenter', () => mark(true));
  item.addEventListener('mouseleave', () => mark(item === document.activeElement));
  item.addEventListener('focus', () => mark(true));
  item.addEventListener('blur', () => mark(false));
  const reveal = (): void => spans()[0]?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  item.addEventListener('click', reveal);
  item.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      reveal();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? item.nextElementSibling : item.previousElementSibling;
      if (next instanceof HTMLElement) next.focus();
    }
  });
  return item;
}

// ---- messages ----------------------------------------------------------------------------------

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = ToPanel.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Draftsmith insights: ignoring a malformed message', parsed.error.message);
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'summarize':
      renderSummarize(message.result);
      return;
    case 'empty':
      // After a window reload the host has no result yet, but the page restored the last one it showed: keep it.
      if (!shown) renderEmpty(message.message);
      return;
  }
});

const restored = ToPanel.safeParse(vscode.getState());
if (restored.success && restored.data.type === 'summarize') renderSummarize(restored.data.result);
else renderEmpty(DEFAULT_EMPTY);
send({ type: 'ready' });
