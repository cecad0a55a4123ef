/**
 * How a Markdown text was read: what Score Draft, Check Coherence and Round-Trip
 * Paragraph left out of what they compared or rewrote (code blocks, tables, HTML, front matter).
 */
import { el, section } from './dom';

export function renderReadNotes(notes: readonly string[] | undefined, heading = 'How the text was read'): Node[] {
  if (!notes || notes.length === 0) return [];
  const list = el('ul', 'read-notes');
  for (const n of notes) list.append(el('li', undefined, n));
  return [section('read-notes', heading, list)];
}
