/**
 * The folder table's columns, shared by the panel's page, the CSV and JSON exports and the CLI:
 * the metric list's column values (eval/metricList.ts) in its order, sorting, and the two export
 * formats. Free of Node APIs (the panel's page bundles it).
 */
import type { CorpusScores, FolderScores, FolderSort } from '../../protocol';
import { shownMetrics, shownNumber } from './metricList';

export interface FolderColumn {
  /** Stable name: CSV header, JSON key, the panel's data-column. */
  key: string;
  label: string;
  /** The number shown and exported (ROUGE's F1 × 100). */
  value(s: CorpusScores): number | null;
  /** Decimals shown. */
  digits: number;
  /** Lower is better (coherence L): the chart and sorting say so. */
  lowerIsBetter?: boolean;
}

/** A row's value of the column `key` (null: the row lacks it). */
function valueOf(s: CorpusScores, key: string): number | null {
  for (const m of shownMetrics(s)) {
    const v = m.values.find((x) => x.key === key);
    if (v !== undefined) return shownNumber(v);
  }
  return null;
}

/** The columns of a result: every column value of the metrics its totals carry. */
export function columnsOf(result: FolderScores): FolderColumn[] {
  return shownMetrics(result.totals).flatMap((m) =>
    m.values
      .filter((v) => v.column)
      .map((v) => ({
        key: v.key,
        label: v.label,
        value: (s: CorpusScores) => valueOf(s, v.key),
        digits: v.digits,
        ...(v.better === 'lower' ? { lowerIsBetter: true } : {}),
      })),
  );
}

/** Rows in the order asked: by a column (a missing value last, whatever the direction), or by name; ties by name. */
export function sortedRows(result: FolderScores, sort?: FolderSort): FolderScores['rows'] {
  const rows = [...result.rows];
  if (sort === undefined) return rows;
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'en', { numeric: true });
  if (sort.column === 'name') return rows.sort((a, b) => (sort.descending ? -1 : 1) * byName(a, b));
  const col = columnsOf(result).find((c) => c.key === sort.column);
  if (col === undefined) return rows;
  return rows.sort((a, b) => {
    const x = col.value(a.scores);
    const y = col.value(b.scores);
    if (x === null || y === null) return x === y ? byName(a, b) : x === null ? 1 : -1;
    return x === y ? byName(a, b) : sort.descending ? y - x : x - y;
  });
}

const csvCell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const num = (x: number | null) => (x === null ? '' : String(x));

/** CSV: a header, one line per draft in the order asked, then the totals (draft "(corpus)"). Full precision. */
export function folderCsv(result: FolderScores, sort?: FolderSort): string {
  const cols = columnsOf(result);
  const lines = [['draft', ...cols.map((c) => c.key)].join(',')];
  for (const r of sortedRows(result, sort))
    lines.push([csvCell(r.name), ...cols.map((c) => num(c.value(r.scores)))].join(','));
  lines.push(['(corpus)', ...cols.map((c) => num(c.value(result.totals)))].join(','));
  return lines.join('\n') + '\n';
}

/**
 * JSON: the columns' values per draft (in the order asked) and for the corpus, the signatures, and the unpaired drafts.
 */
export function folderJson(result: FolderScores, sort?: FolderSort): string {
  const cols = columnsOf(result);
  const values = (s: CorpusScores) => Object.fromEntries(cols.map((c) => [c.key, c.value(s)]));
  return (
    JSON.stringify(
      {
        source: result.source,
        referenceSource: result.referenceSource,
        drafts: sortedRows(result, sort).map((r) => ({ draft: r.name, ...values(r.scores) })),
        corpus: values(result.totals),
        signatures: result.signatures,
        unpaired: result.unpaired,
        cancelled: result.cancelled,
      },
      null,
      2,
    ) + '\n'
  );
}
