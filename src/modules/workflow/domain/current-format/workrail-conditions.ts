import { isPlainObject, readPath } from '../context-path';
import { COMPARISON_OPERATORS } from '../conditions';
import type { EvaluateOtherCondition } from '../conditions';

/**
 * Conditions in current-format files behave as WorkRail evaluates them, since those files were written against it:
 * - equality is lenient: strings compare trimmed and case-insensitively, a numeric string equals its number,
 *   `"yes"/"true"/"1"` equal `true` (and `"no"/"false"/"0"` equal `false`), null and a missing variable are equal;
 * - so `not_equals` on a missing variable is true (classic files: false) and `equals: null` matches a missing one;
 * - `gt/gte/lt/lte` hold only for a number (a numeric string is false);
 * - `contains` is a case-insensitive substring test on the value as text (an array is read as its items joined by
 *   commas, as `String([...])` gives), `in` is lenient equality with any item;
 * - `{var}` alone is the variable's truthiness;
 * - only the first operator of a comparison counts (in the order equals, not_equals, gt, gte, lt, lte, contains, in).
 * Anything that is not this form (JSON Logic) goes to `other`, as in classic files.
 */
export function evaluateWorkrailCondition(condition: unknown, context: Record<string, unknown>, other: EvaluateOtherCondition): boolean {
  if (condition === undefined || condition === null) return true;
  if (typeof condition === 'boolean') return condition;
  if (!isPlainObject(condition)) return other(condition, context);
  if (Object.keys(condition).length === 0) return true;
  if (typeof condition.var === 'string' && Object.keys(condition).every((k) => k === 'var' || OPERATORS.has(k))) {
    return comparison(condition, readPath(context, condition.var));
  }
  if (Array.isArray(condition.and)) return condition.and.every((c) => evaluateWorkrailCondition(c, context, other));
  if (Array.isArray(condition.or)) return condition.or.some((c) => evaluateWorkrailCondition(c, context, other));
  if ('not' in condition && Object.keys(condition).length === 1) {
    const inner = Array.isArray(condition.not) && condition.not.length === 1 ? condition.not[0] : condition.not;
    return !evaluateWorkrailCondition(inner, context, other);
  }
  return other(condition, context);
}

const OPERATORS: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);

function comparison(c: Record<string, unknown>, value: unknown): boolean {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(c, k);
  if (has('equals')) return lenientEquals(value, c.equals);
  if (has('not_equals')) return !lenientEquals(value, c.not_equals);
  if (c.gt !== undefined) return typeof value === 'number' && value > (c.gt as number);
  if (c.gte !== undefined) return typeof value === 'number' && value >= (c.gte as number);
  if (c.lt !== undefined) return typeof value === 'number' && value < (c.lt as number);
  if (c.lte !== undefined) return typeof value === 'number' && value <= (c.lte as number);
  if (c.contains !== undefined) return asText(value).toLowerCase().includes(asText(c.contains).toLowerCase());
  if (c.in !== undefined) return Array.isArray(c.in) && c.in.some((item) => lenientEquals(value, item));
  return Boolean(value);
}

/** WorkRail's equality: see evaluateWorkrailCondition. */
export function lenientEquals(a: unknown, b: unknown): boolean {
  if (a == null && b == null) return true;
  if (a == null || b == null) return false;
  if (typeof a === 'string' && typeof b === 'string') return a.trim().toLowerCase() === b.trim().toLowerCase();
  if ((typeof a === 'string' && typeof b === 'number') || (typeof a === 'number' && typeof b === 'string')) {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x === y;
  }
  if (typeof a === 'string' && typeof b === 'boolean') return truthWord(a) === b;
  if (typeof a === 'boolean' && typeof b === 'string') return truthWord(b) === a;
  return a === b;
}

function truthWord(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'true' || t === '1' || t === 'yes') return true;
  if (t === 'false' || t === '0' || t === 'no') return false;
  return undefined;
}

function asText(value: unknown): string {
  return value == null ? '' : String(value).trim();
}
