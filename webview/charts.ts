/**
 * Chart.js for the insights views: only the pieces registered here are bundled. Every colour is read
 * from the VS Code theme's CSS variables, and re-read when the theme changes (VS Code switches the
 * body's vscode-light / vscode-dark / vscode-high-contrast(-light) class and the variables together),
 * so the charts follow light, dark and high-contrast themes like the rest of the panel.
 *
 * A chart is a picture for sighted users: its canvas has role="img" and an aria-label, and the view
 * puts a table with the same numbers next to it.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartOptions,
  type Plugin,
  type ScriptableContext,
} from 'chart.js';
import { color } from 'chart.js/helpers';
import { el } from './dom';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  ScatterController,
  PointElement,
  LineElement,
  Tooltip,
  Legend,
);

interface Theme {
  foreground: string;
  background: string;
  muted: string;
  grid: string;
  /** Series colours, in order. */
  series: string[];
  tooltipBackground: string;
  tooltipForeground: string;
  tooltipBorder: string;
  /** High-contrast themes outline marks in this colour; undefined elsewhere. */
  contrastBorder: string | undefined;
  fontFamily: string;
}

function readTheme(): Theme {
  const style = getComputedStyle(document.body);
  const v = (name: string, fallback = ''): string => style.getPropertyValue(name).trim() || fallback;
  const foreground = v('--vscode-foreground', '#888888');
  const highContrast =
    document.body.classList.contains('vscode-high-contrast') ||
    document.body.classList.contains('vscode-high-contrast-light');
  return {
    foreground,
    background: v('--vscode-editor-background', '#ffffff'),
    muted: v('--vscode-descriptionForeground', foreground),
    grid: v('--vscode-editorWidget-border', v('--vscode-charts-lines', foreground)),
    series: [
      v('--vscode-charts-blue', foreground),
      v('--vscode-charts-orange', foreground),
      v('--vscode-charts-green', foreground),
    ],
    tooltipBackground: v('--vscode-editorHoverWidget-background', v('--vscode-editor-background', '#000000')),
    tooltipForeground: v('--vscode-editorHoverWidget-foreground', foreground),
    tooltipBorder: v('--vscode-editorHoverWidget-border', v('--vscode-editorWidget-border', foreground)),
    contrastBorder: highContrast ? v('--vscode-contrastBorder', foreground) : undefined,
    fontFamily: v('--vscode-font-family', 'sans-serif'),
  };
}

/** A live chart: recoloured on every theme change, destroyed when its view goes. */
interface Live {
  restyle(theme: Theme): void;
  destroy(): void;
}

const live: Live[] = [];

/** Destroys every chart (before a view is replaced), releasing their canvases and resize observers. */
export function destroyCharts(): void {
  for (const chart of live.splice(0)) chart.destroy();
}

function restyleAll(): void {
  const theme = readTheme();
  for (const chart of live) chart.restyle(theme);
}

/** Colours a new chart and keeps it for restyling. */
function track<C extends { update(mode: 'none'): void; destroy(): void }>(
  chart: C,
  paint: (chart: C, theme: Theme) => void,
): void {
  paint(chart, readTheme());
  chart.update('none');
  live.push({
    restyle: (theme) => {
      paint(chart, theme);
      chart.update('none');
    },
    destroy: () => chart.destroy(),
  });
}

new MutationObserver(restyleAll).observe(document.body, { attributes: true, attributeFilter: ['class'] });

/** The canvas inside a sized box (Chart.js sizes itself to its parent); `label` describes it to screen readers. */
function canvasBox(label: string): { box: HTMLElement; canvas: HTMLCanvasElement } {
  const box = el('div', 'chart-box');
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  // Fallback content, read when the canvas is not rendered.
  canvas.textContent = label;
  box.append(canvas);
  return { box, canvas };
}

/** A scale's options with the theme's colours; `extra` holds its range and tick settings. */
function axis(
  title: string,
  theme: Theme,
  extra: { ticks?: object; [key: string]: unknown } = {},
): Record<string, unknown> {
  return {
    ...extra,
    title: { display: true, text: title, color: theme.muted, font: { family: theme.fontFamily } },
    ticks: { ...extra.ticks, color: theme.foreground, font: { family: theme.fontFamily } },
    grid: { color: theme.grid },
    border: { color: theme.grid },
  };
}

function commonOptions(theme: Theme): ChartOptions {
  return {
    responsive: true,
    maintainAspectRatio: false,
    layout: { padding: 6 },
    // No animation: the numbers should simply be there (and prefers-reduced-motion is respected).
    animation: false,
    color: theme.foreground,
    font: { family: theme.fontFamily },
    plugins: {
      legend: { labels: { color: theme.foreground, font: { family: theme.fontFamily } } },
      tooltip: {
        backgroundColor: theme.tooltipBackground,
        titleColor: theme.tooltipForeground,
        bodyColor: theme.tooltipForeground,
        borderColor: theme.tooltipBorder,
        borderWidth: 1,
      },
    },
  };
}

