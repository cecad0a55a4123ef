/**
 * The Round-Trip Paragraph view (Li, Luong & Jurafsky 2015): the scores of the reconstruction
 * against the paragraph the model read (BLEU, ROUGE-1/2/W, coherence L of Eq. 18), the sentence
 * alignment between input and output (the Check Coherence chart and table), and, for the model with
 * attention, each output sentence's attention over the input sentences (Eqs. 10-15) as a heatmap.
 */
import type { RoundTripView } from '../extension/panelPage';
import { heatmapChart } from './charts';
import { coherenceLText, renderAlignment } from './coherenceView';
import { el, experimentalNote, fixed2, fixed3, hint, metric, section, table } from './dom';
import { renderReadNotes } from './readNotesView';

const MODEL_NAMES: Record<RoundTripView['architecture'], string> = {
  standard: 'standard LSTM autoencoder',
  hier: 'hierarchical LSTM autoencoder',
  'hier-attn': 'hierarchical LSTM autoencoder with attention',
};

export function renderRoundTrip(result: RoundTripView): Node[] {
  const header = el('header', 'view-header');
  header.append(el('h1', undefined, `Round trip through the ${MODEL_NAMES[result.architecture]}`), renderStats(result));
  const parts: Node[] = [
    header,
    ...experimentalNote(result.experimental),
    ...renderReadNotes(result.readNotes, 'How the paragraph was read'),
    renderScores(result),
  ];
  const notes = notesOf(result);
  if (notes.length > 0) parts.push(section('roundtrip-notes', 'Notes', ...notes.map((n) => hint(n))));
  parts.push(renderAlignment(result.scores.coherence, { output: 'output', input: 'input' }));
  if (result.attention) parts.push(renderAttention(result, result.attention));
  return parts;
}

function renderStats(r: RoundTripView): HTMLElement {
  const s = r.stats;
  return el(
    'p',
    'stats',
    [
      `${r.inputSentences} sentence${r.inputSentences === 1 ? '' : 's'} / ${s.usedInputTokens} subwords in`,
      `${r.outputSentences} sentence${r.outputSentences === 1 ? '' : 's'} / ${s.outputTokens} out`,
      `encode ${Math.round(s.encodeMs)} ms`,
      `decode ${Math.round(s.decodeMs)} ms`,
      s.device,
      s.model,
    ].join(' · '),
  );
}

function renderScores(r: RoundTripView): HTMLElement {
  const s = r.scores;
  const scores = table({
    caption: 'The reconstruction scored against the paragraph the model read',
    className: 'metrics',
    headers: ['BLEU', 'ROUGE-1 F1', 'ROUGE-2 F1', 'ROUGE-W F', 'coherence L (lower is better)'],
    numeric: [0, 1, 2, 3, 4],
    rows: [
      [
        metric('bleu', s.bleu.score, fixed2(s.bleu.score)),
        metric('rouge1', s.rouge1.f1, fixed3(s.rouge1.f1)),
        metric('rouge2', s.rouge2.f1, fixed3(s.rouge2.f1)),
        metric('rougeW', s.rougeW.f1, fixed3(s.rougeW.f1)),
        metric('coherence-L', s.coherence.L, coherenceLText(s.coherence.L)),
      ],
    ],
  });
  return section(
    'roundtrip-scores',
    'Scores',
    scores,
    hint(
      'BLEU: sacreBLEU sentence BLEU (0–100). ROUGE-1/2: unigram and bigram overlap; ROUGE-W: weighted longest ' +
        'common subsequence. ' +
        ('Coherence L (Eq. 18): how far the order of the input sentences that the output sentences align with ' +
          'departs from the input’s own order.'),
    ),
  );
}

function notesOf(r: RoundTripView): string[] {
  const notes: string[] = [];
  if (r.truncatedBy)
    notes.push(
      `The model read the first ${r.inputSentences} of ${r.totalSentences} sentences; the scores cover those.`,
    );
  if (r.stopped === 'max-sentences')
    notes.push(
      `Decoding stopped at ${r.limits.maxSentences} sentences (1.5× the input) before the model ended the paragraph.`,
    );
  if (r.stopped === 'max-tokens')
    notes.push(
      `Decoding stopped at ${r.limits.maxTokens} subwords (1.5× the input) before the model ended the paragraph.`,
    );
  if (r.unknownTokens > 0)
    notes.push(
      `${r.unknownTokens} input subword${r.unknownTokens === 1 ? ' is' : 's are'} unknown to the model ` +
        `(another script or a rare symbol).`,
    );
  if (r.outputSentences === 0) notes.push('The model wrote nothing back.');
  return notes;
}

/** Rows: output sentences; columns: input sentences, in the input's order. */
function renderAttention(r: RoundTripView, rows: number[][]): HTMLElement {
  const columnLabels = Array.from({ length: r.inputSentences }, (_, i) => `${i + 1}`);
  const rowLabels = rows.map((_, j) => `${j + 1}`);
  const numbers = table({
    caption: 'Attention of each output sentence over the input sentences (each row sums to 1)',
    className: 'attention-table',
    headers: ['output #', ...columnLabels.map((c) => `input ${c}`)],
    numeric: columnLabels.map((_, i) => i + 1),
    rowHeaders: true,
    rows: rows.map((row, j) => [rowLabels[j], ...row.map((a) => fixed3(a))]),
  });
  const chart = heatmapChart({
    ariaLabel:
      `Heatmap: for each of the ${rows.length} output sentences, its attention over the ${columnLabels.length} ` +
      `input sentences; the table below has the same numbers.`,
    rowLabels,
    columnLabels,
    values: rows,
    max: 1,
    xTitle: 'input sentence',
    yTitle: 'output sentence',
    format: (v) => v.toFixed(2),
  });
  return section(
    'roundtrip-attention',
    'Attention over the input sentences',
    hint(
      'At each sentence step the decoder attends over the encoder’s sentence vectors (Eqs. 10–15); a ' +
        'well-trained model looks at the sentence it is rewriting.',
    ),
    chart,
    numbers,
  );
}
