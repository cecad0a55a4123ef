/**
 * The summarize view, after the TAAS paper's Figure 4: the source shaded token by token by its
 * topic-aware attention weight α, the five most attended phrases outlined and ranked.
 */
import { SUMMARY_CHOOSE, summaryCutNote, type SummarizeView } from '../extension/panelPage';
import { el, experimentalNote } from './dom';
import { renderExternalModel } from './externalModel';
import { renderSections } from './sectionsView';

function formatWeight(w: number): string {
  return w.toFixed(3);
}

export function renderSummarize(result: SummarizeView): Node[] {
  const phrases = result.topPhrases;

  const summary = el('section', 'summary');
  summary.append(
    el('h2', undefined, 'Summary'),
    ...experimentalNote(result.experimental),
    // What an instruct model's summary has that the source does not: read with care, as an experimental mode.
    ...experimentalNote(
      result.invented?.length
        ? `The summary has names or numbers the text does not: ` +
            `${result.invented.map((x) => `"${x}"`).join(', ')}. Check them against the text.`
        : undefined,
    ),
    el('p', 'summary-text', result.summary),
  );
  // A Hub summarizer reports no attention or topics: the panel says which model wrote it instead.
  if (result.external) return [summary, renderExternalModel(result.external, 'summary-model')];
  if (result.mode === 'extractive') {
    const n = result.extractedSentences;
    summary.append(
      el(
        'p',
        'hint',
        `Extractive: ${n} sentence${n === 1 ? '' : 's'} of the source, unchanged and in their order, chosen by ` +
          `the topic-aware attention below (with a preference for early sentences). Set ` +
          `draftsmith.summarize.mode to "abstractive" for a summary the model writes itself.`,
      ),
    );
  } else if (result.mode === 'synopsis') {
    summary.append(
      el(
        'p',
        'hint',
        'Synopsis: one sentence of the source, unchanged, chosen by a scorer trained on SciTLDR (scientific ' +
          'abstracts and their one-line TLDRs) from the topic-aware attention below, its position and its words.',
      ),
    );
  }

  const sourceBox = renderSource(result, phrases);
  const source = el('section', 'source');
  source.append(
    el('h2', undefined, 'Source, shaded by topic-aware attention α'),
    el(
      'p',
      'hint',
      result.sections.length > 0
        ? // Each section (or part of one) was read on its own, so its weights are shaded against its own largest.
          'The whole document, section by section: each token’s background grows with its weight relative to ' +
            'the largest in its section (each section was read on its own); the five most attended content ' +
            'phrases are outlined.'
        : 'Each token’s background grows with its weight (relative to the largest); the five most attended ' +
            'content phrases are outlined (function words are shaded, never listed).',
    ),
    sourceBox,
  );

  const ranked = el('section', 'phrases');
  ranked.append(el('h2', undefined, 'Top 5 attended phrases'));
  if (phrases.length === 0) {
    ranked.append(el('p', 'hint', 'The model reported no phrases.'));
  } else {
    const list = el('ol', 'phrase-list');
    phrases.forEach((phrase, rank) => list.append(renderPhraseItem(sourceBox, phrase.text, phrase.weight, rank)));
    ranked.append(list);
  }

  const topics = el('section', 'topics');
  topics.append(el('h2', undefined, 'Topics'));
  if (result.topics.length === 0) {
    topics.append(el('p', 'hint', 'No topics.'));
  } else {
    const list = el('ul', 'topic-list');
    for (const topic of result.topics) {
      const item = el('li');
      item.append(el('span', 'topic-id', `Topic ${topic.id}`), document.createTextNode(` ${topic.words.join(', ')}`));
      list.append(item);
    }
    topics.append(list);
  }

  return [summary, ...renderSections(result), renderStats(result), source, ranked, topics];
}

function renderStats(result: SummarizeView): HTMLElement {
  const s = result.stats;
  const extractive = result.mode === 'extractive' || result.mode === 'synopsis';
  const parts = [
    ...(extractive ? [result.mode ?? 'extractive'] : [`${s.tokensPerSecond.toFixed(1)} tokens/s`]),
    `encode ${Math.round(s.encodeMs)} ms`,
    ...(extractive ? [] : [`decode ${Math.round(s.decodeMs)} ms`]),
    `${s.usedInputTokens} of ${s.inputTokens ?? `more than ${s.usedInputTokens}`} input tokens`,
    `${s.outputTokens} output tokens`,
    s.device,
    s.model,
  ];
  const stats = el('p', 'stats', parts.join(' · '));
  const cut = summaryCutNote(result);
  if (cut) stats.append(el('span', 'truncated', ` · ${cut}. ${SUMMARY_CHOOSE.panel}`));
  return stats;
}

