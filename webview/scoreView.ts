/**
 * The Score Draft view: the draft's corpus scores against its reference (BLEU, ROUGE, diversity,
 * substantiality, coherence), then sentence by sentence, with a bar chart of the per-sentence
 * scores. Every main number is a cell with data-metric (a stable name) and data-value (the raw number).
 */
import type { ScoreResult } from '../extension/protocol';
import { barChart } from './charts';
import { clip, el, factor, fixed2, fixed3, hint, metric, percent, section, table } from './dom';
import { coherenceLText } from './coherenceView';

const ROUGE_ROWS = [
  ['rouge1', 'ROUGE-1'],
  ['rouge2', 'ROUGE-2'],
  ['rougeL', 'ROUGE-L'],
  ['rougeLsum', 'ROUGE-Lsum'],
  ['rougeW', 'ROUGE-W'],
] as const;

export function renderScore(result: ScoreResult): Node[] {
  const s = result.scores;

  const header = el('header', 'view-header');
  const title = el('h1');
  title.append('Score of ', el('span', 'name', result.hypothesisName), ' against ', el('span', 'name', result.referenceName));
  header.append(title, hint(`${result.sentences.length} draft sentences · ${Math.round(result.elapsedMs)} ms`));

  const bleu = table({
    caption: 'BLEU (sacreBLEU, 0–100)',
    className: 'metrics',
    headers: ['BLEU', 'p1', 'p2', 'p3', 'p4', 'BP', 'ratio', 'draft length', 'reference length'],
    numeric: [0, 1, 2, 3, 4, 5, 6, 7, 8],
    rows: [[
      metric('bleu', s.bleu.score, fixed2(s.bleu.score)),
      ...[0, 1, 2, 3].map((n) => {
        const p = s.bleu.precisions[n];
        return p === undefined ? '—' : metric(`bleu-p${n + 1}`, p, fixed2(p));
      }),
      metric('bleu-bp', s.bleu.brevityPenalty, factor(s.bleu.brevityPenalty)),
      metric('bleu-ratio', s.bleu.ratio, fixed3(s.bleu.ratio)),
      metric('bleu-hyp-length', s.bleu.hypLength, String(s.bleu.hypLength)),
      metric('bleu-ref-length', s.bleu.refLength, String(s.bleu.refLength)),
    ]],
  });

  const rouge = table({
    caption: 'ROUGE (%)',
    className: 'metrics',
    headers: ['', 'precision', 'recall', 'F1'],
    numeric: [1, 2, 3],
    rowHeaders: true,
    rows: ROUGE_ROWS.map(([key, label]) => {
      const prf = s.rouge[key];
      return [
        label,
        metric(`${key}-precision`, prf.precision, percent(prf.precision)),
        metric(`${key}-recall`, prf.recall, percent(prf.recall)),
        metric(key, prf.f1, percent(prf.f1)),
      ];
    }),
  });

  const diversity = table({
    caption: 'Diversity',
    className: 'metrics',
    headers: ['diversity (unique / all tokens)', 'distinct-1', 'distinct-2', 'tokens'],
    numeric: [0, 1, 2, 3],
    rows: [[
      metric('diversity', s.diversity.diversity, fixed3(s.diversity.diversity)),
      metric('distinct1', s.diversity.distinct1, fixed3(s.diversity.distinct1)),
      metric('distinct2', s.diversity.distinct2, fixed3(s.diversity.distinct2)),
      metric('diversity-tokens', s.diversity.tokens, String(s.diversity.tokens)),
    ]],
  });

  const sub = s.substantiality;
  const substantiality = table({
    caption: 'Substantiality',
    className: 'metrics',
    headers: ['entity words per sentence', 'entity words', 'sentences', 'examples'],
    numeric: [0, 1, 2],
    rows: [[
      metric('substantiality', sub.perSentence, fixed2(sub.perSentence)),
      metric('entity-words', sub.entityWords, String(sub.entityWords)),
      metric('substantiality-sentences', sub.sentences, String(sub.sentences)),
      sub.examples.length > 0 ? sub.examples.join(', ') : '—',
    ]],
  });

  const coherence = table({
    caption: 'Coherence',
    className: 'metrics',
    headers: ['L (lower is better; 0: the reference’s order)', 'sentence pairs'],
    numeric: [0, 1],
    rows: [[
      metric('coherenceL', s.coherenceL, coherenceLText(s.coherenceL)),
      metric('coherence-pairs', result.coherence.pairs, String(result.coherence.pairs)),
    ]],
  });

  const chrf = s.chrf === undefined ? [] : [table({
    caption: `${s.chrf.name} (sacreBLEU, 0–100)`,
    className: 'metrics',
    headers: [s.chrf.name],
    numeric: [0],
    rows: [[metric('chrf', s.chrf.score, fixed2(s.chrf.score))]],
  })];

  const corpus = section('scores', 'Scores', bleu, ...chrf, rouge, diversity, substantiality, coherence, renderSignatures(result));
  return [header, corpus, renderSentences(result)];
}

/** The signature strings that say how each score was computed (sacreBLEU's for BLEU and chrF, ours
 * for ROUGE), as text, each with a Copy button (a real button: Tab and Enter or Space reach it). */
function renderSignatures(result: ScoreResult): HTMLElement {
  const entries: [string, string][] = [['BLEU', result.signatures.BLEU]];
  if (result.signatures.chrF !== undefined) entries.push([result.scores.chrf?.name ?? 'chrF', result.signatures.chrF]);
  entries.push(['ROUGE', result.signatures.ROUGE]);
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
        setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
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
function renderSentences(result: ScoreResult): HTMLElement {
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
    ariaLabel: `Bar chart of sentence BLEU and ROUGE-L F1 for each of the ${sentences.length} draft sentences; the table below lists the same numbers.`,
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
