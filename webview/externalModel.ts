/**
 * Which model wrote a result, when it is not one of Draftsmith's (a Hub model or a folder
 * in transformers.js's layout): its id, architecture, and what the panel can show for it.
 */
import type { ExternalModel } from '../extension/protocol';
import { el, hint, section } from './dom';

export function renderExternalModel(model: ExternalModel, className: string): HTMLElement {
  const list = el('dl', 'external-model');
  const rows: [string, string][] = [
    ['Model', model.id],
    ['Architecture', model.architecture],
  ];
  for (const [term, value] of rows) {
    const dd = el('dd', undefined, value);
    dd.dataset.field = term.toLowerCase();
    list.append(el('dt', undefined, term), dd);
  }
  return model.note ? section(className, 'Model', list, hint(model.note)) : section(className, 'Model', list);
}
