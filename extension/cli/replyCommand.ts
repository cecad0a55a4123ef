/**
 * `draftsmith reply "POST" | FILE | - | --text POST [--key WORD] [--mapper identity|synonym|antonym|neighbour|all ...]
 *  [--candidates N] [--beam N] [--max-tokens N] [--model MODEL] [--json]`: Suggest Replies from a
 * terminal. The candidates go
 * to standard output, best first, each labelled with its key and mapping ("champion → winner — synonym");
 * the notes (a long post cut, keys the memory lacks) and the speed to standard error.
 * `draftsmith eval reply [--data DIR] [--limit N] [--variant NAME=DIR ...] [--examples N]`: NRM vs ESED.
 */
import { ReplyMapper, type ReplyResult } from '../protocol';
import { EngineError } from '../engine/errors';
import { runReplyEval } from '../engine/eval/replyEval';
import { openDump } from '../engine/eval/dump';
import { modelDir } from '../engine/systems/registry';
import { flag, guardsFlag, intFlag, type Args } from './args';
import { commandInput } from './inputText';
import { runOnModelFolder, type CliParts } from './modelFolderRun';

/** --mapper, repeatable or comma-separated; "all" is the four. */
export function mappersOf(a: Args): ReplyMapper[] | undefined {
  const given = (a.flags.get('mapper') ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (given.length === 0) return undefined;
  if (given.includes('all')) return [...ReplyMapper.options];
  return [...new Set(given)].map((m) => {
    const parsed = ReplyMapper.safeParse(m);
    if (!parsed.success)
      throw new EngineError('bad-request', `--mapper must be identity, synonym, antonym, neighbour or all, not "${m}"`);
    return parsed.data;
  });
}

/** Exit status: 0 with candidates, 1 with none (a post without keys: the note says to give --key). */
export async function replyCommand(a: Args, cli: CliParts): Promise<number> {
  const needs = 'reply needs a post: draftsmith reply "Do you play tennis?" (or a FILE, or - for standard input)';
  // A FILE, -, --text, or the words themselves (inputText.ts: a word that looks like a file name is one).
  const { text, origin, source } = await commandInput(a, 'reply', a.positional.slice(1), {
    acceptsText: true,
    missing: needs,
  });
  if (!text.trim() && source === 'command line') throw new EngineError('bad-request', needs);
  const request = cli.checked({
    op: 'reply' as const,
    text,
    origin,
    key: flag(a, 'key'),
    mappers: mappersOf(a),
    maxCandidates: intFlag(a, 'candidates'),
    guards: guardsFlag(a),
    decoding: { beamSize: intFlag(a, 'beam'), maxLength: intFlag(a, 'max-tokens') },
  });
  const result = await runOnModelFolder(a, cli, request);
  if (flag(a, 'json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else {
    for (const line of replyLines(result)) process.stdout.write(line + '\n');
    for (const line of replyNotes(result)) process.stderr.write(line + '\n');
  }
  return result.candidates.length > 0 ? 0 : 1;
}

/** "label: reply" per candidate, best first. */
export function replyLines(r: ReplyResult): string[] {
  return r.candidates.map((c) => `${c.label}: ${c.text}`);
}

export function replyNotes(r: ReplyResult): string[] {
  const keys = r.postKeys.map((k) => `${k.lemma}${k.inMemory ? '' : ' (not in the memory)'}`);
  return [
    ...r.notes.map((n) => `note: ${n.replace('type a key', 'give a key (--key WORD)')}`),
    `keys of the post: ${keys.join(', ') || 'none'}`,
    `${r.architecture} model ${r.stats.model}: ${r.candidates.length} ` +
      `candidate${r.candidates.length === 1 ? '' : 's'}, ${r.stats.usedInputTokens} tokens in, ` +
      `${r.stats.outputTokens} out; ` +
      `encode ${r.stats.encodeMs.toFixed(0)} ms, decode ${r.stats.decodeMs.toFixed(0)} ms on ${r.stats.device}`,
  ];
}

export async function evalReply(
  a: Args,
  cli: CliParts,
  parts: { dataDir: string; variants(fallback: string): { name: string; dir: string }[] },
): Promise<void> {
  const config = cli.engineConfig(a);
  const table = await runReplyEval(
    {
      dataDir: parts.dataDir,
      limit: intFlag(a, 'limit') ?? Infinity,
      variants: parts.variants(`ESED=${modelDir(config.modelsDir, 'reply')}`),
      examples: intFlag(a, 'examples') ?? 3,
      dump: openDump(flag(a, 'dump')),
      guards: guardsFlag(a),
      runtime: { device: config.device, threads: config.threads, log: cli.log },
    },
    (m) => process.stderr.write(`${m}\n`),
  );
  process.stdout.write(table);
}
