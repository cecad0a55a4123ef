/**
 * The one list of Rewrite Selection's presets: the editor's QuickPick, the CLI's --preset names,
 * `draftsmith rewrite --help` and the user guide are all derived from it. Data only, with no
 * imports, so the CLI's command table and the host read it without loading the engine.
 *
 * Each instruction is short and says what must stay: a small instruct model follows a tight,
 * concrete instruction far better than a long one, and drifts (new names, dropped links) when it is
 * not told what to keep.
 */

export interface RewritePreset {
  /** The CLI's --preset name. */
  readonly id: string;
  /** What the QuickPick shows. */
  readonly label: string;
  /** What the model is asked to do, the user turn's first line. */
  readonly instruction: string;
  /**
   * Whether the built-in Round-Trip (a paragraph autoencoder, no instruct model) may stand in for it
   * when no instruct model is chosen: only a plain rephrasing is something Round-Trip does.
   */
  readonly roundTripFallback?: true;
}

export const REWRITE_PRESETS = [
  {
    id: 'grammar',
    label: 'Fix grammar and spelling',
    instruction: 'Fix the grammar, spelling and punctuation. Change nothing else.',
  },
  {
    id: 'shorter',
    label: 'Shorter',
    instruction: 'Make the text shorter: cut repetition and filler, keep every fact.',
  },
  {
    id: 'simpler',
    label: 'Simpler words',
    instruction: 'Use simpler, everyday words. Keep the meaning and the sentence order.',
  },
  {
    id: 'formal',
    label: 'More formal',
    instruction: 'Make the tone more formal. Keep the meaning.',
  },
  {
    id: 'casual',
    label: 'More casual',
    instruction: 'Make the tone more casual and friendly. Keep the meaning.',
  },
  {
    id: 'split',
    label: 'Split long sentences',
    instruction: 'Split long sentences into shorter ones. Keep the wording otherwise.',
  },
  {
    id: 'active',
    label: 'Active voice',
    instruction: 'Rewrite sentences in the passive voice in the active voice. Keep the rest as it is.',
  },
  {
    id: 'rephrase',
    label: 'Rephrase',
    instruction: 'Rephrase the text in other words. Keep the meaning.',
    roundTripFallback: true,
  },
] as const satisfies readonly RewritePreset[];

export type RewritePresetId = (typeof REWRITE_PRESETS)[number]['id'];

/** The preset of an id, or undefined. */
export function rewritePreset(id: string): RewritePreset | undefined {
  return REWRITE_PRESETS.find((p) => p.id === id);
}

/** The presets' names as the CLI lists them: "grammar|shorter|…". */
export const REWRITE_PRESET_NAMES = REWRITE_PRESETS.map((p) => p.id).join('|');

/**
 * The system prompt of every rewrite: what to keep and what the reply is. The instruction itself is
 * in the user turn, next to the text, where a small model attends to it.
 */
export const REWRITE_SYSTEM_PROMPT =
  'You are an editor. Rewrite the text the user gives as the instruction says. Keep every name, number, ' +
  'link, inline code and Markdown mark (such as *emphasis*, `code` and [links](url)) unless the instruction ' +
  'asks to change it. Reply with the rewritten text only: no preamble, no quotes, no comments.';

/** The user turn: the instruction, then the text, marked off so that the model tells them apart. */
export function rewriteUserTurn(instruction: string, text: string): string {
  return `${instruction.trim()}\n\nText:\n${text}`;
}
