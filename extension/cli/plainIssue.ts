/**
 * A request the protocol's schema refused, said in the option's own words ("--beam must be 1 or
 * more, not 0") rather than the validator's ("Too small: expected number to be >=1").
 */
import type { z } from 'zod';

const bound = (n: unknown, inclusive: boolean | undefined, more: boolean) => {
  const x = typeof n === 'bigint' ? Number(n) : (n as number);
  // An exclusive bound on an integer option reads as the next whole number.
  if (!inclusive && Number.isInteger(x)) return `${more ? x + 1 : x - 1} or ${more ? 'more' : 'less'}`;
  return inclusive === false ? `${more ? 'above' : 'below'} ${x}` : `${x} or ${more ? 'more' : 'less'}`;
};

/** "a, b or c". */
const oneOf = (items: readonly string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');

/** `option`'s problem in `issue`, given `value` (what the command line said, if known). */
export function plainIssue(option: string, issue: z.core.$ZodIssue, value?: unknown): string {
  const given = value === undefined ? '' : `, not ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string' || issue.origin === 'array')
        return `${option} must not be empty${issue.origin === 'array' ? '' : given}`;
      return `${option} must be ${bound(issue.minimum, issue.inclusive, true)}${given}`;
    case 'too_big':
      if (issue.origin === 'string') return `${option} is too long: at most ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `${option} takes at most ${String(issue.maximum)} values`;
      return `${option} must be ${bound(issue.maximum, issue.inclusive, false)}${given}`;
    case 'invalid_type':
      return (
        `${option} must be ` +
        `${issue.expected === 'number' || issue.expected === 'int' ? 'a number' : `a ${issue.expected}`}${given}`
      );
    case 'invalid_value':
      return `${option} must be ${oneOf(issue.values.map((v) => String(v)))}${given}`;
    default:
      return `${option} is not valid${given}`;
  }
}
