/**
 * The Score Draft view: the draft's corpus scores against its reference, one table per metric of
 * the metric list (extension/engine/eval/metricList.ts) the scores carry, then sentence by sentence,
 * with a bar chart of the per-sentence scores. Every main number is a cell with data-metric (a
 * stable name) and data-value (the raw number).
 */
import {
  formatValue,
  shownMetrics,
  type DraftComparison,
  type ScoreView,
  type MetricValue,
  type ShownMetric,
} from '../extension/panelPage';
import { barChart } from './charts';
import { clip, el, fixed2, hint, metric, percent, section, table, type Cell } from './dom';
import { renderReadNotes } from './readNotesView';

/** A value's cell: its formatted text, tagged with its stable name and raw number. */
const cell = (v: MetricValue, prefix = ''): Cell => metric(prefix + v.key, v.value, formatValue(v));
const header = (v: MetricValue): string => (v.better === 'lower' ? `${v.label} (lower is better)` : v.label);

/** One metric's table: a row of its values, or its grid (ROUGE: a row per type); examples and a note beside. */
function renderMetric(m: ShownMetric): HTMLElement[] {
  const gridded = m.values.filter((v) => v.grid !== undefined);
  let t: HTMLElement;
  if (gridded.length > 0) {
    const rows = [...new Set(gridded.map((v) => v.grid?.row ?? ''))];
    const columns = [...new Set(gridded.map((v) => v.grid?.column ?? ''))];
    t = table({
      caption: m.label,
      className: 'metrics',
      headers: ['', ...columns],
      numeric: columns.map((_, i) => i + 1),
      rowHeaders: true,
      rows: rows.map((row) => [
        row,
        ...columns.map((column) => {
          const v = gridded.find((x) => x.grid?.row === row && x.grid.column === column);
          return v === undefined ? '—' : cell(v);
        }),
      ]),
    });
  } else {
    const examples = m.examples === undefined ? [] : [m.examples.length > 0 ? m.examples.join(', ') : '—'];
    t = table({
      caption: m.label,
      className: 'metrics',
      headers: [...m.values.map(header), ...(m.examples === undefined ? [] : ['examples'])],
      numeric: m.values.map((_, i) => i),
      rows: [[...m.values.map((v) => cell(v)), ...examples]],
    });
  }
  return m.note === undefined ? [t] : [t, hint(m.note)];
}

export function renderScore(result: ScoreView): Node[] {
  const s = result.scores;

  const header = el('header', 'view-header');
  const title = el('h1');
  title.append(
    'Score of ',
    el('span', 'name', result.hypothesisName),
    ' against ',
    el('span', 'name', result.referenceName),
  );
  header.append(title, hint(`${result.sentences.length} draft sentences · ${Math.round(result.elapsedMs)} ms`));

  const corpus = section('scores', 'Scores', ...shownMetrics(s).flatMap(renderMetric), renderSignatures(result));
  if (result.comparison !== undefined) {
    title.append(' (and ', el('span', 'name', result.comparison.secondName), ')');
    return [
      header,
      ...renderReadNotes(result.readNotes, 'How the texts were read'),
      renderComparison(result, result.comparison),
      corpus,
      renderSentences(result),
    ];
  }
  return [header, ...renderReadNotes(result.readNotes, 'How the texts were read'), corpus, renderSentences(result)];
}

/** Two drafts: each one's score on the paired segments with its 95 % interval, and the p-value of
 * the difference (paired bootstrap); then the second draft's whole-text scores beside the first's. */
function renderComparison(result: ScoreView, c: DraftComparison): HTMLElement {
  const a = result.hypothesisName;
  const b = c.secondName;
  const ci = (m: { mean: number; ci: number }) => `${fixed2(m.mean)} ± ${fixed2(m.ci)}`;
  const tests = table({
    caption: `Paired bootstrap: ${b} against ${a} (0–100)`,
    className: 'metrics comparison',
    headers: ['metric', a, 'μ ± 95% CI', b, 'μ ± 95% CI', 'p-value'],
    numeric: [1, 2, 3, 4, 5],
    rowHeaders: true,
    rows: c.metrics.map((m) => {
      const key = m.metric.toLowerCase().replace(/[^a-z0-9]+/g, '');
      return [
        m.metric,
        metric(`cmp-${key}-first`, m.first.score, fixed2(m.first.score)),
        metric(`cmp-${key}-first-ci`, m.first.ci, ci(m.first)),
        metric(`cmp-${key}-second`, m.second.score, fixed2(m.second.score)),
        metric(`cmp-${key}-second-ci`, m.second.ci, ci(m.second)),
        metric(`cmp-${key}-p`, m.second.pValue, `${m.second.pValue.toFixed(4)}${m.second.pValue < 0.05 ? ' *' : ''}`),
      ];
    }),
  });
  const segments =
    c.segmentation === 'lines'
      ? `${c.segments} segments: the texts' lines (all three have ${c.segments})`
      : `${c.segments} segments: the reference's sentences, each with the draft sentences that match it best`;
  const few =
    c.segments < 10
      ? ` With ${c.segments} segment${c.segments === 1 ? '' : 's'} the test can say little; longer texts give a ` +
        `clearer answer.`
      : '';
  // Each draft's headline numbers (the list's `compare` values), for the metrics the second draft has.
  const compared = (sc: ScoreView['scores']) => shownMetrics(sc).flatMap((m) => m.values.filter((v) => v.compare));
  const columns = compared(c.secondScores);
  const whole = table({
    caption: 'Whole-text scores of both drafts',
    className: 'metrics',
    headers: ['draft', ...columns.map((v) => (v.percent ? `${header(v)} (%)` : header(v)))],
    numeric: columns.map((_, i) => i + 1),
    rowHeaders: true,
    rows: [
      { name: a, scores: result.scores, k: 'first' },
      { name: b, scores: c.secondScores, k: 'second' },
    ].map(({ name, scores, k }) => {
      const values = compared(scores);
      return [
        name,
        ...columns.map((col) => {
          const v = values.find((x) => x.key === col.key);
          return v === undefined || v.value === null ? '—' : cell(v, `whole-${k}-`);
        }),
      ];
    }),
  });
  return section(
    'comparison',
    'Two drafts compared',
    tests,
    hint(
      `Paired bootstrap resampling (sacreBLEU's --paired-bs), ${c.samples.toLocaleString('en')} resamples, ` +
        `seed ${c.seed}, over ${segments}. ` +
        (`ROUGE here is the mean F1 over the segments. * p < 0.05: a difference this large is unlikely to be ` +
          `chance.${few}`),
    ),
    whole,
  );
}

