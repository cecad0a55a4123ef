/**
 * The options each command takes, from the command table (commands.ts), and the checks every
 * command line passes before any work starts: an option the command does not know (a typo, another
 * command's option, one of another tool) is refused with exit code 2, the list of the ones it knows
 * and the nearest one ("did you mean --mode?"); so are an option given twice with two values,
 * options that exclude each other, and a number out of its range. A former option name still works,
 * with a note.
 */
import { EngineError } from '../engine/errors';
import { checkValues, type Args } from './args';
import { COMMANDS, spelled, type OptionSpec } from './commands';
import { nearest } from './suggest';

export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  COMMANDS.map((c) => [c.name, c.options.map((o) => o.name)]),
);

/** How each option is written on the command line (-m/--metrics for sacreBLEU's short spelling). */
const SPELLING: ReadonlyMap<string, string> = new Map(
  COMMANDS.flatMap((c) => c.options.map((o) => [o.name, spelled(o)])),
);
const spelling = (name: string) => SPELLING.get(name) ?? `--${name}`;

/** "a and b", "a, b and c". */
export const listed = (items: readonly string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '');

/**
 * Former option names, renamed to their option (in `a`) with a note each: "--max-length is now
 * --max-tokens". A former name for --text given "-" (story's --prompt -) is standard input, as "-"
 * is for every command.
 */
function renameFormer(a: Args, options: readonly OptionSpec[], commandWords: number): string[] {
  const notes: string[] = [];
  for (const o of options)
    for (const old of o.formerly ?? []) {
      const values = a.flags.get(old);
      if (values === undefined) continue;
      a.flags.delete(old);
      notes.push(`note: --${old} is now --${o.name}; the old name will go in a future release`);
      if (o.name === 'text' && values.at(-1) === '-') {
        a.positional.splice(commandWords, 0, '-');
        if (a.optionsEnd !== undefined) a.optionsEnd++;
        continue;
      }
      a.flags.set(o.name, [...(a.flags.get(o.name) ?? []), ...values]);
      a.needsValue = a.needsValue?.map((n) => (n === old ? o.name : n));
    }
  return notes;
}

/** A number option's value, checked against its kind and range, in the option's own words. */
function checkNumber(o: OptionSpec, value: string): void {
  const n = Number(value);
  const name = spelled(o);
  const kind = o.kind === 'integer' ? 'a whole number' : 'a number';
  if (value.trim() === '' || !Number.isFinite(n) || (o.kind === 'integer' && !Number.isInteger(n)))
    throw new EngineError('bad-request', `${name} must be ${kind}, not "${value}"`);
  const { min, max } = o;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const range =
      min !== undefined && max !== undefined
        ? `between ${min} and ${max}`
        : min !== undefined
          ? `${min} or more`
          : `${max} or less`;
    throw new EngineError('bad-request', `${name} must be ${range}, not ${value}`);
  }
}

/**
 * Refuses (bad-request: exit 2) an option `command` does not take, naming the ones it does and the
 * nearest; then one given last without its value, one given twice with different values, options
 * that exclude each other, and a number out of range. A word without spaces that starts with "-"
 * (but a lone "-", standard input) counts as an option: `-x` is a mistyped option, not text; such
 * text goes after "--" or in --text ("-5 degrees today", with its spaces, is text). Returns the
 * notes for standard error (former option names).
 */
export function checkOptions(a: Args, command: string): string[] {
  const spec = COMMANDS.find((c) => c.name === command);
  if (!spec) return [];
  const notes = renameFormer(a, spec.options, command.split(' ').length);
  const known = spec.options.map((o) => o.name);
  const unknown = [...a.flags.keys()]
    .filter((f) => f !== 'help' && f !== 'version' && !known.includes(f))
    .map(spelling);
  unknown.push(...a.positional.slice(0, a.optionsEnd ?? a.positional.length).filter((p) => /^-\S+$/.test(p)));
  if (unknown.length > 0) {
    const guesses = unknown.map((u) => {
      const guess = nearest(u.replace(/^-+/, ''), known);
      return guess !== undefined ? `${u} (did you mean ${spelling(guess)}?)` : u;
    });
    throw new EngineError(
      'bad-request',
      `${command} does not take ${guesses.join(', ')}; its options: ` +
        `${[...known].sort().map(spelling).join(' ')} (draftsmith ${command} --help for what they do)`,
    );
  }
  checkValues(a);
  for (const o of spec.options) {
    const values = a.flags.get(o.name);
    if (!values?.length) continue;
    if (!o.repeatable && o.kind !== 'words' && o.kind !== 'flag' && new Set(values).size > 1)
      throw new EngineError(
        'bad-request',
        `${spelled(o)} was given ${values.length === 2 ? 'twice' : `${values.length} times`} ` +
          `(${values.map((v) => JSON.stringify(v)).join(', ')}): give it once`,
      );
    if (o.kind === 'integer' || o.kind === 'number') for (const v of values) checkNumber(o, v);
  }
  for (const group of spec.exclusive ?? []) {
    const given = group.filter((name) => a.flags.has(name));
    if (given.length > 1)
      throw new EngineError('bad-request', `${listed(given.map(spelling))} cannot go together: give one of them`);
  }
  return notes;
}
