/**
 * The Score Draft view: the draft's corpus scores against its reference (BLEU, ROUGE, diversity,
 * substantiality, coherence), then sentence by sentence, with a bar chart of the per-sentence
 * scores. Every main number is a cell with data-metric (a stable name) and data-value (the raw number).
 */
import type { DraftComparison, ScoreView } from '../extension/protocol';
import { barChart } from './charts';
import { clip, el, factor, fixed2, fixed3, hint, metric, percent, section, table, type Cell } from './dom';
import { coherenceLText } from './coherenceView';
import { renderReadNotes } from './readNotesView';

const ROUGE_ROWS = [
  ['rouge1', 'ROUGE-1'],
  ['rouge2', 'ROUGE-2'],
  ['rougeL', 'ROUGE-L'],
  ['rougeLsum', 'ROUGE-Lsum'],
  ['rougeW', 'ROUGE-W'],
] as const;

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

  const bleu = table({
    caption: 'BLEU (sacreBLEU, 0–100)',
    className: 'metrics',
    headers: ['BLEU', 'p1', 'p2', 'p3', 'p4', 'BP', 'ratio', 'draft length', 'reference length'],
    numeric: [0, 1, 2, 3, 4, 5, 6, 7, 8],
    rows: [
      [
        metric('bleu', s.bleu.score, fixed2(s.bleu.score)),
        ...[0, 1, 2, 3].map((n) => {
          const p = s.bleu.precisions[n];
          return p === undefined ? '—' : metric(`bleu-p${n + 1}`, p, fixed2(p));
        }),
        metric('bleu-bp', s.bleu.brevityPenalty, factor(s.bleu.brevityPenalty)),
        metric('bleu-ratio', s.bleu.ratio, fixed3(s.bleu.ratio)),
        metric('bleu-hyp-length', s.bleu.hypLength, String(s.bleu.hypLength)),
        metric('bleu-ref-length', s.bleu.refLength, String(s.bleu.refLength)),
      ],
    ],
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
    rows: [
      [
        metric('diversity', s.diversity.diversity, fixed3(s.diversity.diversity)),
        metric('distinct1', s.diversity.distinct1, fixed3(s.diversity.distinct1)),
        metric('distinct2', s.diversity.distinct2, fixed3(s.diversity.distinct2)),
        metric('diversity-tokens', s.diversity.tokens, String(s.diversity.tokens)),
      ],
    ],
  });

  const sub = s.substantiality;
  const substantiality = table({
    caption: 'Substantiality',
    className: 'metrics',
    headers: ['entity words per sentence', 'entity words', 'sentences', 'examples'],
    numeric: [0, 1, 2],
    rows: [
      [
        metric('substantiality', sub.perSentence, fixed2(sub.perSentence)),
        metric('entity-words', sub.entityWords, String(sub.entityWords)),
        metric('substantiality-sentences', sub.sentences, String(sub.sentences)),
        sub.examples.length > 0 ? sub.examples.join(', ') : '—',
      ],
    ],
  });

  const coherence = table({
    caption: 'Coherence',
    className: 'metrics',
    headers: ['L (lower is better; 0: the reference’s order)', 'sentence pairs'],
    numeric: [0, 1],
    rows: [
      [
        metric('coherenceL', s.coherenceL, coherenceLText(s.coherenceL)),
        metric('coherence-pairs', result.coherence.pairs, String(result.coherence.pairs)),
      ],
    ],
  });

  const chrf =
    s.chrf === undefined
      ? []
      : [
          table({
            caption: `${s.chrf.name} (sacreBLEU, 0–100)`,
            className: 'metrics',
            headers: [s.chrf.name],
            numeric: [0],
            rows: [[metric('chrf', s.chrf.score, fixed2(s.chrf.score))]],
          }),
        ];

  const corpus = section(
    'scores',
    'Scores',
    bleu,
    ...chrf,
    rouge,
    diversity,
    substantiality,
    coherence,
    ...renderFluency(s),
    renderSignatures(result),
  );
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

/** The model-based and fluency scores, when the settings ask for them, with a
 * footnote on what each is, and on the grammatical-sentence rate that only the training tools give. */