/**
 * The source as it was written: token spans shaded by weight, and the text between tokens
 * (whitespace, skipped characters) as plain text so the passage reads naturally.
 */
function renderSource(result: SummarizeView, phrases: readonly { start: number; end: number }[]): HTMLElement {
  const { source } = result;
  const box = el('div', 'source-text');
  const tokens = [...result.tokens].sort((a, b) => a.start - b.start);
  // A document read section by section: each token's section, and the largest weight in each.
  const sections = result.sections; // in document order (the protocol's)
  // Tokens and sections are both in document order: one walk (10,000 sections stay cheap).
  let k = -1;
  const tokenSection = tokens.map((t) => {
    while (k + 1 < sections.length && sections[k + 1].start <= t.start) k++;
    return k;
  });
  const sectionMax = new Map<number, number>();
  tokens.forEach((t, i) => sectionMax.set(tokenSection[i], Math.max(sectionMax.get(tokenSection[i]) ?? 0, t.weight)));
  const marked = new Set<number>();
  let cursor = 0;
  // A top phrase is one outlined element around its tokens (and the spaces between them), not a box per token.
  let phraseBox: { el: HTMLElement; end: number } | undefined;
  const target = (): HTMLElement => (phraseBox && cursor < phraseBox.end ? phraseBox.el : box);
  for (const [index, token] of tokens.entries()) {
    // Spans come from the engine; skip any that overlap an earlier one or fall outside the text.
    if (token.start < cursor || token.end > source.length || token.end <= token.start) continue;
    if (phraseBox && token.start >= phraseBox.end) phraseBox = undefined;
    if (token.start > cursor) target().append(document.createTextNode(source.slice(cursor, token.start)));
    const rank = phrases.findIndex((p) => token.start < p.end && p.start < token.end);
    if (rank >= 0 && !phraseBox) {
      const mark = el('span', 'top-phrase');
      mark.dataset.rank = String(rank);
      box.append(mark);
      phraseBox = { el: mark, end: phrases[rank].end };
    }
    const span = el('span', 'token', source.slice(token.start, token.end));
    const section = tokenSection[index];
    if (section >= 0 && !marked.has(section)) {
      marked.add(section); // the sections list jumps here
      span.dataset.section = String(section);
    }
    const maxWeight = sectionMax.get(section) ?? 0;
    const share = maxWeight > 0 ? Math.max(0, token.weight) / maxWeight : 0;
    // A custom property, not a colour: panel.css mixes the theme colour with it (CSSOM is CSP-safe).
    span.style.setProperty('--alpha', `${Math.round(share * 100)}%`);
    span.title = `α = ${formatWeight(token.weight)}`;
    cursor = token.start;
    target().append(span);
    cursor = token.end;
  }
  const readEnd = result.truncated ? Math.max(cursor, Math.min(result.usedChars, source.length)) : source.length;
  if (readEnd > cursor) box.append(document.createTextNode(source.slice(cursor, readEnd)));
  if (readEnd < source.length) {
    const unread = el('span', 'unread', source.slice(readEnd));
    unread.title = 'Not read by the model (past its input limit)';
    box.append(unread);
  }
  return box;
}

/** A ranked phrase; `sourceBox` holds the outlined spans it lights up. */
function renderPhraseItem(sourceBox: HTMLElement, text: string, weight: number, rank: number): HTMLElement {
  const item = el('li', 'phrase');
  item.tabIndex = 0;
  item.dataset.rank = String(rank);
  item.setAttribute('aria-label', `${rank + 1}. ${text}, weight ${formatWeight(weight)}`);
  item.append(el('span', 'phrase-text', text), el('span', 'weight', formatWeight(weight)));
  const spans = (): HTMLElement[] =>
    Array.from(sourceBox.querySelectorAll<HTMLElement>(`.top-phrase[data-rank="${rank}"]`));
  const mark = (on: boolean): void => spans().forEach((s) => s.classList.toggle('active', on));
  item.addEventListener('mouseenter', () => mark(true));
  item.addEventListener('mouseleave', () => mark(item === document.activeElement));
  item.addEventListener('focus', () => mark(true));
  item.addEventListener('blur', () => mark(false));
  const reveal = (): void => spans()[0]?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  item.addEventListener('click', reveal);
  item.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      reveal();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? item.nextElementSibling : item.previousElementSibling;
      if (next instanceof HTMLElement) next.focus();
    }
  });
  return item;
}
