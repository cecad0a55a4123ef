/**
 * The English dialects the checks know, as Harper names them: the speller reads the dialect's
 * dictionary (cspellDictionaries.ts) and Harper its rules (harper.ts maps them to harper.js's
 * numbers). Data only: the CLI's command table and the settings read it without the engine.
 */
export const DIALECTS = ['American', 'British', 'Canadian', 'Australian'] as const;
export type Dialect = (typeof DIALECTS)[number];
export const DEFAULT_DIALECT: Dialect = 'American';
