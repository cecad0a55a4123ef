/**
 * Compare Drafts against a Baseline's view: sacreBLEU's multi-system table (a row per draft, the
 * baseline first; per metric the score, μ ± 95 % interval and p-value, * below 0.05), a chart of the
 * scores with their intervals as a table's companion, and the drill-down: each draft's segments
 * that lose most against the baseline, with their texts and a button that opens the line.
 */
import { cellLines, metricHeader, type FromPanel, type SystemsView, type SystemsTable } from '../extension/panelPage';
import { barChart } from './charts';
import { el, hint, section, table } from './dom';

export function renderSystems(view: SystemsView, send: (m: FromPanel) => void): Node[] {
  const t: SystemsTable = view.table;
  const header = el('header', 'view-header');
  const title = el('h1');
  title.append(
    `${t.systems.length - 1} draft${t.systems.length === 2 ? '' : 's'} against `,
    el('span', 'name', t.systems[0]?.name.replace(/^Baseline: /, '') ?? ''),
    ', reference ',
    el('span', 'name', view.referenceName),
  );
  const what =
    t.test === 'paired-bs'
      ? `Paired bootstrap, ${t.samples} resamples`
      : `Approximate randomization, ${t.samples} trials`;
  header.append(title, hint(`${what}, seed ${t.seed}, ${t.segments} segments; ${Math.round(view.elapsedMs)} ms`));
  const actions = el('div', 'actions');
  for (const [format, label] of [
    ['md', 'Export Report (Markdown)'],
    ['html', 'Export Report (HTML)'],
  ] as const) {
    const b = el('button', 'export', label);
    b.type = 'button';
    b.dataset.export = format;
    b.addEventListener('click', () => send({ type: 'export-report', format }));
    actions.append(b, ' ');
  }
  header.append(actions);

  const lower = t.metrics.filter((m) => m.better === 'lower').map((m) => m.name);
  const rows = t.systems.map((s) => [
    s.name,
    ...s.cells.map((c) => {
      const [score, p] = cellLines(c, 2);
      return p ? `${score} ${p}` : score;
    }),
  ]);
  const scores = table({
    caption:
      'Each draft against the baseline: score (bootstrap mean ± half the 95 % interval), and the p-value of ' +
      'the difference (* p < 0.05), as sacreBLEU prints them.' +
      (lower.length > 0 ? ` Lower is better for ${lower.join(', ')}.` : ''),
    className: 'metrics systems-table',
    headers: ['Draft', ...t.metrics.map((_, k) => metricHeader(t, k))],
    numeric: t.metrics.map((_, k) => k + 1),
    rowHeaders: true,
    rows,
  });
  const signatures = el('ul', 'signatures');
  for (const m of t.metrics) {
    const li = el('li');
    li.append(el('span', 'name', m.name), ' ', el('code', undefined, m.signature));
    signatures.append(li);
  }
  const parts: Node[] = [header, section('systems-scores', 'Scores', scores, signatures)];
  if (t.systems.length > 0 && t.metrics.length > 0)
    parts.push(
      section(
        'systems-chart',
        'Scores by draft',
        barChart({
          ariaLabel: 'Each draft’s score per metric; the table above lists every value with its interval.',
          labels: t.metrics.map((m) => m.name),
          series: t.systems.map((s) => ({ label: s.name, values: s.cells.map((c) => c.score) })),
          xTitle: 'metric',
          yTitle: 'score',
        }),
      ),
    );

  // The drill-down: a list per draft and metric, the largest drop first.
  const drill = el('div', 'drill-down');
  for (const w of view.worst) {
    const systemIndex = t.systems.findIndex((s) => s.name === w.system);
    const lost = w.segments.filter((d) => d.drop > 0);
    const box = el('div', 'worst');
    box.append(
      // Names in spans of their own: each shown string isolated from the text around it (bidi).
      summaryOf(w.system, w.metric, `: ${lost.length} of the worst ${w.segments.length} lose`),
    );
    const list = el('ol');
    for (const d of w.segments) {
      const li = el('li');
      li.dataset.segment = String(d.index);
      const go = el('button', 'open-segment', `Go to segment ${d.index + 1}`);
      go.type = 'button';
      go.addEventListener('click', () => send({ type: 'open-segment', system: systemIndex, segment: d.index }));
      li.append(
        el('span', 'name', w.metric),
        el(
          'span',
          'drop',
          ` ${d.baseline.toFixed(2)} → ${d.system.toFixed(2)} (${d.drop > 0 ? 'loses' : 'gains'} ` +
            `${Math.abs(d.drop).toFixed(2)})`,
        ),
        ' ',
        go,
        el('p', 'segment-text', `draft: ${d.hypothesis}`),
        el('p', 'segment-text', `baseline: ${d.baselineHypothesis}`),
        ...d.references.map((r) => el('p', 'segment-text', `reference: ${r}`)),
      );
      list.append(li);
    }
    box.append(list);
    drill.append(box);
  }
  if (view.worst.length > 0)
    parts.push(
      section(
        'systems-worst',
        'Where each draft loses most',
        hint(
          'Each segment scored alone (sentence BLEU, as sacreBLEU’s --sentence-level), sorted by the drop ' +
            'against the baseline.',
        ),
        drill,
      ),
    );
  return parts;
}

function summaryOf(system: string, metric: string, rest: string): HTMLElement {
  const summary = el('p', 'worst-title');
  summary.append(el('span', 'name', system), ', ', el('span', 'name', metric), rest);
  return summary;
}
