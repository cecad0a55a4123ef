/**
 * DOM helpers for the insights views. Text goes in through textContent only, so document text is
 * never parsed as HTML; tables get captions and scoped header cells for screen readers.
 */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A number shown in the panel, with the raw value alongside for tests and tooltips. */
export interface Metric {
  /** data-metric: a stable name a test can select on. */
  name: string;
  value: number | null;
  text: string;
}

export function metric(name: string, value: number | null, text: string): Metric {
  return { name, value, text };
}

/** One table cell's content: plain text, a metric (tagged with data-metric), or a built node. */
export type Cell = string | number | Metric | Node;

export interface TableSpec {
  caption: string;
  className?: string;
  headers: readonly string[];
  /** Columns whose cells are numbers (right-aligned, tabular figures). */
  numeric?: readonly number[];
  /** The first cell of each row is that row's header. */
  rowHeaders?: boolean;
  rows: readonly (readonly Cell[])[];
  /** Per-row attributes (data-*), e.g. for a chart to find its row. */
  rowData?: (index: number) => Record<string, string>;
  /** Per-cell attributes (data-*), e.g. for a chart to find its cell. */
  cellData?: (row: number, column: number) => Record<string, string>;
}

/**
 * A table inside a scroll container; the container is focusable (a named region) so a keyboard
 * user can scroll a wide table, and it is the accessible equivalent of the chart beside it.
 */
export function table(spec: TableSpec): HTMLElement {
  const t = el('table', spec.className);
  const caption = el('caption', undefined, spec.caption);
  t.append(caption);
  const numeric = new Set(spec.numeric ?? []);
  const head = el('thead');
  const headRow = el('tr');
  spec.headers.forEach((h, i) => {
    const th = el('th', numeric.has(i) ? 'num' : undefined, h);
    th.scope = 'col';
    headRow.append(th);
  });
  head.append(headRow);
  const body = el('tbody');
  spec.rows.forEach((row, r) => {
    const tr = el('tr');
    for (const [key, value] of Object.entries(spec.rowData?.(r) ?? {})) tr.dataset[key] = value;
    row.forEach((cell, i) => {
      const isHeader = spec.rowHeaders === true && i === 0;
      const td = isHeader ? el('th') : el('td');
      if (isHeader) (td as HTMLTableCellElement).scope = 'row';
      if (numeric.has(i)) td.classList.add('num');
      for (const [key, value] of Object.entries(spec.cellData?.(r, i) ?? {})) td.dataset[key] = value;
      fill(td, cell);
      tr.append(td);
    });
    body.append(tr);
  });
  t.append(head, body);
  const wrap = el('div', 'table-scroll');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', spec.caption);
  wrap.append(t);
  return wrap;
}

function fill(cell: HTMLElement, content: Cell): void {
  if (content instanceof Node) {
    cell.append(content);
  } else if (typeof content === 'object') {
    cell.textContent = content.text;
    cell.dataset.metric = content.name;
    if (content.value !== null) {
      cell.dataset.value = String(content.value);
      cell.title = String(content.value);
    }
  } else {
    cell.textContent = String(content);
  }
}

/** A section with a heading; `level` 2 for the view's parts. */
export function section(className: string, heading: string, ...children: Node[]): HTMLElement {
  const s = el('section', className);
  s.append(el('h2', undefined, heading), ...children);
  return s;
}

export function hint(text: string): HTMLElement {
  return el('p', 'hint', text);
}

/** A result to read with care (an experimental mode): shown above it, in the theme's warning colours. */
export function experimentalNote(text: string | undefined): Node[] {
  if (!text) return [];
  const note = el('p', 'experimental', text);
  note.setAttribute('role', 'note');
  return [note];
}

// ---- number formats shared by the views -------------------------------------------------------

/** BLEU and its precisions are on sacreBLEU's 0–100 scale already. */
export const fixed2 = (x: number): string => x.toFixed(2);
export const fixed3 = (x: number): string => x.toFixed(3);
/**
 * A factor that can be tiny (a brevity penalty of e^-9): three decimals, or three digits when that would show 0.000.
 */
export const factor = (x: number): string => (x === 0 || Math.abs(x) >= 0.001 ? x.toFixed(3) : x.toExponential(2));
/** ROUGE and other 0–1 scores as percentages. */
export const percent = (x: number): string => (x * 100).toFixed(2);

/** Text cut to `max` characters for a tooltip or a chart label. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
