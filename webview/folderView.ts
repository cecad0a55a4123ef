/**
 * Score Drafts in Folder's view: a sortable table (one row per draft, every metric, the corpus
 * totals in the footer), a chart of the distribution of BLEU and ROUGE-L F1 over the drafts, and
 * Export CSV / Export JSON, which ask the host to write the table in its current order. Column
 * headers are buttons (Tab, Enter or Space sort; again reverses); aria-sort says the order.
 */
import { columnsOf, sortedRows, type FolderSort, type FolderView, type FromPanel } from '../extension/panelPage';
import { barChart } from './charts';
import { el, hint, section } from './dom';

const BINS = 10;

/** The order the user chose, kept for the same result: the host sends the shown message again when
 * the panel gains focus or is shown, and the table must not fall back to file order under the user. */
let remembered: { id: string; sort: FolderSort } | undefined;

export function renderFolder(result: FolderView, send: (m: FromPanel) => void): Node[] {
  const cols = columnsOf(result);
  const id = `${result.source}\u0000${result.referenceSource}\u0000${result.elapsedMs}\u0000${result.rows.length}`;
  let sort: FolderSort | undefined = remembered?.id === id ? remembered.sort : undefined;

  const header = el('header', 'view-header');
  const title = el('h1');
  title.append(
    `Scores of ${result.rows.length} draft${result.rows.length === 1 ? '' : 's'} in `,
    el('span', 'name', result.source),
    ' against ',
    el('span', 'name', result.referenceSource),
  );
  header.append(title, hint(`${Math.round(result.elapsedMs)} ms`));
  if (result.cancelled) header.append(hint(`Cancelled: the ${result.rows.length} drafts scored of ${result.paired}.`));
  if (result.unpaired.length > 0)
    header.append(
      hint(
        `No reference for ${result.unpaired.length}: ` +
          `${result.unpaired.slice(0, 10).join(', ')}${result.unpaired.length > 10 ? ', …' : ''}`,
      ),
    );

  const exportButton = (format: 'csv' | 'json', label: string) => {
    const b = el('button', 'export', label);
    b.type = 'button';
    b.dataset.export = format;
    b.addEventListener('click', () => send({ type: 'export-folder', format, ...(sort ? { sort } : {}) }));
    return b;
  };
  const actions = el('div', 'actions');
  actions.append(exportButton('csv', 'Export CSV'), ' ', exportButton('json', 'Export JSON'));

  // The table: built by hand for its header buttons and footer.
  const t = el('table', 'metrics folder-table');
  t.append(
    el(
      'caption',
      undefined,
      'Each draft against its reference; the last row is the corpus (every draft together). Click a column to sort.',
    ),
  );
  const headRow = el('tr');
  const headers: HTMLTableCellElement[] = [];
  const keys = ['name', ...cols.map((c) => c.key)];
  const labels = ['draft', ...cols.map((c) => c.label + (c.lowerIsBetter ? ' (lower is better)' : ''))];
  keys.forEach((key, i) => {
    const th = el('th', i === 0 ? undefined : 'num');
    th.scope = 'col';
    th.dataset.column = key;
    const b = el('button', 'sort', labels[i]);
    b.type = 'button';
    b.addEventListener('click', () => {
      sort = {
        column: key,
        descending:
          sort?.column === key ? !sort.descending : key !== 'name' && !cols.find((c) => c.key === key)?.lowerIsBetter,
      };
      remembered = { id, sort };
      fillBody();
    });
    th.append(b);
    headers.push(th);
    headRow.append(th);
  });
  const head = el('thead');
  head.append(headRow);
  const body = el('tbody');
  const fmt = (x: number | null, digits: number) => (x === null ? 'n/a' : x.toFixed(digits));
  const rowOf = (name: string, scores: FolderView['totals'], corpus: boolean) => {
    const tr = el('tr');
    tr.dataset.draft = corpus ? '(corpus)' : name;
    const th = el('th', undefined, name);
    th.scope = 'row';
    tr.append(th);
    for (const c of cols) {
      const v = c.value(scores);
      const td = el('td', 'num', fmt(v, c.digits));
      td.dataset.metric = c.key;
      if (v !== null) td.dataset.value = String(v);
      tr.append(td);
    }
    return tr;
  };
  const fillBody = () => {
    body.replaceChildren(...sortedRows(result, sort).map((r) => rowOf(r.name, r.scores, false)));
    headers.forEach((th, i) => {
      if (sort?.column === keys[i]) th.setAttribute('aria-sort', sort.descending ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
    });
  };
  fillBody();
  const foot = el('tfoot');
  foot.append(rowOf('(corpus)', result.totals, true));
  t.append(head, body, foot);
  const wrap = el('div', 'table-scroll');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'Scores of each draft');
  wrap.append(t);

  const parts: Node[] = [header, section('folder-scores', 'Drafts', actions, wrap)];
  if (result.rows.length > 0) parts.push(section('distribution', 'Distribution over the drafts', distribution(result)));
  return parts;
}

/** Histogram: how many drafts score in each tenth of 0–100, for BLEU and ROUGE-L F1. */
function distribution(result: FolderView): HTMLElement {
  const bins = (values: number[]) => {
    const counts = new Array<number>(BINS).fill(0);
    for (const v of values) counts[Math.min(BINS - 1, Math.max(0, Math.floor(v / (100 / BINS))))]++;
    return counts;
  };
  const labels = Array.from({ length: BINS }, (_, i) => `${i * 10}–${i * 10 + 10}`);
  return barChart({
    ariaLabel:
      `Histogram of BLEU and ROUGE-L F1 over the ${result.rows.length} drafts, in tenths of 0–100; the table ` +
      `lists every value.`,
    labels,
    series: [
      { label: 'BLEU', values: bins(result.rows.map((r) => r.scores.bleu.score)) },
      { label: 'ROUGE-L F1 (%)', values: bins(result.rows.map((r) => r.scores.rouge.rougeL.f1 * 100)) },
    ],
    xTitle: 'score',
    yTitle: 'drafts',
  });
}
