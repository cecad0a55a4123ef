/**
 * A one-file report of several drafts against a baseline, to share or paste into a paper: the
 * table (sacreBLEU's: score, μ ± 95 % interval, p-value), a chart per metric (inline SVG, no
 * script, no external file), the drill-down's worst segments, the signatures, the command line and
 * the versions. Markdown or HTML.
 *
 * Deterministic: the same input gives the same bytes, apart from the date line (`date`); the
 * elapsed time is left out for that reason. Pure: no Node API (the host and the CLI both write it).
 */
import type { SystemsResult } from '../../protocol';
import { cellLines, metricHeader } from './systemsTable';

export interface ReportContext {
  /** What produced it: the command line, or the editor command with its inputs. */
  command: string;
  /** Name → version (Draftsmith, the reference tools the numbers match). */
  versions: Readonly<Record<string, string>>;
  /** The one line that differs between two runs on the same input. */
  date: string;
  /** Worst segments listed per system and metric (default 5). */
  worst?: number;
  /**
   * Markdown: the charts are SVG files beside the report, named by markdownCharts from this stem
   * (GitHub shows no data: images); without it the report has no charts, the table their numbers.
   */
  chartStem?: string;
}

/** The Markdown report's charts, one SVG file per metric, named from `stem`, to write beside it. */
export function markdownCharts(r: Result, stem: string): { name: string; svg: string }[] {
  return r.table.metrics.map((_, k) => ({ name: `${stem}.chart-${k + 1}.svg`, svg: metricSvg(r, k) }));
}

type Result = Omit<SystemsResult, 'op' | 'elapsedMs'> & { elapsedMs?: number };

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
/** A Markdown table cell: no pipe or line break may end it early. */
const mdCell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const round = (x: number) => Number(x.toFixed(3)).toString();

/** One metric's bars with their 95 % intervals, as an SVG string (the caller escapes nothing: all
 * text in it is escaped here). */