function renderFluency(s: ScoreView['scores']): HTMLElement[] {
  const nw = s.nonwords;
  const ppl = s.perplexity;
  if (nw === undefined && ppl === undefined) return [];
  const headers: string[] = [];
  const numeric: number[] = [];
  const row: Cell[] = [];
  if (nw !== undefined) {
    numeric.push(row.length, row.length + 1);
    headers.push('non-word rate (lower is better)', 'non-words / words judged', 'non-words');
    row.push(
      nw.rate === null ? '—' : metric('nonwords', nw.rate, fixed3(nw.rate)),
      metric('nonwords-count', nw.nonwords, `${nw.nonwords} / ${nw.tokens}`),
      nw.examples.length > 0 ? nw.examples.join(', ') : '—',
    );
  }
  if (ppl !== undefined) {
    numeric.push(row.length, row.length + 1);
    headers.push('perplexity per word (story LM)', 'per token');
    row.push(
      metric('perplexity', ppl.perWord, ppl.perWord.toFixed(1)),
      metric('perplexity-token', ppl.perToken, ppl.perToken.toFixed(1)),
    );
  }
  const notes = [
    ...(nw !== undefined
      ? [
          "Non-words: alphabetic words the hunspell en_US dictionary rejects as written and capitalised, names and words with digits left out (the model cards' definition).",
        ]
      : []),
    ...(ppl !== undefined
      ? [
          `Perplexity: how likely the built-in story model (${ppl.model}), a model of short simple stories, finds the draft (${ppl.tokens} tokens); it does not compare the draft with the reference.`,
        ]
      : []),
    "The model cards' grammatical-sentence rate needs link-grammar, a C library with no JavaScript port: the training tools compute it (models/train/fluency.sh).",
  ];
  return [table({ caption: 'Fluency', className: 'metrics', headers, numeric, rows: [row] }), hint(notes.join(' '))];
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
      ? ` With ${c.segments} segment${c.segments === 1 ? '' : 's'} the test can say little; longer texts give a clearer answer.`
      : '';
  const s2 = c.secondScores;
  const whole = table({
    caption: 'Whole-text scores of both drafts',
    className: 'metrics',
    headers: [
      'draft',
      'BLEU',
      ...(s2.chrf ? [s2.chrf.name] : []),
      'ROUGE-1 F1 (%)',
      'ROUGE-2 F1 (%)',
      'ROUGE-L F1 (%)',
      ...(s2.nonwords ? ['non-word rate'] : []),
      ...(s2.perplexity ? ['perplexity per word'] : []),
    ],
    numeric: [1, 2, 3, 4, 5, 6, 7].slice(0, 4 + (s2.chrf ? 1 : 0) + (s2.nonwords ? 1 : 0) + (s2.perplexity ? 1 : 0)),
    rowHeaders: true,
    rows: [
      [a, result.scores],
      [b, s2],
    ].map(([name, s], i) => {
      const sc = s as ScoreView['scores'];
      const k = i === 0 ? 'first' : 'second';
      return [
        name as string,
        metric(`whole-${k}-bleu`, sc.bleu.score, fixed2(sc.bleu.score)),
        ...(sc.chrf ? [metric(`whole-${k}-chrf`, sc.chrf.score, fixed2(sc.chrf.score))] : []),
        metric(`whole-${k}-rouge1`, sc.rouge.rouge1.f1, percent(sc.rouge.rouge1.f1)),
        metric(`whole-${k}-rouge2`, sc.rouge.rouge2.f1, percent(sc.rouge.rouge2.f1)),
        metric(`whole-${k}-rougeL`, sc.rouge.rougeL.f1, percent(sc.rouge.rougeL.f1)),
        ...(s2.nonwords
          ? [
              sc.nonwords === undefined || sc.nonwords.rate === null
                ? '—'
                : metric(`whole-${k}-nonwords`, sc.nonwords.rate, fixed3(sc.nonwords.rate)),
            ]
          : []),
        ...(s2.perplexity
          ? [
              sc.perplexity
                ? metric(`whole-${k}-perplexity`, sc.perplexity.perWord, sc.perplexity.perWord.toFixed(1))
                : '—',
            ]
          : []),
      ];
    }),
  });
  return section(
    'comparison',
    'Two drafts compared',
    tests,
    hint(
      `Paired bootstrap resampling (sacreBLEU's --paired-bs), ${c.samples.toLocaleString('en')} resamples, seed ${c.seed}, over ${segments}. ` +
        `ROUGE here is the mean F1 over the segments. * p < 0.05: a difference this large is unlikely to be chance.${few}`,
    ),
    whole,
  );
}

/** The signature strings that say how each score was computed (sacreBLEU's for BLEU and chrF, ours
 * for ROUGE), as text, each with a Copy button (a real button: Tab and Enter or Space reach it). */
function renderSignatures(result: ScoreView): HTMLElement {
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