export interface BarSeries {
  label: string;
  values: number[];
}

/**
 * Grouped bars, one group per label. `onPick(index)` runs when a bar is clicked (the view moves
 * focus to the matching table row).
 */
export function barChart(options: {
  ariaLabel: string;
  labels: string[];
  series: BarSeries[];
  yTitle: string;
  xTitle: string;
  yMax?: number;
  tooltipTitle?: (index: number) => string;
  onPick?: (index: number) => void;
}): HTMLElement {
  const { box, canvas } = canvasBox(options.ariaLabel);
  const paint = (chart: Chart<'bar', number[]>, theme: Theme): void => {
    chart.data.datasets.forEach((d, i) => {
      const colour = theme.series[i % theme.series.length];
      d.backgroundColor = colour;
      d.borderColor = theme.contrastBorder ?? colour;
      d.borderWidth = theme.contrastBorder ? 1 : 0;
    });
    chart.options = barOptions(theme);
  };
  const barOptions = (theme: Theme): ChartOptions<'bar'> => {
    const base = commonOptions(theme) as ChartOptions<'bar'>;
    return {
      ...base,
      scales: {
        x: axis(options.xTitle, theme),
        y: axis(options.yTitle, theme, {
          beginAtZero: true,
          ...(options.yMax !== undefined ? { max: options.yMax } : {}),
        }),
      },
      plugins: {
        ...base.plugins,
        tooltip: {
          ...base.plugins?.tooltip,
          callbacks: options.tooltipTitle
            ? { title: (items) => (items[0] ? options.tooltipTitle!(items[0].dataIndex) : '') }
            : {},
        },
      },
      onClick: (_event, elements) => {
        const first = elements[0];
        if (first && options.onPick) options.onPick(first.index);
      },
    };
  };
  const chart = new Chart<'bar', number[]>(canvas, {
    type: 'bar',
    data: { labels: options.labels, datasets: options.series.map((s) => ({ label: s.label, data: s.values })) },
    options: barOptions(readTheme()),
  });
  track(chart, paint);
  return box;
}

export interface Point {
  x: number;
  y: number;
}

/** Points joined in order (a line through a scatter), with integer ticks on both axes. */
export function scatterChart(options: {
  ariaLabel: string;
  label: string;
  points: Point[];
  xTitle: string;
  yTitle: string;
  xMax: number;
  yMax: number;
  tooltip?: (index: number) => string;
  onPick?: (index: number) => void;
}): HTMLElement {
  const { box, canvas } = canvasBox(options.ariaLabel);
  const integerAxis = (title: string, max: number, theme: Theme): Record<string, unknown> =>
    axis(title, theme, { type: 'linear', min: 1, max: Math.max(2, max), ticks: { stepSize: 1, precision: 0 } });
  const scatterOptions = (theme: Theme): ChartOptions<'scatter'> => {
    const base = commonOptions(theme) as ChartOptions<'scatter'>;
    return {
      ...base,
      scales: {
        x: integerAxis(options.xTitle, options.xMax, theme),
        y: integerAxis(options.yTitle, options.yMax, theme),
      },
      plugins: {
        ...base.plugins,
        tooltip: {
          ...base.plugins?.tooltip,
          callbacks: options.tooltip ? { label: (item) => options.tooltip!(item.dataIndex) } : {},
        },
      },
      onClick: (_event, elements) => {
        const first = elements[0];
        if (first && options.onPick) options.onPick(first.index);
      },
    };
  };
  const paint = (chart: Chart<'scatter', Point[]>, theme: Theme): void => {
    const d = chart.data.datasets[0];
    const colour = theme.series[0];
    d.borderColor = colour;
    d.backgroundColor = colour;
    d.pointBorderColor = theme.contrastBorder ?? colour;
    d.pointBorderWidth = theme.contrastBorder ? 2 : 1;
    chart.options = scatterOptions(theme);
  };
  const chart = new Chart<'scatter', Point[]>(canvas, {
    type: 'scatter',
    // clip: false keeps the points on the axes' ends whole.
    data: {
      datasets: [
        {
          label: options.label,
          data: options.points,
          showLine: true,
          pointRadius: 4,
          pointHoverRadius: 6,
          borderWidth: 2,
          clip: false,
        },
      ],
    },
    options: scatterOptions(readTheme()),
  });
  track(chart, paint);
  return box;
}

