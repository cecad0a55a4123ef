/**
 * `draftsmith rewrite FILE | - | --text TEXT --preset NAME | --instruction TEXT [--model MODEL] [--diff] [--json]`:
 * Rewrite Selection from a terminal. Plain text is one rewrite; a Markdown file (.md) is rewritten
 * block by block (each paragraph and list item on its own, as the editor does at the cursor), so
 * code, front matter, tables and HTML are never sent and are printed as they are. The rewrite, or a
 * unified diff, goes to standard output; the flags and the speed to standard error.
 */
import * as path from 'node:path';
import { RewriteRequest, type ModelChoice, type RewriteResult } from '../protocol';
import { REWRITE_PRESET_NAMES } from '../engine/hub/rewritePresets';
import { Engine } from '../engine/engine';
import { EngineError } from '../engine/errors';
import { formatOf } from '../engine/text/markdown';
import { rewriteBlocks } from '../engine/text/rewriteBlocks';
import { unifiedDiff } from '../engine/text/wordDiff';
import { describeFlags, describeProtected } from '../engine/systems/rewriteText';
import { flag, intFlag, type Args } from './args';
import { commandInput } from './inputText';
import { downloadProgress } from './progressBar';
import type { CliParts } from './modelFolderRun';
import { plainIssue } from './plainIssue';
import { CLI_ENGINE } from './interrupt';

export interface RewriteCliParts extends CliParts {
  modelFlag(a: Args): ModelChoice | undefined;
}

export async function rewriteCommand(a: Args, cli: RewriteCliParts): Promise<void> {
  const input = await commandInput(a, 'rewrite', a.positional.slice(1), {
    acceptsText: false,
    missing: 'rewrite needs a FILE (use - for standard input, or --text "...")',
  });
  const preset = flag(a, 'preset');
  const instruction = flag(a, 'instruction');
  if ((preset === undefined) === (instruction === undefined))
    throw new EngineError('bad-request', 'rewrite needs --preset NAME or --instruction TEXT (one of the two)');
  const file = input.origin === 'file' ? a.positional[1] : undefined;
  const text = input.text;
  // A Markdown file: its prose blocks, each rewritten alone; plain text: the whole of it.
  const blocks =
    file !== undefined && formatOf(file) === 'markdown'
      ? rewriteBlocks(text)
      : [{ span: { start: 0, end: text.length }, text }];
  if (blocks.length === 0)
    throw new EngineError('bad-input', `${path.basename(file ?? '')} has no paragraph or list item to rewrite.`);
  const model = cli.modelFlag(a);
  if (model === undefined || model.kind === 'built-in')
    throw new EngineError(
      'bad-request',
      `rewrite needs an instruct model: ` +
        (model === undefined
          ? 'give --model '
          : "--model built-in names Draftsmith's own models, which follow no instructions; give ") +
        `a Hub model id such as HuggingFaceTB/SmolLM2-360M-Instruct, or such a folder`,
    );
  const engine = new Engine(cli.engineConfig(a), cli.log, CLI_ENGINE);
  const download = downloadProgress(() => model?.kind === 'hub');
  const results: RewriteResult[] = [];
  try {
    for (const [k, block] of blocks.entries()) {
      if (blocks.length > 1) process.stderr.write(`rewriting block ${k + 1} of ${blocks.length}…\n`);
      // The protocol's schema reads the options as the worker would (a preset name it does not know is refused).
      const parsed = RewriteRequest.safeParse({
        op: 'rewrite',
        text: block.text,
        origin: input.origin,
        ...(preset !== undefined ? { preset } : { instruction }),
        maxTokens: intFlag(a, 'max-tokens'),
        model,
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const option = issue.path[0] === 'preset' ? `--preset must be one of ${REWRITE_PRESET_NAMES}` : '';
        const name = issue.path[0] === 'maxTokens' ? '--max-tokens' : `--${String(issue.path[0] ?? 'option')}`;
        throw new EngineError('bad-request', option || plainIssue(name, issue));
      }
      const request = cli.checked(parsed.data);
      results.push(await engine.run(request, { progress: download.progress }));
    }
  } finally {
    download.done();
  }
  // The document with each block's span replaced by its rewrite; the rest as it was.
  let rewritten = '';
  let at = 0;
  blocks.forEach((b, k) => {
    rewritten += text.slice(at, b.span.start) + results[k].rewrite;
    at = b.span.end;
  });
  rewritten += text.slice(at);
  if (flag(a, 'json') !== undefined) {
    process.stdout.write(JSON.stringify(blocks.length === 1 ? results[0] : results, null, 2) + '\n');
  } else if (flag(a, 'diff') !== undefined) {
    const name = file ?? (input.source === 'stdin' ? '-' : 'text');
    process.stdout.write(unifiedDiff(text, rewritten, { from: name, to: `${name} (rewritten)` }));
  } else {
    process.stdout.write(rewritten.endsWith('\n') ? rewritten : `${rewritten}\n`);
  }
  for (const [k, r] of results.entries()) {
    const where = blocks.length > 1 ? `block ${k + 1}: ` : '';
    for (const line of describeFlags(r.flags)) process.stderr.write(`warning: ${where}${line}\n`);
    const kept = describeProtected(r.protectedChanges);
    if (kept) process.stderr.write(`note: ${where}${kept}\n`);
    if (r.stripped.length)
      process.stderr.write(
        `note: ${where}removed from the reply: ${r.stripped.map((s) => JSON.stringify(s)).join(', ')}\n`,
      );
    if (r.hitMaxLength)
      process.stderr.write(
        `note: ${where}the rewrite stopped at ${r.hitMaxLength.maxLength} tokens before the model ended it ` +
          `(--max-tokens)\n`,
      );
  }
  const last = results[results.length - 1];
  const tokens = results.reduce((n, r) => n + r.stats.outputTokens, 0);
  process.stderr.write(
    `${last.stats.model} on ${last.stats.device}: ${results.length} rewrite${results.length > 1 ? 's' : ''}, ` +
      `${tokens} tokens; ` +
      (`first token after ${Math.round(results[0].firstTokenMs)} ms, ${last.stats.tokensPerSecond.toFixed(1)} ` +
        `tokens/s\n`),
  );
}
