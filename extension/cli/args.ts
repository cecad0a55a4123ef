/** Command-line arguments: positionals and repeatable --flags (value inline, next, or boolean). */
import { statSync } from 'node:fs';
import { EngineError } from '../engine/errors';
import { parseModelChoice } from '../modelChoice';
import type { ModelChoice } from '../protocol';
import { COMMANDS } from './commands';

export interface Args {
  positional: string[];
  flags: Map<string, string[]>;
  /**
   * Set after "--" (the end of the options): positional[optionsEnd...] came after it, as text even when
   * they start with "-".
   */
  optionsEnd?: number;
  /**
   * Options given last without the value they take ("--limit" at the end): reported once the command is
   * known to take them.
   */
  needsValue?: string[];
}

/** Options that take no value, from the command table; --help and --version go with every command. */
const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'help',
  'version',
  ...COMMANDS.flatMap((c) => c.options.filter((o) => o.kind === 'flag').map((o) => o.name)),
]);
/** Options that take every following word up to the next option, as sacreBLEU's `-m bleu chrf`. */
const MULTI_VALUE_FLAGS: ReadonlySet<string> = new Set(
  COMMANDS.flatMap((c) => c.options.filter((o) => o.kind === 'words').map((o) => o.name)),
);
/** Short spellings: sacreBLEU's -m for --metrics. */
const SHORT_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  COMMANDS.flatMap((c) => c.options.flatMap((o) => (o.short ? [[o.short, o.name]] : []))),
);

export function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  const needsValue: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      // The end of the options: the rest are words, even those that start with "-".
      const optionsEnd = positional.length;
      positional.push(...argv.slice(i + 1));
      return { positional, flags, optionsEnd, ...(needsValue.length ? { needsValue } : {}) };
    }
    const short = SHORT_FLAGS[a];
    const multi = short ?? (a.startsWith('--') ? a.slice(2) : undefined);
    if (multi !== undefined && MULTI_VALUE_FLAGS.has(multi) && !multi.includes('=')) {
      const values: string[] = [];
      while (i + 1 < argv.length && !argv[i + 1].startsWith('-')) values.push(argv[++i]);
      if (values.length === 0) throw new EngineError('bad-request', `${a} needs at least one value`);
      flags.set(multi, [...(flags.get(multi) ?? []), ...values]);
    } else if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2);
      const value = inline ?? (BOOLEAN_FLAGS.has(name) ? 'true' : argv[++i]);
      if (value === undefined) needsValue.push(name);
      flags.set(name, [...(flags.get(name) ?? []), ...(value === undefined ? [] : [value])]);
    } else positional.push(a);
  }
  return { positional, flags, ...(needsValue.length ? { needsValue } : {}) };
}

/** "--name needs a value" (bad-request) for an option given last without its value. */
export function checkValues(a: Args): void {
  if (a.needsValue?.length) throw new EngineError('bad-request', `--${a.needsValue[0]} needs a value`);
}

export const flag = (a: Args, name: string) => a.flags.get(name)?.at(-1);

/** --no-guards: the paper's plain decoding (draftsmith.decoding.guards off); the guards are on otherwise. */
export const guardsFlag = (a: Args): boolean => flag(a, 'no-guards') === undefined;

/** --name's value as a number that passes `ok` (`what` names the kind in the message). */
function numeric(a: Args, name: string, ok: (n: number) => boolean, what: string): number | undefined {
  const v = flag(a, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!ok(n)) throw new EngineError('bad-request', `--${name} must be ${what}, not "${v}"`);
  return n;
}

export const numberFlag = (a: Args, name: string) => numeric(a, name, Number.isFinite, 'a number');
export const intFlag = (a: Args, name: string) => numeric(a, name, Number.isInteger, 'a whole number');

/**
 * A model flag (--model, --bertscore-model): built-in, a Hub id (owner/name[@revision]) or a folder
 * relative to the working directory; undefined when not given.
 */
export function modelChoiceFlag(a: Args, name: string): ModelChoice | undefined {
  const value = flag(a, name);
  if (value === undefined) return undefined;
  const isDirectory = (p: string) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const parsed = parseModelChoice(value, isDirectory, { cwd: process.cwd() });
  if ('error' in parsed) throw new EngineError('bad-request', `--${name}: ${parsed.error}`);
  return parsed.choice;
}
