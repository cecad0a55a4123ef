// A reference for accepting some of a rewrite's word changes, written apart from
// extension/engine/text/wordDiff.ts so that a test can hold one against the other. It knows
// nothing of how the changes were found: it reads the text in pieces (the stretches between
// changes, and each change's before or after side) and says which words the merged text must
// have, in order. Whitespace is not a word; a letter run or a single other mark is.
import assert from 'node:assert/strict';
import type { WordChange } from '../../extension/engine/text/wordDiff';

const WORD = /[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** The words of a text, punctuation marks one by one, whitespace left out. */
export function referenceWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The pieces of `original` with `accepted` changes taken: the merged text is their concatenation. */
function pieces(original: string, changes: readonly WordChange[], accepted: readonly boolean[]): string[] {
  const out: string[] = [];
  let at = 0;
  changes.forEach((c, k) => {
    out.push(original.slice(at, c.start), accepted[k] ? c.after : c.before);
    at = c.end;
  });
  out.push(original.slice(at));
  return out;
}

/** The words the merged text must have: each piece's own words, one after another, none joined. */
export function referenceMerge(
  original: string,
  changes: readonly WordChange[],
  accepted: readonly boolean[],
): string[] {
  return pieces(original, changes, accepted).flatMap(referenceWords);
}

/**
 * Checks `merged` (what the product wrote for `accepted`) against the reference: the same words in
 * the same order (two words glued into one, or one split, fails), and, where the original and the
 * reply both space their words singly, no doubled or stray space at a piece's edge.
 */
export function assertMergedAsAccepted(
  original: string,
  reply: string,
  changes: readonly WordChange[],
  accepted: readonly boolean[],
  merged: string,
): void {
  const why = () => JSON.stringify({ original, reply, changes, accepted, merged });
  assert.deepEqual(referenceWords(merged), referenceMerge(original, changes, accepted), why());
  const singly = (t: string) => !/\s\s|^\s|\s$/u.test(t);
  if (singly(original) && singly(reply)) assert.ok(singly(merged), `spacing: ${why()}`);
}

/** Every choice of accepted changes when there are at most 2^maxAll of them, else `samples` drawn evenly. */
export function someSubsets(n: number, maxAll = 10, samples = 256): boolean[][] {
  const bits = (m: number) => Array.from({ length: n }, (_, k) => Math.floor(m / 2 ** k) % 2 === 1);
  if (n <= maxAll) return Array.from({ length: 2 ** n }, (_, m) => bits(m));
  const out: boolean[][] = [Array(n).fill(false), Array(n).fill(true)];
  for (let s = 1; s <= samples; s++)
    out.push(Array.from({ length: n }, (_, k) => ((k * 2654435761 + s * 40503) >>> 7) % 2 === 1));
  return out;
}

/**
 * The whole contract for one text and reply: none accepted is the original, all accepted the reply
 * (when `exact`: the reply spaces its words as the original does), and every subset (someSubsets) the
 * reference merge. `apply` is the product's merge under test.
 */
export function assertAcceptingWritesWhatWasAccepted(
  original: string,
  reply: string,
  changes: readonly WordChange[],
  apply: (original: string, changes: readonly WordChange[], accepted: readonly boolean[]) => string,
  exact = true,
): void {
  assert.equal(
    apply(
      original,
      changes,
      changes.map(() => false),
    ),
    original,
  );
  if (exact)
    assert.equal(
      apply(
        original,
        changes,
        changes.map(() => true),
      ),
      reply,
    );
  for (const accepted of someSubsets(changes.length))
    assertMergedAsAccepted(original, reply, changes, accepted, apply(original, changes, accepted));
}
