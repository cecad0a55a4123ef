/**
 * Topic words from a selection, for Expand Topic Words into Essay. A module of its own, with no
 * imports, so the host can tell an empty selection apart without loading the engine.
 */

/** Topic words from a selection: split at commas, semicolons or new lines when there are any,
 * else at spaces; trimmed of punctuation; the first of case-insensitive repeats kept. */
export function parseTopics(selection: string): string[] {
  const parts = /[,;\n、，；]/.test(selection) ? selection.split(/[,;\n、，；]+/) : selection.split(/\s+/);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of parts) {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/\s+/g, ' ');
    if (!word || seen.has(word.toLowerCase())) continue;
    seen.add(word.toLowerCase());
    out.push(word);
  }
  return out;
}
