/**
 * The essay view (PC-SAN): the topic words, marked by whether the best essay uses them; the essays,
 * best first; and the paper's Figure 3, how much each decoder layer draws on each encoder layer
 * (Eq. 2's softmax weights), as a heatmap and as a table with the same numbers.
 */
import type { EssayView } from '../extension/panelPage';

type EssayCandidate = EssayView['candidates'][number];
import { renderExternalModel } from './externalModel';
import { heatmapChart } from './charts';
import { el, fixed3, hint, section, table } from './dom';

/** A score with a true minus sign (log-probabilities are negative). */
const signed = (x: number): string => x.toFixed(2).replace('-', '−');

export function renderEssay(result: EssayView): Node[] {
  const header = el('header', 'view-header');
  const n = result.topics.length;
  header.append(el('h1', undefined, `Essay from ${n} topic word${n === 1 ? '' : 's'}`), renderStats(result));
  // A Hub model has no per-layer weights: the panel says which model wrote it instead.
  if (result.external)
    return [header, renderExternalModel(result.external, 'essay-model'), renderTopics(result), renderEssays(result)];
  return [header, renderTopics(result), renderEssays(result), renderLayerWeights(result)];
}

function renderStats(result: EssayView): HTMLElement {
  const s = result.stats;
  return el(
    'p',
    'stats',
    [
      `${s.tokensPerSecond.toFixed(1)} steps/s`,
      `encode ${Math.round(s.encodeMs)} ms`,
      `decode ${Math.round(s.decodeMs)} ms`,
      `${s.usedInputTokens} input subwords`,
      `${s.outputTokens} output tokens`,
      s.device,
      s.model,
    ].join(' · '),
  );
}

/** Marked with a sign and a word, not by colour alone. */
function renderTopics(result: EssayView): HTMLElement {
  const best = result.candidates[0];
  const covered = new Set(best?.covered.map((w) => w.toLowerCase()) ?? []);
  const unknown = new Set(result.unknownTopics.map((w) => w.toLowerCase()));
  const list = el('ul', 'topic-words');
  for (const topic of result.topics) {
    const used = covered.has(topic.toLowerCase());
    const item = el('li', used ? 'covered' : 'missing');
    item.dataset.topic = topic;
    item.dataset.covered = String(used);
    item.append(
      el('span', 'mark', used ? '✓' : '✗'),
      el('span', 'topic-word', topic),
      el('span', 'topic-status', used ? 'in essay 1' : 'not in essay 1'),
    );
    if (unknown.has(topic.toLowerCase())) item.append(el('span', 'topic-status', '· no word vector'));
    list.append(item);
  }
  return section(
    'topics',
    'Topic words',
    hint(
      '✓: the best essay (1) uses the word or an inflection of it; ✗: it does not. ' +
        '“No word vector”: the model knows the word only by its subwords.',
    ),
    list,
  );
}

function renderEssays(result: EssayView): HTMLElement {
  const list = el('ol', 'essays');
  result.candidates.forEach((c, i) => {
    const item = el('li', 'essay');
    item.dataset.index = String(i);
    item.append(el('p', 'essay-text', c.text), el('p', 'hint', coverageLine(c, result.topics)));
    list.append(item);
  });
  const heading = result.candidates.length === 1 ? 'Essay' : `Essays (${result.candidates.length}, best first)`;
  return section('essay-candidates', heading, list);
}

function coverageLine(c: EssayCandidate, topics: readonly string[]): string {
  const covered = new Set(c.covered.map((w) => w.toLowerCase()));
  const missing = topics.filter((t) => !covered.has(t.toLowerCase()));
  const uses = c.covered.length > 0 ? `: ${c.covered.join(', ')}` : '';
  const not = missing.length > 0 && c.covered.length > 0 ? `; not: ${missing.join(', ')}` : '';
  return (
    `covers ${c.covered.length} of ${topics.length}${uses}${not} · score ${signed(c.score)} · log P ` +
    `${signed(c.logProb)}`
  );
}

/** Figure 3: rows are decoder layers 1..L, columns the encoder's layers (embeddings first). */
function renderLayerWeights(result: EssayView): HTMLElement {
  const heading = 'Layer weights (Eq. 2, the paper’s Figure 3)';
  const columns = result.encoderLayers;
  const rows = result.layerWeights;
  if (rows.length === 0 || columns.length === 0)
    return section('layer-weights', heading, hint('The model reported no layer weights.'));
  const rowLabels = rows.map((_, l) => String(l + 1));

  const weights = table({
    caption: 'Weight of each encoder layer in each decoder layer’s input (each row sums to 1)',
    className: 'layer-weights-table',
    headers: ['decoder layer', ...columns],
    numeric: columns.map((_, c) => c + 1),
    rowHeaders: true,
    rows: rows.map((row, l) => [rowLabels[l], ...columns.map((_, c) => fixed3(row[c] ?? 0))]),
    rowData: (l) => ({ layer: String(l + 1) }),
    cellData: (l, c): Record<string, string> =>
      c === 0 ? {} : { layer: String(l + 1), encoder: columns[c - 1], value: String(rows[l]?.[c - 1] ?? 0) },
  });
  // The table is shaded like the chart (a custom property; panel.css mixes the theme colour with it).
  weights.querySelectorAll<HTMLElement>('td[data-layer]').forEach((cell) => {
    const weight = Math.min(1, Math.max(0, Number(cell.dataset.value) || 0));
    cell.style.setProperty('--alpha', `${Math.round(weight * 60)}%`);
  });

  const focusCell = (row: number, column: number): void => {
    const cell = weights.querySelectorAll<HTMLElement>(`td[data-layer="${row + 1}"]`)[column];
    if (!cell) return;
    cell.tabIndex = -1; // focusable from script only; Tab order stays as it was
    cell.focus();
    cell.scrollIntoView({ block: 'center' });
  };
  const chart = heatmapChart({
    ariaLabel:
      `Heatmap of the layer weights: for each of the ${rows.length} decoder layers, the weight of each of the ` +
      `${columns.length} encoder layers (${columns.join(', ')}); the table below lists the same numbers.`,
    rowLabels,
    columnLabels: columns,
    values: rows,
    // Weights are probabilities: on an absolute scale equal weights look equal, not all darkest.
    max: 1,
    xTitle: 'encoder layer',
    yTitle: 'decoder layer',
    format: fixed3,
    onPick: focusCell,
  });
  const explain = hint(
    'Each decoder layer reads a softmax-weighted sum of the outputs of all encoder layers (PC-SAN, Eq. 2) ' +
      'instead of the last layer only. ' +
      ('Darker cells carry more weight (1 would be the darkest); equal weights (1 / the number of encoder ' +
        'layers) mean no preference.'),
  );
  return section('layer-weights', heading, explain, chart, weights);
}
