/**
 * The words Expand Topic Words into Essay shows: quick-pick rows and the message after inserting.
 * No 'vscode' here, so the unit tests cover it.
 */
import type { EssayCandidate, EssayResult } from '../protocol';

const LABEL_CHARS = 80;

/** A score with a true minus sign (log-probabilities are negative). */
export function signed(x: number): string {
  return x.toFixed(2).replace('-', '−');
}

/** The essay's start on one line; the quick pick would render "$(name)" as an icon, so it is broken up. */
export function candidateLabel(c: EssayCandidate): string {
  const flat = c.text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > LABEL_CHARS ? `${flat.slice(0, LABEL_CHARS - 1)}…` : flat;
  return cut.replace(/\$\(/g, '$\u200b(');
}

/** "covers 4/5: bee, geese, flower, frog · score −1.23" */
export function candidateDetail(c: EssayCandidate, topics: readonly string[]): string {
  const covered = c.covered.length > 0 ? c.covered.join(', ') : 'none';
  return `covers ${c.covered.length}/${topics.length}: ${covered} · score ${signed(c.score)}`;
}

/** After inserting `chosen`: which topic words it uses, which not, which the model knows only by their
 * subwords, and which it could not read at all (left out). */
export function coverageMessage(
  result: Pick<EssayResult, 'topics' | 'unknownTopics' | 'skippedTopics'>,
  chosen: EssayCandidate,
): string {
  const n = result.topics.length;
  const words = n === 1 ? 'topic word' : 'topic words';
  const covered = new Set(chosen.covered.map((w) => w.toLowerCase()));
  const missing = result.topics.filter((t) => !covered.has(t.toLowerCase()));
  let message: string;
  if (missing.length === 0)
    message = `Draftsmith: the essay covers ${n === 1 ? 'the' : `all ${n}`} ${words}: ${result.topics.join(', ')}.`;
  else if (chosen.covered.length === 0)
    message = `Draftsmith: the essay covers none of the ${n} ${words} (${result.topics.join(', ')}).`;
  else
    message =
      `Draftsmith: the essay covers ${chosen.covered.length} of ${n} ${words}: ${chosen.covered.join(', ')}; ` +
      `not: ${missing.join(', ')}.`;
  const unknown = result.unknownTopics;
  if (unknown.length > 0) {
    message +=
      unknown.length === 1
        ? ` The model has no word vector for “${unknown[0]}” and knows it only by its subwords.`
        : ` The model has no word vectors for ${unknown.map((w) => `“${w}”`).join(', ')} and knows them only by ` +
          `their subwords.`;
  }
  const skipped = result.skippedTopics;
  if (skipped.length > 0) {
    message += ` Left out, in letters the model does not know: ${skipped.map((w) => `“${w}”`).join(', ')}.`;
  }
  return message;
}
