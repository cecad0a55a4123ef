/**
 * The insights panel page (bundled for the browser). It talks to the host only through the
 * ToPanel / FromPanel messages of extension/protocol/panel.ts, parses every message on arrival, and builds the page
 * with DOM APIs and textContent only, so document text is never interpreted as HTML.
 *
 * One view at a time: summarize (summarizeView.ts), essay (essayView.ts), story (storyView.ts), score
 * (scoreView.ts), coherence
 * (coherenceView.ts), round trip (roundtripView.ts). The message shown is kept in the webview state so
 * a reload shows it again.
 */
import { EMPTY_INSIGHTS } from '../extension/panelViews';
import { FromPanel, ToPanel } from '../extension/protocol';
import { destroyCharts } from './charts';
import { renderCoherence } from './coherenceView';
import { el } from './dom';
import { renderEssay } from './essayView';
import { renderFolder } from './folderView';
import { renderRoundTrip } from './roundtripView';
import { renderScore } from './scoreView';
import { renderStory } from './storyView';
import { renderSummarize } from './summarizeView';
import { renderSystems } from './systemsView';

interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): WebviewApi;

const vscode = acquireVsCodeApi();
const app = document.getElementById('app') ?? document.body;
type Shown = Exclude<ToPanel, { type: 'empty' }>;

/** One renderer per view: a new view is one entry here (and one in extension/panelViews.ts). */
const VIEWS: { [T in Shown['type']]: (view: Extract<Shown, { type: T }>['view']) => Node[] } = {
  summarize: renderSummarize,
  essay: renderEssay,
  story: renderStory,
  score: renderScore,
  coherence: renderCoherence,
  roundtrip: renderRoundTrip,
  folder: (view) => renderFolder(view, send),
  systems: (view) => renderSystems(view, send),
};

/** What the page shows now, if anything. */
let shown: Shown | undefined;

function send(message: FromPanel): void {
  vscode.postMessage(message);
}

function renderEmpty(message: string): void {
  shown = undefined;
  vscode.setState(undefined);
  destroyCharts();
  const box = el('section', 'empty');
  box.append(el('p', undefined, message));
  app.replaceChildren(box);
}

function render(message: Shown): void {
  shown = message;
  vscode.setState(message);
  destroyCharts();
  app.dataset.view = message.type;
  // The message was parsed, so its view is the one its type names.
  const renderView = VIEWS[message.type] as (view: Shown['view']) => Node[];
  app.replaceChildren(...renderView(message.view));
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = ToPanel.safeParse(event.data);
  if (!parsed.success) {
    console.warn('Draftsmith insights: ignoring a malformed message', parsed.error.message);
    return;
  }
  const message = parsed.data;
  if (message.type === 'empty') {
    // After a window reload the host has no result yet, but the page restored the last one it showed: keep it.
    if (!shown) renderEmpty(message.message);
    return;
  }
  render(message);
});

const restored = ToPanel.safeParse(vscode.getState());
if (restored.success && restored.data.type !== 'empty') render(restored.data);
else renderEmpty(EMPTY_INSIGHTS);
send({ type: 'ready' });
