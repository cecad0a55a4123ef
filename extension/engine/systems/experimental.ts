/**
 * The built-in modes whose measured quality is poor, and what the writer is told about each: the
 * engine puts the note on the result (the host shows it in the notification, the panel above the
 * text, the CLI on standard error) and the CLI's help quotes the short form, so the label and its
 * numbers live here only. The numbers are the model cards' (models/summarize/MODEL_CARD.md,
 * models/roundtrip/MODEL_CARD.md), where the commands that measure them are.
 */
const SUMMARY_NUMBERS = 'news ROUGE-1 23.9, where the first three sentences score 31.6';
const ROUNDTRIP_NUMBERS = 'ROUGE-1 0.27 against the input on general paragraphs; simple stories 0.37';

export const EXPERIMENTAL = {
  abstractiveSummary: {
    short: `experimental: often wrong on the facts (${SUMMARY_NUMBERS})`,
    note:
      `Experimental: the built-in model writes this summary in its own words and often gets the facts wrong ` +
      `(${SUMMARY_NUMBERS}). The extractive mode, the default, quotes the source; a Hub summarizer (Choose ` +
      `Model) writes better.`,
  },
  roundTrip: {
    short: `experimental outside simple stories (${ROUNDTRIP_NUMBERS})`,
    note:
      `Experimental outside simple stories: on news and other general paragraphs the reconstruction keeps little ` +
      `of the content (${ROUNDTRIP_NUMBERS}).`,
  },
} as const;
