/**
 * The story view (hierarchical story generation with fusion): the continuation with every token
 * shaded by its fusion gate, and the gates over the generated words as a chart and a table — the
 * paper's Figure 8: at each step, how much the fused model's prediction runs through the frozen
 * pretrained seq2seq's hidden state and how much through the trained one's (section 3.4).
 */
import { STORY_CHOOSE, storyCutNote, type GeneratedToken, type StoryView } from '../extension/panelPage';
import { renderExternalModel } from './externalModel';
import { barChart } from './charts';
import { clip, el, fixed3, hint, section, table } from './dom';

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function renderStory(result: StoryView): Node[] {
  const header = el('header', 'view-header');
  header.append(
    el('h1', undefined, `Story: ${result.wordCount} word${result.wordCount === 1 ? '' : 's'} written`),
    renderStats(result),
  );
  // A Hub model or a transformers.js folder has no fusion gates: the panel says which model wrote it instead.
  if (result.external)
    return [
      header,
      renderExternalModel(result.external, 'story-model'),
      renderPrompt(result),
      renderContinuation(result),
    ];
  return [header, renderPrompt(result), renderContinuation(result), renderGates(result)];
}

const ENDED_BY: Record<StoryView['endedBy'], string> = {
  words: 'the length asked for',
  end: 'the model ended the story',
  'length-limit': 'the longest story the model writes',
};

function renderStats(result: StoryView): HTMLElement {
  const s = result.stats;
  const p = result.sampling;
  return el(
    'p',
    'stats',
    [
      `${s.tokensPerSecond.toFixed(1)} tokens/s`,
      `encode ${Math.round(s.encodeMs)} ms`,
      `decode ${Math.round(s.decodeMs)} ms`,
      `${s.usedInputTokens} prompt tokens read`,
      `${s.outputTokens} tokens written, ${result.wordCount} of ${result.words} words (${ENDED_BY[result.endedBy]})`,
      `top-k ${p.topK}, temperature ${p.temperature}, seed ${p.seed}`,
      s.device,
      s.model,
    ].join(' · '),
  );
}

function renderPrompt(result: StoryView): HTMLElement {
  const text = el('p', 'prompt-text', result.truncated ? `…${result.usedPrompt}` : result.usedPrompt);
  const parts: Node[] = [text];
  if (result.truncated) {
    parts.unshift(
      el(
        'p',
        'truncated',
        `${capitalized(storyCutNote(result, result.stats.usedInputTokens) ?? '')}, shown here. ${STORY_CHOOSE.panel}`,
      ),
    );
  }
  return section('story-prompt', 'Prompt (what the model read)', ...parts);
}

/** A token as the chart and the table name it: a piece that is only a space shows as ␣. */
const tokenLabel = (t: GeneratedToken): string => t.text || '␣';

/** The pretrained gate of each token relative to the others in this story: 0 the lowest, 1 the highest. */
function relativeShares(tokens: readonly GeneratedToken[]): number[] {
  const values = tokens.map((t) => t.gate?.pretrained ?? 0);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return values.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}

function renderContinuation(result: StoryView): HTMLElement {
  const box = el('p', 'story-text');
  const shares = relativeShares(result.tokens);
  let cursor = 0;
  result.tokens.forEach((token, i) => {
    // Spans come from the engine; skip any that overlap an earlier one or fall outside the text.
    if (token.start < cursor || token.end > result.continuation.length || token.end <= token.start) return;
    if (token.start > cursor) box.append(document.createTextNode(result.continuation.slice(cursor, token.start)));
    const span = el('span', 'story-token', result.continuation.slice(token.start, token.end));
    span.dataset.index = String(i);
    if (token.gate) {
      // A custom property, not a colour: panel.css mixes the theme colour with it (CSSOM is CSP-safe).
      span.style.setProperty('--alpha', `${Math.round(shares[i] * 70)}%`);
      span.title =
        `gate on the pretrained model ${fixed3(token.gate.pretrained)}, on the trained model ` +
        `${fixed3(token.gate.trained)}`;
    }
    box.append(span);
    cursor = token.end;
  });
  if (cursor < result.continuation.length) box.append(document.createTextNode(result.continuation.slice(cursor)));
  let explain: HTMLElement;
  if (result.external)
    explain = hint(`Written by ${result.external.id}, which reports no fusion gates: the text is not shaded.`);
  else if (result.fusion)
    explain = hint(
      'Each token is shaded by the fusion gate on the pretrained model’s hidden state when it was written, ' +
        'relative to the rest of this story: darker tokens leaned more on the pretrained model. Hover a token ' +
        'for both gates.',
    );
  else explain = hint('This model has no fusion, so there are no gates to shade by.');
  return section('story-continuation', 'Continuation', explain, box);
}

function renderGates(result: StoryView): HTMLElement {
  const heading = 'Fusion gates over the generated words (the paper’s Figure 8)';
  const withGates = result.tokens.map((t, i) => ({ t, i })).filter((x) => x.t.gate !== null);
  if (!result.fusion || withGates.length === 0)
    return section('fusion-gates', heading, hint('The model reported no fusion gates.'));
  const labels = withGates.map(({ t, i }) => `${i + 1} ${clip(tokenLabel(t), 12)}`);
  const focusRow = (index: number): void => {
    const row = rows.querySelector<HTMLElement>(`tr[data-token="${withGates[index]?.i ?? -1}"]`);
    if (!row) return;
    row.tabIndex = -1; // focusable from script only; Tab order stays as it was
    row.focus();
    row.scrollIntoView({ block: 'center' });
  };
  const chart = barChart({
    ariaLabel:
      `Bar chart of the fusion gates for each of the ${withGates.length} generated tokens: the mean gate on ` +
      `the trained model's ` +
      "hidden state and on the pretrained model's, each between 0 and 1; the table below lists the same numbers.",
    labels,
    series: [
      { label: 'trained (fused) model', values: withGates.map(({ t }) => t.gate?.trained ?? 0) },
      { label: 'pretrained model', values: withGates.map(({ t }) => t.gate?.pretrained ?? 0) },
    ],
    xTitle: 'generated token',
    yTitle: 'mean gate',
    yMax: 1,
    tooltipTitle: (index) => tokenLabel(withGates[index]?.t ?? { text: '', start: 0, end: 0, gate: null }),
    onPick: focusRow,
  });
  const rows = table({
    caption: 'Mean fusion gate per generated token, on the trained and on the pretrained model',
    className: 'gates-table',
    headers: ['#', 'token', 'trained', 'pretrained'],
    numeric: [0, 2, 3],
    rows: withGates.map(({ t, i }) => [
      String(i + 1),
      tokenLabel(t),
      fixed3(t.gate?.trained ?? 0),
      fixed3(t.gate?.pretrained ?? 0),
    ]),
    rowData: (r) => ({ token: String(withGates[r]?.i ?? r) }),
  });
  const explain = hint(
    'Model fusion (section 3.4) joins the hidden states of a frozen pretrained seq2seq and of the model ' +
      'trained on top of it; ' +
      ('a learned gate (a sigmoid per channel) weighs each before they are combined. The bars are each gate’s ' +
        'mean over its channels at the step that wrote the token.'),
  );
  return section('fusion-gates', heading, explain, chart, rows);
}
