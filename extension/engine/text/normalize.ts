/**
 * The one text normalisation shared with the training recipe (models/train/draftsmith_train/data.py
 * `normalize`): runs of whitespace become one space, ends trimmed. The tokenizer.json applies the
 * same rule, so ids match sentencepiece's.
 */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
