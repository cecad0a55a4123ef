/**
 * Where to cut a text so that its tokens fit a window, at word boundaries. Tokenizers give no character
 * offsets, so the cut is found by bisection over the word boundaries, asking `fits` of each candidate
 * (it must be monotone: a longer piece never fits where a shorter one does not).
 */

/**
 * The longest start of `text` ending at a word's end that fits: its length in characters (0: none fits).
 * For a text that does not fit whole (the caller has its tokens already, and checks that first).
 */
export function fittingPrefix(text: string, fits: (prefix: string) => boolean): number {
  const ends = [...text.matchAll(/\S(?=\s|$)/g)].map((m) => (m.index ?? 0) + 1);
  let lo = 0,
    hi = ends.length - 1,
    best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fits(text.slice(0, ends[mid]))) {
      best = ends[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * The earliest word start of `text` whose rest fits: where it starts (the last word's start where not
 * even that fits, for the caller to cut further). For a text that does not fit whole.
 */
export function fittingSuffixStart(text: string, fits: (suffix: string) => boolean): number {
  const starts = [...text.matchAll(/(?<=\s)\S/g)].map((m) => m.index ?? 0);
  let lo = 0,
    hi = starts.length - 1,
    best = starts.length ? starts[starts.length - 1] : 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fits(text.slice(starts[mid]))) {
      best = starts[mid];
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return best;
}
