/**
 * The options each command takes, from the command table (commands.ts). An option a command does not
 * know (a typo, another command's option, one of another tool) is refused with exit code 2 and the
 * list of the ones it knows, instead of being ignored.
 */
import { EngineError } from '../engine/errors';
import { checkValues, type Args } from './args';
import { COMMANDS, spelled } from './commands';

export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  COMMANDS.map((c) => [c.name, c.options.map((o) => o.name)]),
);

/** How each option is written on the command line (-m/--metrics for sacreBLEU's short spelling). */
const SPELLING: ReadonlyMap<string, string> = new Map(
  COMMANDS.flatMap((c) => c.options.map((o) => [o.name, spelled(o)])),
);
const spelling = (name: string) => SPELLING.get(name) ?? `--${name}`;

/**
 * Refuses (bad-request: exit 2) an option `command` does not take, naming the ones it does; then
 * one given last without its value. A word without spaces that starts with "-" (but a lone "-",
 * standard input) counts as an option: `-x` is a mistyped option, not text; such text goes after
 * "--" or in --text ("-5 degrees today", with its spaces, is text).
 */
export function checkOptions(a: Args, command: string): void {
  const known = COMMAND_OPTIONS[command];
  if (!known) return;
  const unknown = [...a.flags.keys()].filter((f) => f !== 'help' && !known.includes(f)).map(spelling);
  unknown.push(...a.positional.slice(0, a.optionsEnd ?? a.positional.length).filter((p) => /^-\S+$/.test(p)));
  if (unknown.length === 0) {
    checkValues(a);
    return;
  }
  throw new EngineError(
    'bad-request',
    `${command} does not take ${unknown.join(', ')}; its options: ${[...known].sort().map(spelling).join(' ')} (draftsmith --help for what they do)`,
  );
}