/** `base` (a theme colour) at opacity `alpha`; the colour itself when it cannot be parsed. */
function withAlpha(base: string, alpha: number): string {
  const c = color(base);
  return c.valid ? c.alpha(alpha).rgbString() : base;
}

/**
 * A heatmap: a matrix of values, one row per `rowLabels`, one column per `columnLabels`, each cell
 * a rectangle shaded by its value (from 0 to `max`, by default the largest) with the value written
 * in it. Drawn as horizontal floating bars, one dataset per column, each bar spanning its column
 * [c, c + 1] and all sharing one slot per row (grouped: false), so the cells tile the chart exactly.
 * `onPick(row, column)` runs when a cell is clicked.
 */
export function heatmapChart(options: {
  ariaLabel: string;
  rowLabels: string[];
  columnLabels: string[];
  /** [row][column]. */
  values: number[][];
  /** The value shaded darkest. */
  max?: number;
  xTitle: string;
  yTitle: string;
  format: (value: number) => string;
  onPick?: (row: number, column: number) => void;
}): HTMLElement {
  const { rowLabels, columnLabels, values, format } = options;
  const { box, canvas } = canvasBox(options.ariaLabel);
  box.classList.add('heatmap');
  // Chart.js fills its box: give each row about the same height, whatever the number of layers.
  box.style.height = `${5 + 2.75 * rowLabels.length}rem`;
  const value = (row: number, column: number): number => values[row]?.[column] ?? 0;
  const top = options.max ?? Math.max(0, ...values.flat());
  const share = (row: number, column: number): number =>
    top > 0 ? Math.min(1, Math.max(0, value(row, column)) / top) : 0;
  let theme = readTheme();

  // The numbers in the cells, in the foreground colour, or the background's on a dark cell.
  const cellLabels: Plugin<'bar'> = {
    id: 'draftsmithCellLabels',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      ctx.save();
      ctx.font = `12px ${theme.fontFamily}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach((_, column) => {
        chart.getDatasetMeta(column).data.forEach((bar, row) => {
          const { x, y } = (bar as BarElement).getCenterPoint();
          if (x === null || y === null) return;
          ctx.fillStyle = share(row, column) > 0.6 ? theme.background : theme.foreground;
          ctx.fillText(format(value(row, column)), x, y);
        });
      });
      ctx.restore();
    },
  };

  const heatmapOptions = (t: Theme): ChartOptions<'bar'> => {
    const base = commonOptions(t) as ChartOptions<'bar'>;
    return {
      ...base,
      indexAxis: 'y',
      scales: {
        x: {
          ...axis(options.xTitle, t, {
            type: 'linear',
            min: 0,
            max: columnLabels.length,
            // One tick in the middle of each column, named after it.
            afterBuildTicks: (scale: { ticks: { value: number }[] }) => {
              scale.ticks = columnLabels.map((_, c) => ({ value: c + 0.5 }));
            },
            ticks: { callback: (v: number | string) => columnLabels[Math.floor(Number(v))] ?? '' },
          }),
          grid: { display: false },
        },
        y: { ...axis(options.yTitle, t), grid: { display: false } },
      },
      plugins: {
        ...base.plugins,
        legend: { display: false },
        tooltip: {
          ...base.plugins?.tooltip,
          callbacks: {
            title: (items) => (items[0] ? `${options.yTitle} ${rowLabels[items[0].dataIndex] ?? ''}` : ''),
            label: (item) =>
              `${columnLabels[item.datasetIndex] ?? ''}: ${format(value(item.dataIndex, item.datasetIndex))}`,
          },
        },
      },
      onClick: (_event, elements) => {
        const first = elements[0];
        if (first && options.onPick) options.onPick(first.index, first.datasetIndex);
      },
    };
  };
  const paint = (chart: Chart<'bar', [number, number][]>, t: Theme): void => {
    theme = t;
    chart.data.datasets.forEach((d, column) => {
      d.backgroundColor = (ctx: ScriptableContext<'bar'>) =>
        withAlpha(t.series[0], 0.06 + 0.94 * share(ctx.dataIndex, column));
      // Cells are separated by the page's background, or outlined in a high-contrast theme.
      d.borderColor = t.contrastBorder ?? t.background;
      d.borderWidth = 1;
    });
    chart.options = heatmapOptions(t);
  };
  const chart = new Chart<'bar', [number, number][]>(canvas, {
    type: 'bar',
    data: {
      labels: rowLabels,
      datasets: columnLabels.map((label, c) => ({
        label,
        data: rowLabels.map((): [number, number] => [c, c + 1]),
        grouped: false,
        barPercentage: 1,
        categoryPercentage: 1,
      })),
    },
    options: heatmapOptions(theme),
    plugins: [cellLabels],
  });
  track(chart, paint);
  return box;
}