export function metricSvg(r: Result, k: number): string {
  const t = r.table;
  const m = t.metrics[k];
  const cells = t.systems.map((s) => s.cells[k]);
  const hi = Math.max(1, ...cells.map((c) => c.score + (c.ci ?? 0)));
  const barH = 18;
  const gap = 8;
  const labelW = 180;
  const plotW = 360;
  const height = t.systems.length * (barH + gap) + 30;
  const x = (v: number) => labelW + (Math.max(0, v) / hi) * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + plotW + 80}" height="${height}" role="img" ` +
      `aria-label="${escapeHtml(`${m.name} of each draft with its 95 % interval`)}">`,
    `<title>${escapeHtml(`${m.name}${m.better === 'lower' ? ' (lower is better)' : ''}`)}</title>`,
  ];
  t.systems.forEach((s, i) => {
    const c = cells[i];
    const y = 10 + i * (barH + gap);
    const label = s.name.length > 28 ? `${s.name.slice(0, 27)}…` : s.name;
    parts.push(
      `<text x="${labelW - 6}" y="${y + barH - 5}" text-anchor="end" font-size="12">${escapeHtml(label)}</text>`,
      `<rect x="${labelW}" y="${y}" width="${round(x(c.score) - labelW)}" height="${barH}" ` +
        `fill="${s.baseline ? '#888888' : '#3b7dd8'}"/>`,
    );
    if (c.mean !== undefined && c.ci !== undefined)
      parts.push(
        `<line x1="${round(x(c.mean - c.ci))}" x2="${round(x(c.mean + c.ci))}" y1="${y + barH / 2}" ` +
          `y2="${y + barH / 2}" stroke="#000000" stroke-width="2"/>`,
      );
    parts.push(
      `<text ` +
        `x="${round(x(Math.max(c.score, c.mean !== undefined && c.ci !== undefined ? c.mean + c.ci : 0)) + 6)}" ` +
        `y="${y + barH - 5}" ` +
        `font-size="12">${escapeHtml(c.score.toFixed(2))}` +
        `${c.pValue !== undefined && c.pValue < 0.05 ? '*' : ''}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

function testLine(r: Result): string {
  const t = r.table;
  const what =
    t.test === 'paired-bs'
      ? `Paired bootstrap resampling (Koehn 2004), ${t.samples} resamples`
      : `Paired approximate randomization, ${t.samples} trials`;
  const lower = t.metrics.filter((m) => m.better === 'lower').map((m) => m.name);
  return (
    `${what}, seed ${t.seed}, ${t.segments} segments, ${t.nrefs} reference${t.nrefs === 1 ? '' : 's'} ` +
    `(${r.referenceName}); ` +
    `each draft against ${t.systems[0]?.name ?? 'the baseline'}. Score (bootstrap mean ± half the 95 % interval); ` +
    `p: the chance of an absolute difference at least this large under the null hypothesis (* p < 0.05).` +
    (lower.length > 0 ? ` Lower is better for ${lower.join(', ')}.` : '')
  );
}

/** The report as Markdown: headings, tables, and the charts as SVG files beside it (chartStem). */
export function markdownReport(r: Result, c: ReportContext): string {
  const t = r.table;
  const out: string[] = [];
  out.push(`# Drafts compared against a baseline`, '', `Generated ${c.date}.`, '');
  out.push(testLine(r), '');
  out.push(`| Draft | ${t.metrics.map((_, k) => mdCell(metricHeader(t, k))).join(' | ')} |`);
  out.push(`|---|${t.metrics.map(() => '---:').join('|')}|`);
  for (const s of t.systems)
    out.push(
      `| ${mdCell(s.name)} | ${s.cells
        .map((cell) => {
          const [score, p] = cellLines(cell, 2);
          return mdCell(p ? `${score} ${p}` : score);
        })
        .join(' | ')} |`,
    );
  if (c.chartStem !== undefined) {
    out.push('', '## Charts', '');
    for (const [k, chart] of markdownCharts(r, c.chartStem).entries())
      out.push(`![${mdCell(t.metrics[k].name)}](${encodeURI(chart.name)})`, '');
  } else out.push('');
  out.push('## Where each draft loses most', '');
  const n = c.worst ?? 5;
  for (const w of r.worst) {
    out.push(`### ${mdCell(w.system)}, ${mdCell(w.metric)}`, '');
    out.push('| segment | baseline | draft | drop | draft text | baseline text |', '|---:|---:|---:|---:|---|---|');
    for (const d of w.segments.slice(0, n))
      out.push(
        `| ${d.index + 1} | ${d.baseline.toFixed(2)} | ${d.system.toFixed(2)} | ${d.drop.toFixed(2)} | ` +
          `${mdCell(d.hypothesis)} | ${mdCell(d.baselineHypothesis)} |`,
      );
    out.push('');
  }
  out.push('## Signatures', '');
  for (const m of t.metrics) out.push(`- ${mdCell(m.name)}: \`${m.signature}\``);
  out.push('', '## How it was made', '', '```', c.command, '```', '');
  for (const [name, version] of Object.entries(c.versions)) out.push(`- ${mdCell(name)} ${mdCell(version)}`);
  out.push('');
  return out.join('\n');
}

/** The report as one HTML file: no script, no external resource, the charts inline. */
export function htmlReport(r: Result, c: ReportContext): string {
  const t = r.table;
  const e = escapeHtml;
  const out: string[] = [];
  out.push(
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<title>Drafts compared against a baseline</title>',
    '<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 ' +
      '1rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem ' +
      '.6rem}td.num{text-align:right;font-variant-numeric:tabular-nums}code,pre{background:#f4f4f4}</style>',
    '</head><body>',
    '<h1>Drafts compared against a baseline</h1>',
    `<p>Generated ${e(c.date)}.</p>`,
    `<p>${e(testLine(r))}</p>`,
    '<table><thead><tr><th scope="col">Draft</th>',
    ...t.metrics.map((_, k) => `<th scope="col">${e(metricHeader(t, k))}</th>`),
    '</tr></thead><tbody>',
  );
  for (const s of t.systems) {
    out.push(`<tr><th scope="row">${e(s.name)}</th>`);
    for (const cell of s.cells) {
      const [score, p] = cellLines(cell, 2);
      out.push(`<td class="num">${e(score)}${p ? `<br>${e(p)}` : ''}</td>`);
    }
    out.push('</tr>');
  }
  out.push('</tbody></table>', '<h2>Charts</h2>');
  t.metrics.forEach((_, k) => out.push(`<figure>${metricSvg(r, k)}</figure>`));
  out.push('<h2>Where each draft loses most</h2>');
  const n = c.worst ?? 5;
  for (const w of r.worst) {
    out.push(
      `<h3>${e(w.system)}, ${e(w.metric)}</h3>`,
      '<table><thead><tr><th scope="col">segment</th><th scope="col">baseline</th><th ' +
        'scope="col">draft</th><th scope="col">drop</th><th scope="col">draft text</th><th scope="col">baseline ' +
        'text</th></tr></thead><tbody>',
    );
    for (const d of w.segments.slice(0, n))
      out.push(
        `<tr><td class="num">${d.index + 1}</td><td class="num">${d.baseline.toFixed(2)}</td><td ` +
          `class="num">${d.system.toFixed(2)}</td><td ` +
          `class="num">${d.drop.toFixed(2)}</td><td>${e(d.hypothesis)}</td><td>${e(d.baselineHypothesis)}</td></tr>`,
      );
    out.push('</tbody></table>');
  }
  out.push('<h2>Signatures</h2><ul>');
  for (const m of t.metrics) out.push(`<li>${e(m.name)}: <code>${e(m.signature)}</code></li>`);
  out.push('</ul>', '<h2>How it was made</h2>', `<pre>${e(c.command)}</pre>`, '<ul>');
  for (const [name, version] of Object.entries(c.versions)) out.push(`<li>${e(name)} ${e(version)}</li>`);
  out.push('</ul>', '</body></html>', '');
  return out.join('\n');
}

/** The report in the format its file name asks for: .html / .htm, else Markdown. */
export function report(r: Result, c: ReportContext, format: 'md' | 'html'): string {
  return format === 'html' ? htmlReport(r, c) : markdownReport(r, c);
}
