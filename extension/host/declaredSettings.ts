/**
 * The draftsmith.* settings as package.json declares them (contributes.configuration): the one
 * place each default, range and list of values is written. The host reads every setting through
 * here, so settings.json edited by hand (a value out of range, of the wrong type, a misspelt choice)
 * gives package.json's default, as the Settings UI would. A key package.json does not declare is a
 * programming error: it throws, and the settings test names it.
 */
import { contributes } from '../../package.json';

/** What package.json says of one setting (the JSON-schema keywords VS Code reads). */
export interface Declared {
  type?: string | readonly string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: readonly unknown[];
  items?: { type?: string; enum?: readonly unknown[] };
  minItems?: number;
  scope?: string;
}

export const DECLARED: Readonly<Record<string, Declared>> = contributes.configuration.properties;

/** package.json's declaration of draftsmith.<key>. */
export function declared(key: string): Declared {
  const d = DECLARED[`draftsmith.${key}`];
  if (d === undefined) throw new Error(`draftsmith.${key} is read but not declared in package.json`);
  return d;
}

const inRange = (x: number, d: Declared) =>
  Number.isFinite(x) && (d.minimum === undefined || x >= d.minimum) && (d.maximum === undefined || x <= d.maximum);
const isNumberIn = (v: unknown, d: Declared) => typeof v === 'number' && inRange(v, d);

/** The settings of one configuration section (vscode's WorkspaceConfiguration, or a test's). */
export interface SettingValues {
  get(key: string): unknown;
  /** Where a value was set; without it, nothing counts as set by the user. */
  inspect?(
    key: string,
  ): { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined;
}

/** Reads settings checked against their declarations; whatever does not fit is the declared default. */
export function declaredSettings(cfg: SettingValues) {
  const read = <T>(key: string, fits: (value: unknown, d: Declared) => boolean): T => {
    const d = declared(key);
    const value = cfg.get(key);
    return (fits(value, d) ? value : d.default) as T;
  };
  /** The value the user (or a workspace) set, when it fits; undefined where the default holds. */
  const set = <T>(key: string, fits: (value: unknown, d: Declared) => boolean): T | undefined => {
    const d = declared(key);
    const i = cfg.inspect?.(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    return fits(value, d) ? (value as T) : undefined;
  };
  const isIntIn = (v: unknown, d: Declared) => Number.isInteger(v) && isNumberIn(v, d);
  return {
    /** A whole number within the declared range. */
    int: (key: string): number => read(key, isIntIn),
    /** A whole number the user set, within the declared range; undefined: unset (the model's own default applies). */
    setInt: (key: string): number | undefined => set(key, isIntIn),
    /** A number the user set, within the declared range; undefined: unset. */
    setNumber: (key: string): number | undefined => set(key, isNumberIn),
    /** A number within the declared range. */
    number: (key: string): number => read(key, isNumberIn),
    /** A number within the declared range, or null (a setting whose default is null: unset). */
    optionalNumber: (key: string): number | null => read(key, isNumberIn),
    /** One of the declared values. */
    oneOf: <T extends string>(key: string): T => read(key, (v, d) => (d.enum ?? []).includes(v)),
    flag: (key: string): boolean => read(key, (v) => typeof v === 'boolean'),
    /** A list of the declared item values, as long as declared at least; duplicates dropped. */
    list: <T extends string>(key: string): T[] => [
      ...new Set(
        read<T[]>(
          key,
          (v, d) =>
            Array.isArray(v) &&
            v.length >= (d.minItems ?? 0) &&
            v.every((x) => d.items?.enum === undefined || d.items.enum.includes(x)),
        ),
      ),
    ],
    /** The value when it differs from the declared default (a request then carries it), else undefined. */
    changed: <T>(key: string, value: T): T | undefined => (value === declared(key).default ? undefined : value),
  };
}