/** The signature strings that say how each score was computed (sacreBLEU's for BLEU and chrF, ours
 * for ROUGE), as text, each with a Copy button (a real button: Tab and Enter or Space reach it). */
function renderSignatures(result: ScoreView): HTMLElement {
  const entries = Object.entries(result.signatures).map(([name, signature]): [string, string] => [
    name === 'chrF' ? (result.scores.chrf?.name ?? name) : name,
    signature,
  ]);
  const list = el('dl', 'signatures');
  list.setAttribute('aria-label', 'Signatures: how each score was computed, to reproduce it');
  for (const [name, signature] of entries) {
    const code = el('code', 'signature', signature);
    code.dataset.signature = name;
    const copy = el('button', 'copy', 'Copy');
    copy.type = 'button';
    copy.setAttribute('aria-label', `Copy the ${name} signature`);
    copy.addEventListener('click', () => {
      void copyText(signature).then((ok) => {
        copy.textContent = ok ? 'Copied' : 'Select and copy';
        setTimeout(() => {
          copy.textContent = 'Copy';
        }, 1500);
        if (!ok) selectText(code);
      });
    });
    const value = el('dd');
    value.append(code, ' ', copy);
    list.append(el('dt', undefined, `${name} signature`), value);
  }
  return list;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function selectText(node: Node): void {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/** The per-sentence chart and table; clicking a bar focuses that sentence's row. */
function renderSentences(result: ScoreView): HTMLElement {
  const sentences = result.sentences;
  if (sentences.length === 0) return section('sentences', 'Sentence by sentence', hint('The draft has no sentences.'));

  const rows = sentences.map((s) => [
    String(s.index + 1),
    s.text,
    s.reference === null ? '—' : `${s.reference + 1}. ${s.referenceText}`,
    fixed2(s.bleu),
    percent(s.rouge1),
    percent(s.rougeL),
    String(s.entityWords),
  ]);
  const sentenceTable = table({
    caption: 'Each draft sentence against its best-matching reference sentence (by ROUGE-L F1)',
    className: 'sentences-table',
    headers: ['#', 'draft sentence', 'best reference sentence', 'BLEU', 'ROUGE-1 (%)', 'ROUGE-L (%)', 'entity words'],
    numeric: [3, 4, 5, 6],
    rowHeaders: true,
    rows,
    rowData: (i) => ({ sentence: String(sentences[i].index) }),
  });
  const focusRow = (i: number): void => {
    const row = sentenceTable.querySelector<HTMLElement>(`tbody tr:nth-child(${i + 1})`);
    if (!row) return;
    row.tabIndex = -1; // focusable from script only; Tab order stays as it was
    row.focus();
    row.scrollIntoView({ block: 'center' });
  };

  const chart = barChart({
    ariaLabel:
      `Bar chart of sentence BLEU and ROUGE-L F1 for each of the ${sentences.length} draft sentences; the table ` +
      `below lists the same numbers.`,
    labels: sentences.map((s) => String(s.index + 1)),
    series: [
      { label: 'sentence BLEU', values: sentences.map((s) => s.bleu) },
      { label: 'ROUGE-L F1 (%)', values: sentences.map((s) => s.rougeL * 100) },
    ],
    xTitle: 'draft sentence',
    yTitle: 'score (0–100)',
    yMax: 100,
    tooltipTitle: (i) => clip(sentences[i]?.text ?? '', 80),
    onPick: focusRow,
  });
  return section('sentences', 'Sentence by sentence', chart, sentenceTable);
}
