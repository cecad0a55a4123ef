/**
 * Which model wrote a result, when it is not one of Draftsmith's (a Hub model or a folder
 * in transformers.js's layout): its id, architecture, and what the panel can show for it.
 */
import type { ExternalModel } from '../extension/panelPage';
import { el, hint, section } from './dom';

const FROM = { setting: 'your setting', model: "the model's", draftsmith: "Draftsmith's" } as const;

export function renderExternalModel(model: ExternalModel, className: string): HTMLElement {
  const list = el('dl', 'external-model');
  const rows: [string, string][] = [
    ['Model', model.id],
    ['Architecture', model.architecture],
  ];
  // Which decoding values ran, and whose each was (the user's setting, the model's generation_config, or ours).
  if (model.decoding?.length)
    rows.push(['Decoding', model.decoding.map((d) => `${d.name} ${d.value} (${FROM[d.from]})`).join(', ')]);
  if (model.contextCut)
    rows.push([
      'Read',
      `the last ${model.contextCut.usedTokens} of ${model.contextCut.totalTokens} tokens ` +
        `(draftsmith.hub.contextTokens)`,
    ]);
  for (const [term, value] of rows) {
    const dd = el('dd', undefined, value);
    dd.dataset.field = term.toLowerCase();
    list.append(el('dt', undefined, term), dd);
  }
  return model.note ? section(className, 'Model', list, hint(model.note)) : section(className, 'Model', list);
}
