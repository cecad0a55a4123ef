/**
 * The folder table's columns, shared by the panel's page, the CSV and JSON exports and the CLI:
 * every metric of a row in one order, sorting, and the two export formats. Free of Node APIs (the
 * panel's page bundles it).
 */
import type { CorpusScores, FolderScores, FolderSort } from '../../protocol';

export interface FolderColumn {
  /** Stable name: CSV header, JSON key, the panel's data-column. */
  key: string;
  label: string;
  value(s: CorpusScores): number | null;
  /** Decimals shown. */
  digits: number;
  /** Lower is better (coherence L): the chart and sorting say so. */
  lowerIsBetter?: boolean;
}

/** Every metric of a row, in the order the table, the CSV and the JSON give them. ROUGE as F1 × 100. */
export function folderColumns(
  withChrf: boolean,
  chrfName = 'chrF',
  extra: { nonwords?: boolean; perplexity?: boolean } = {},
): FolderColumn[] {
  const f1 = (k: keyof CorpusScores['rouge']) => (s: CorpusScores) => s.rouge[k].f1 * 100;
  return [
    { key: 'bleu', label: 'BLEU', value: (s) => s.bleu.score, digits: 2 },
    ...(withChrf
      ? [{ key: 'chrf', label: chrfName, value: (s: CorpusScores) => s.chrf?.score ?? null, digits: 2 }]
      : []),
    { key: 'rouge1', label: 'ROUGE-1 F1', value: f1('rouge1'), digits: 2 },
    { key: 'rouge2', label: 'ROUGE-2 F1', value: f1('rouge2'), digits: 2 },
    { key: 'rougeL', label: 'ROUGE-L F1', value: f1('rougeL'), digits: 2 },
    { key: 'rougeLsum', label: 'ROUGE-Lsum F1', value: f1('rougeLsum'), digits: 2 },
    { key: 'rougeW', label: 'ROUGE-W F1', value: f1('rougeW'), digits: 2 },
    { key: 'diversity', label: 'Diversity', value: (s) => s.diversity.diversity, digits: 3 },
    { key: 'distinct2', label: 'distinct-2', value: (s) => s.diversity.distinct2, digits: 3 },
    { key: 'substantiality', label: 'Substantiality', value: (s) => s.substantiality.perSentence, digits: 2 },
    { key: 'coherenceL', label: 'Coherence L', value: (s) => s.coherenceL, digits: 3, lowerIsBetter: true },
    { key: 'tokens', label: 'tokens', value: (s) => s.diversity.tokens, digits: 0 },
    // Model-based and fluency columns, when the scores carry them.
    ...(extra.nonwords
      ? [
          {
            key: 'nonwords',
            label: 'Non-words',
            value: (s: CorpusScores) => s.nonwords?.rate ?? null,
            digits: 3,
            lowerIsBetter: true,
          },
        ]
      : []),
    ...(extra.perplexity
      ? [
          {
            key: 'perplexity',
            label: 'Perplexity',
            value: (s: CorpusScores) => s.perplexity?.perWord ?? null,
            digits: 1,
            lowerIsBetter: true,
          },
        ]
      : []),
  ];
}

export function columnsOf(result: FolderScores): FolderColumn[] {
  return folderColumns(result.totals.chrf !== undefined, result.totals.chrf?.name, {
    nonwords: result.totals.nonwords !== undefined,
    perplexity: result.totals.perplexity !== undefined,
  });
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

/** JSON: the columns' values per draft (in the order asked) and for the corpus, the signatures, and the unpaired drafts. */
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
