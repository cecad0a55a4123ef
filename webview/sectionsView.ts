/**
 * A document summarized section by section: each section's heading, its summary line, and
 * whether it fed the summary of the whole; then how the document was read (what was not prose).
 */
import type { SummarizeView } from '../extension/panelPage';
import { el, hint, section } from './dom';

const STATUS: Record<string, string> = {
  'no-prose': 'no prose under this heading',
  'timed-out': 'ran past the time limit: no summary',
  unreadable: 'not in a script the model reads: no summary',
  whole: 'one sentence: its own summary',
};

export function renderSections(result: SummarizeView): Node[] {
  const sections = result.sections;
  if (sections.length === 0) return [];
  const fed = sections.filter((s) => s.fedOverall).length;
  const list = el('ol', 'section-list');
  sections.forEach((s, k) => {
    const item = el('li', s.fedOverall ? 'section fed' : 'section');
    const title = el('span', 'section-title', s.title || '(before the first heading)');
    title.style.marginLeft = `${Math.max(0, s.level - 1)}em`;
    // Click or Enter: the section's part of the attention view below (summarizeView marks its first token).
    const reveal = (): void =>
      document
        .querySelector<HTMLElement>(`.source-text [data-section="${k}"]`)
        ?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    title.tabIndex = 0;
    title.title = 'Show this section in the attention view';
    title.addEventListener('click', reveal);
    title.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        reveal();
      }
    });
    item.append(title);
    if (s.fedOverall) item.append(el('span', 'section-fed', ' ★ fed the summary of the whole'));
    item.append(el('p', 'section-summary', s.summary || `(${STATUS[s.status] ?? s.status})`));
    if (s.summary && s.status !== 'summarized') item.append(el('p', 'hint', STATUS[s.status] ?? s.status));
    list.append(item);
  });
  const out: Node[] = [
    section(
      'sections',
      `Sections (${sections.length}; ${fed} fed the summary of the whole)`,
      hint(
        "The summary of the whole is made from the sections whose topic distribution (the model's topic " +
          "scores) is nearest the document's, summarized together (★).",
      ),
      list,
    ),
  ];
  if (result.readNotes.length > 0) {
    const notes = el('ul', 'read-notes');
    for (const n of result.readNotes) notes.append(el('li', undefined, n));
    out.push(section('read-notes', 'How the document was read', notes));
  }
  return out;
}
