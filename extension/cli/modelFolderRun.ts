/**
 * What the commands with modules of their own borrow from cli.ts, so every command reads its
 * options the same way, and the run of the commands whose --model names a model folder.
 */
import * as path from 'node:path';
import type { EngineConfig, EngineRequest, ReplyRequest, RoundTripRequest, ResultFor } from '../protocol';
import { Engine } from '../engine/engine';
import { silentRun } from '../engine/systems/context';
import { loadSystem } from '../engine/systems/registry';
import type { System } from '../engine/systems/system';
import { singleFolder } from '../engine/runtime/modelSource';
import { EngineError } from '../engine/errors';
import { modelChoiceFlag, type Args } from './args';
import { CLI_ENGINE } from './interrupt';

export interface CliParts {
  engineConfig(a: Args): EngineConfig;
  checked<R extends EngineRequest>(request: R): R;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  readStdin(): Promise<string>;
}

/**
 * A reply or round-trip request: with --model DIR, on that folder as it is (any folder the recipe
 * exported, as the evaluations' variants are loaded); otherwise (no --model, or built-in) on the
 * engine's own model. --model takes what it takes for every command; a Hub id is refused here, as
 * no Hub model is a reply or round-trip model.
 */
export async function runOnModelFolder<R extends ReplyRequest | RoundTripRequest>(
  a: Args,
  cli: CliParts,
  request: R,
): Promise<ResultFor<R>> {
  const model = modelChoiceFlag(a, 'model');
  const config = cli.engineConfig(a);
  if (model?.kind === 'hub' || model?.kind === 'gguf') {
    const system = request.op === 'reply' ? 'reply' : 'round-trip';
    const name = model.kind === 'hub' ? model.id : model.file;
    throw new EngineError(
      'bad-request',
      `--model ${name}: ${system} runs Draftsmith's own ${system} models only (built-in, or a folder ` +
        `models/train exported); no ${model.kind === 'hub' ? 'Hub' : 'GGUF'} model is one`,
    );
  }
  if (model === undefined || model.kind === 'built-in') return new Engine(config, cli.log, CLI_ENGINE).run(request);
  // Typed as any system, as the engine holds them: the registry answers the request's op.
  const system: System = await loadSystem(request.op, singleFolder(path.resolve(model.dir)), {
    device: config.device,
    threads: config.threads,
    log: cli.log,
  });
  return (await system.run(request, silentRun)) as ResultFor<R>;
}
