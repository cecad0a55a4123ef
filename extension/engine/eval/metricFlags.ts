/**
 * How `draftsmith score` offers a metric of the metric list: its `-m` names and its flags, each flag
 * read into the metric's own options. The CLI's command table, its `-m` parser, its help and
 * docs/cli.md read these from the list's entries; here only the types and the one reader.
 *
 * Pure (the panel's page bundles the list): the reader gets each flag's raw value from its caller.
 */
import { EngineError } from '../errors';
import type { StatMetric } from '../metrics/significance';
import type { MetricOptions } from './scoreOptions';

interface FlagBase {
  /** Its name without the dashes (`chrf-beta`): unique over the list and the command's own options. */
  name: string;
  /** What it does, as `score --help` says it. */
  description: string;
  /** The default as help states it: what the metric does without the flag. */
  default?: string;
  /**
   * Its field in the metric's signature (sacreBLEU's `tok`, `case`): a value other than the default
   * shows there. Absent: the signature does not show it.
   */
  signature?: string;
  /**
   * Where it applies: 'tables' only to the full table and a folder's (refused with -m, several
   * systems or the paired tests); 'named' only when its metric is named with -m; absent: everywhere.
   */
  appliesTo?: 'tables' | 'named';
}

/** A flag that sets option K of O: its kind follows the option's type. */
type FlagOf<O, K extends keyof O> =
  NonNullable<O[K]> extends boolean
    ? { kind: 'flag' }
    : NonNullable<O[K]> extends number
      ? { kind: 'integer' | 'number'; value: string; min?: number }
      : NonNullable<O[K]> extends string
        ? {
            kind: 'text';
            value: string;
            /** The values it takes (absent: any text), in the order a refusal lists them. */
            choices?: readonly NonNullable<O[K]>[];
            /** Said after a refused value (what the reference tool takes that is not here). */
            refusal?: string;
          }
        : never;

/** A flag of a metric with options O. */
export type MetricFlag<O> = { [K in keyof O]-?: FlagBase & { key: K } & FlagOf<O, K> }[keyof O];

/** A flag as the command table needs it, whatever options it sets. */
export type FlagSpec = FlagBase & {
  kind: 'flag' | 'text' | 'integer' | 'number';
  value?: string;
  min?: number;
  choices?: readonly string[];
  refusal?: string;
};

/** What the sacreBLEU workflow (`-m`) knows of a run. */
export interface NamedRun {
  /** Segments have different numbers of references. */
  varyingReferences: boolean;
}

/** One statistic's details beside its score: sacreBLEU's verbose line part and its JSON fields. */
export interface ScoreDetails {
  text: string;
  fields: Record<string, number | readonly number[]>;
}

/** How a metric with options O is offered on the command line. */
export interface MetricCliSpec<O> {
  /** How messages name it: BLEU, ROUGE. */
  name: string;
  /**
   * Its `-m` names (matched without regard to case), each with the parts it scores: one statistic
   * each (rouge: its four types; rouge1: one). Absent: no `-m` (the full table has it, or a flag adds it).
   */
  names?: Readonly<Record<string, readonly string[]>>;
  /** What `-m` gives with it: the `-m` option's help. */
  help?: string;
  /** Said when an unknown `-m` name is refused: how to ask for a variant. */
  hint?: string;
  flags: readonly MetricFlag<O>[];
  /** Checks the options together (a refusal), and notes for standard error. */
  check?(o: O): string[];
  /**
   * Score Draft's options from its flags, for the full table and a folder's; `named`: it was named
   * with -m (a folder's chrF and TER columns).
   */
  options?(o: O, named: boolean): Partial<MetricOptions>;
  /** The sacreBLEU workflow: the statistics of its parts, in their order. */
  stat?(o: O, parts: readonly string[], run: NamedRun): StatMetric[];
  /** Its options for one segment (--sentence-level, --worst), as sacreBLEU's (BLEU: effective order). */
  segment?(o: O): O;
  /** Details beside a part's score, from its summed statistics (BLEU's precisions and lengths). */
  details?(o: O, part: string, stats: ArrayLike<number>): ScoreDetails;
  /** Its statistics need the same number of references for every segment (sacreBLEU's metrics). */
  sameReferenceCount?: boolean;
}

/** A metric's CLI with its options read: what the command runs. */
export interface MetricCliRun {
  notes: string[];
  options(named: boolean): Partial<MetricOptions>;
  stat(parts: readonly string[], run: NamedRun, segment?: boolean): StatMetric[];
  details?(part: string, stats: ArrayLike<number>, segment?: boolean): ScoreDetails;
}

/** A metric's CLI, its options' type hidden: the list holds metrics of different options. */
export interface MetricCli extends Omit<
  MetricCliSpec<unknown>,
  'flags' | 'check' | 'options' | 'stat' | 'segment' | 'details'
> {
  flags: readonly FlagSpec[];
  /** Reads its flags (`raw`: a flag's value as given, undefined when not given) and checks them. */
  read(raw: (name: string) => string | undefined): MetricCliRun;
  /** Whether it scores in the sacreBLEU workflow (it has `-m` names and statistics). */
  scoresNamed: boolean;
}

/** A flag's value from its text: a number in range, one of its choices, or true for a switch. */
function parseFlag(f: FlagSpec, text: string): string | number | boolean {
  if (f.kind === 'flag') return true;
  if (f.kind === 'text') {
    if (f.choices && !f.choices.includes(text))
      throw new EngineError(
        'bad-request',
        `--${f.name} must be one of ${f.choices.join(', ')}, not "${text}"${f.refusal ? ` ${f.refusal}` : ''}`,
      );
    return text;
  }
  const n = Number(text);
  const whole = f.kind === 'integer';
  if (!(whole ? Number.isInteger(n) : Number.isFinite(n)))
    throw new EngineError('bad-request', `--${f.name} must be ${whole ? 'a whole number' : 'a number'}, not "${text}"`);
  if (f.min !== undefined && !(n >= f.min))
    throw new EngineError(
      'bad-request',
      whole
        ? `--${f.name} must be a whole number ≥ ${f.min}, not ${n}`
        : `--${f.name} must be ${f.min} or more, not ${n}`,
    );
  return n;
}

/** The list's entry for a metric's CLI: its spec with the reader that sets its options from its flags. */
export function metricCli<O extends object>(spec: MetricCliSpec<O>): MetricCli {
  const { flags, check, options, stat, segment, details, ...rest } = spec;
  const read = (raw: (name: string) => string | undefined): MetricCliRun => {
    const o = {} as O;
    for (const f of flags as readonly (FlagSpec & { key: keyof O })[]) {
      const text = raw(f.name);
      if (text !== undefined) Object.assign(o, { [f.key]: parseFlag(f, text) });
    }
    const notes = check?.(o) ?? [];
    const optionsFor = (seg?: boolean) => (seg && segment ? segment(o) : o);
    return {
      notes,
      options: (named) => options?.(o, named) ?? {},
      stat: (parts, run, seg) => stat?.(optionsFor(seg), parts, run) ?? [],
      ...(details ? { details: (part, stats, seg) => details(optionsFor(seg), part, stats) } : {}),
    };
  };
  return {
    ...rest,
    flags: flags as readonly FlagSpec[],
    read,
    scoresNamed: spec.names !== undefined && stat !== undefined,
  };
}
