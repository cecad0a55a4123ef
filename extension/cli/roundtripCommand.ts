/**
 * `draftsmith roundtrip FILE | - | --text TEXT [--json] [--model MODEL | --variant
 * standard|hier|hier-attn] [--max-sentences N]`:
 * Round-Trip Paragraph from a terminal. The reconstruction goes to standard output (with --json, the
 * whole result); the notes, the sentence alignment and the scores to standard error.
 */
import * as path from 'node:path';
import type { RoundTripResult, RoundTripVariant } from '../protocol';
import { EngineError } from '../engine/errors';
import { flag, guardsFlag, intFlag, type Args } from './args';
import { runOnModelFolder, type CliParts } from './modelFolderRun';
import { commandInput } from './inputText';
import { describeSkippedList, formatOf } from '../engine/text/markdown';
import { proseNotes, proseOf } from '../engine/text/proseText';

export async function roundtripCommand(a: Args, cli: CliParts): Promise<void> {
  const input = await commandInput(a, 'roundtrip', a.positional.slice(1), {
    acceptsText: false,
    missing: 'roundtrip needs a FILE (use - for standard input, or --text "...")',
  });
  const { origin } = input;
  // A Markdown file (.md) is read by the one reader: the model reads its prose only.
  const file = origin === 'file' ? a.positional[1] : undefined;
  const prose = proseOf(input.text, file === undefined ? 'plain' : formatOf(file));
  if (prose.format === 'markdown' && prose.text.trim().length === 0) {
    const skipped = describeSkippedList(prose.skipped);
    throw new EngineError(
      'bad-input',
      `${path.basename(file ?? '')} has no prose to round-trip: read as Markdown, it holds no paragraph or ` +
        `list item${skipped ? ` (skipped ${skipped})` : ''}.`,
    );
  }
  const text = prose.text;
  const readNotes = proseNotes([{ label: path.basename(file ?? 'the text'), prose }]);
  const variant = flag(a, 'variant');
  const request = cli.checked({
    op: 'roundtrip' as const,
    text,
    origin,
    maxSentences: intFlag(a, 'max-sentences'),
    guards: guardsFlag(a),
    ...(variant !== undefined ? { variant: variant as RoundTripVariant } : {}),
  });
  const result = await runOnModelFolder(a, cli, request);
  if (readNotes) result.readNotes = readNotes;
  if (flag(a, 'json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  process.stdout.write(result.reconstruction + '\n');
  for (const line of roundTripReport(result)) process.stderr.write(line + '\n');
}

/** What the CLI prints about a round trip besides the text: limits, alignment, scores, speed. */
export function roundTripReport(r: RoundTripResult): string[] {
  const lines: string[] = [...(r.experimental ? [r.experimental] : []), ...(r.readNotes ?? [])].map(
    (n) => `note: ${n}`,
  );
  if (r.truncatedBy) {
    const limit =
      r.truncatedBy === 'sentences'
        ? `--max-sentences ${r.maxSentences}`
        : r.inputLimit
          ? `its limit of ${r.inputLimit} subwords`
          : 'its token limit';
    lines.push(
      `note: the model read the first ${r.input.length} of ${r.totalSentences} sentences (${limit}); the ` +
        `reconstruction covers those`,
    );
  }
  if (r.stopped !== 'end')
    lines.push(
      `note: decoding stopped at the 1.5x limit ` +
        `(${r.stopped === 'max-sentences' ? `${r.limits.maxSentences} sentences` : `${r.limits.maxTokens} tokens`}) ` +
        `before the model ended the paragraph`,
    );
  if (r.reconstruction.length === 0) lines.push('note: the model wrote nothing back for this paragraph');
  const c = r.scores.coherence;
  lines.push(`alignment (output sentence -> input sentence, noun/verb F1):`);
  for (const a of c.alignment)
    lines.push(
      `  ${a.output + 1} -> ${a.input === null ? '-' : a.input + 1}  (F1 ${a.f1.toFixed(2)})  ` +
        `${c.outputSentences[a.output]}`,
    );
  const s = r.scores;
  lines.push(
    `BLEU ${s.bleu.score.toFixed(2)}  ROUGE-1 ${s.rouge1.f1.toFixed(3)}  ROUGE-2 ${s.rouge2.f1.toFixed(3)}  ` +
      `ROUGE-W ${s.rougeW.f1.toFixed(3)}  ` +
      `coherence L ${c.L === null ? 'n/a (fewer than two aligned output sentences)' : c.L.toFixed(2)}`,
  );
  lines.push(
    `${r.architecture} model ${r.stats.model}: ${r.input.length} sentences / ${r.stats.usedInputTokens} tokens ` +
      `in, ${r.output.length} sentences / ` +
      (`${r.stats.outputTokens} tokens out; encode ${r.stats.encodeMs.toFixed(0)} ms, decode ` +
        `${r.stats.decodeMs.toFixed(0)} ms on ${r.stats.device}`),
  );
  return lines;
}
