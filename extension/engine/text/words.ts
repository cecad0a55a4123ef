/**
 * Words as a writer counts them, for lengths asked in words (Continue Story). A module with no
 * imports: the host and the tests count with the same rule.
 */

/** Whitespace-separated runs that hold a letter or a digit: "don't" is one word, a lone "—" none. */
export function countWords(text: string): number {
  return (text.match(/\S*[\p{L}\p{N}]\S*/gu) ?? []).length;
}
