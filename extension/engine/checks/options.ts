/**
 * The checks' settings as they arrive from outside (VS Code's settings, the CLI's flags), parsed
 * with zod: a bad value falls back to its default instead of failing the check, since a typo in
 * settings.json should not turn the checks off.
 */
import { z } from 'zod';
import type { CheckerConfig } from './checker';
import { DEFAULT_DIALECT, DIALECTS, type Dialect } from './dialects';
import {
  DEFAULT_GRAMMAR_RULES_OFF,
  FAMILIES,
  FAMILY_NAMES,
  RULE_SETTINGS,
  type Family,
  type RuleSetting,
} from './rules';

const RuleSettingSchema = z.enum(RULE_SETTINGS as [RuleSetting, ...RuleSetting[]]);
const RuleName = z.string().min(1).max(100);

/** The raw settings: one entry per family's setting name, the Harper rules turned off, and the dialect. */
export type RawCheckSettings = Partial<Record<string, unknown>>;

/**
 * The checker's configuration from raw settings (keys: each family's `setting`, grammarRulesOff and
 * dialect) and the dictionaries' words.
 */
export function checkerConfigFrom(raw: RawCheckSettings, words: readonly string[] = []): CheckerConfig {
  const rules = {} as Record<Family, RuleSetting>;
  for (const f of FAMILY_NAMES) rules[f] = RuleSettingSchema.catch(FAMILIES[f].default).parse(raw[FAMILIES[f].setting]);
  const off = z
    .array(z.unknown())
    .catch([])
    .parse(raw.grammarRulesOff)
    .flatMap((r) => {
      const p = RuleName.safeParse(r);
      return p.success ? [p.data.trim()] : [];
    });
  return {
    rules,
    grammarRulesOff:
      raw.grammarRulesOff === undefined ? [...DEFAULT_GRAMMAR_RULES_OFF] : [...new Set(off)].slice(0, 2000),
    words: z.array(z.string()).catch([]).parse(words),
    dialect: z
      .enum(DIALECTS as unknown as [Dialect, ...Dialect[]])
      .catch(DEFAULT_DIALECT)
      .parse(raw.dialect),
  };
}
