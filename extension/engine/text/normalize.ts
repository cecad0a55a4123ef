/**
 * The one text normalisation shared with the training recipe (models/train/draftsmith_train/data.py
 * `normalize`): runs of whitespace become one space, ends trimmed. The tokenizer.json applies the
 * same rule, so ids match sentencepiece's.
 */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * True when text has something a model could read: a letter or a number (Unicode L or N), in any
 * script. False when it is empty, or whitespace, punctuation, symbols, control or replacement
 * characters only.
 */
export function hasReadableText(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/**
 * Text decoded from a binary file is full of NULs, replacement characters and C0 controls; models
 * trained on prose do nothing useful with it. Returns the share of such characters.
 */
export function junkRatio(text: string): number {
  if (text.length === 0) return 0;
  let junk = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c === 0xfffd || (c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) junk++;
  }
  return junk / text.length;
}
