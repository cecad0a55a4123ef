/**
 * The Check Coherence view: coherence L (Li et al. 2015, Eq. 18) of the draft's sentence order
 * against the source's, a chart of which source sentence each draft sentence aligns with, and the
 * alignment as a table (the chart's accessible equivalent).
 */
import type { CoherenceSummary, CoherenceView } from '../extension/panelPage';
import { scatterChart } from './charts';
import { clip, el, fixed3, hint, metric, section, table } from './dom';
import { renderReadNotes } from './readNotesView';

export const L_UNDEFINED = 'not defined: fewer than two output sentences align';

export function coherenceLText(L: number | null): string {
  return L === null ? L_UNDEFINED : fixed3(L);
}

export function renderCoherence(result: CoherenceView): Node[] {
  const c = result.coherence;
  const header = el('header', 'view-header');
  const title = el('h1');
  title.append(
    'Coherence of ',
    el('span', 'name', result.outputName),
    ' against ',
    el('span', 'name', result.sourceName),
  );
  header.append(title, hint(`${Math.round(result.elapsedMs)} ms`));

  const aligned = c.alignment.filter((a) => a.input !== null).length;
  const summary = table({
    caption: 'Coherence',
    className: 'metrics',
    headers: [
      'L (lower is better; 0: the source’s order)',
      'sentence pairs',
      'draft sentences',
      'source sentences',
      'aligned draft sentences',
    ],
    numeric: [0, 1, 2, 3, 4],
    rows: [
      [
        metric('coherence-L', c.L, coherenceLText(c.L)),
        metric('coherence-pairs', c.pairs, String(c.pairs)),
        metric('output-sentences', c.outputSentences.length, String(c.outputSentences.length)),
        metric('input-sentences', c.inputSentences.length, String(c.inputSentences.length)),
        metric('aligned-sentences', aligned, String(aligned)),
      ],
    ],
  });
  const explain = hint(
    'Each draft sentence is aligned with the source sentence whose nouns and verbs it matches best (F1). ' +
      'L grows as the order of the aligned source sentences departs from the draft’s order.',
  );
  return [
    header,
    ...renderReadNotes(result.readNotes, 'How the texts were read'),
    section('coherence', 'Sentence order', summary, explain),
    renderAlignment(c),
  ];
}

/** What the two texts are called: the draft and its source here; Round-Trip's output and input. */
export interface AlignmentNames {
  output: string;
  input: string;
}

/** The alignment chart (output sentence i′ → input sentence i) and its table; Round-Trip shows it too. */
export function renderAlignment(
  c: CoherenceSummary,
  names: AlignmentNames = { output: 'draft', input: 'source' },
): HTMLElement {
  const { output: out, input: src } = names;
  if (c.alignment.length === 0) return section('alignment', 'Alignment', hint(`The ${out} has no sentences.`));
  const sentence = (list: readonly string[], i: number | null): string => (i === null ? '' : (list[i] ?? ''));

  const alignmentTable = table({
    caption: `Each ${out} sentence and the ${src} sentence it aligns with`,
    className: 'alignment-table',
    headers: [`${out} #`, `${out} sentence`, `${src} #`, `${src} sentence`, 'F1'],
    numeric: [2, 4],
    rowHeaders: true,
    rows: c.alignment.map((a) => [
      String(a.output + 1),
      sentence(c.outputSentences, a.output),
      a.input === null ? '—' : String(a.input + 1),
      a.input === null ? `no ${src} sentence shares a noun or verb` : sentence(c.inputSentences, a.input),
      fixed3(a.f1),
    ]),
    rowData: (i) => {
      const a = c.alignment[i];
      return { output: String(a.output), input: a.input === null ? '' : String(a.input) };
    },
  });

  // Positions are shown 1-based, as in the table; unaligned draft sentences have no point.
  const points = c.alignment.filter((a): a is typeof a & { input: number } => a.input !== null);
  const focusRow = (pointIndex: number): void => {
    const output = points[pointIndex]?.output;
    const row =
      output === undefined ? null : alignmentTable.querySelector<HTMLElement>(`tbody tr[data-output="${output}"]`);
    if (!row) return;
    row.tabIndex = -1;
    row.focus();
    row.scrollIntoView({ block: 'center' });
  };
  const parts: Node[] = [];
  if (points.length > 0) {
    parts.push(
      scatterChart({
        ariaLabel:
          `Line chart: for each of the ${c.outputSentences.length} ${out} sentences, the position of the ` +
          `${src} sentence it aligns with ` +
          `(${points.length} aligned); the table below lists the same alignment.`,
        label: `aligned ${src} sentence`,
        points: points.map((a) => ({ x: a.output + 1, y: a.input + 1 })),
        xTitle: `${out} sentence i′`,
        yTitle: `${src} sentence i`,
        xMax: c.outputSentences.length,
        yMax: c.inputSentences.length,
        tooltip: (i) => {
          const a = points[i];
          return a
            ? `${out} ${a.output + 1} → ${src} ${a.input + 1} (F1 ${fixed3(a.f1)}): ` +
                `${clip(sentence(c.outputSentences, a.output), 60)}`
            : '';
        },
        onPick: focusRow,
      }),
    );
  } else {
    parts.push(hint(`No ${out} sentence shares a noun or verb with the ${src}, so there is nothing to plot.`));
  }
  parts.push(alignmentTable);
  return section('alignment', 'Alignment', ...parts);
}
