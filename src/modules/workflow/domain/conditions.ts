import { ExpressionError } from '../../../kernel/errors';
import { isPlainObject, jsonEqual, readPath } from './context-path';
import type { ComparisonCondition, Condition } from './types';

/** Evaluates a condition against a context. Step resolution and validation take one of these (the domain has no JSON Logic). */
export type EvaluateCondition = (condition: Condition, context: Record<string, unknown>) => boolean;

/** Evaluates an object that is not in the comparison form (JSON Logic) and answers its truthiness. */
export type EvaluateOtherCondition = (logic: unknown, context: Record<string, unknown>) => boolean;

/** The comparison operators of the `{var, <operator>: value}` form. */
export const COMPARISON_OPERATORS = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'in', 'contains'] as const;
type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
const OPERATOR_SET: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);

/**
 * Whether `value` is the comparison form: a string `var` plus at least one comparison operator. `{var: "x"}` alone is
 * JSON Logic (the value's truthiness), as is `{var: ["x", default]}`.
 * @throws ExpressionError when a string `var` sits beside a key that is no operator (`{var, equal: 1}`): JSON Logic
 *   would treat such an object as data and call it true, so a typo would silently pass.
 */
export function isComparisonCondition(value: unknown): value is ComparisonCondition {
  if (!isPlainObject(value) || typeof value.var !== 'string') return false;
  const others = Object.keys(value).filter((k) => k !== 'var');
  if (others.length === 0) return false;
  const unknown = others.filter((k) => !OPERATOR_SET.has(k));
  if (unknown.length > 0) {
    throw new ExpressionError(
      `condition on '${value.var}' has unknown operator '${unknown[0]}'; expected one of ${COMPARISON_OPERATORS.join(', ')}`,
    );
  }
  return true;
}

/**
 * Evaluates a condition: the comparison form (a missing variable makes a comparison false, never an exception),
 * combined with `and` (every), `or` (some) and `not` (negation; `{not: [c]}` is read as `{not: c}`); anything else
 * goes to `other` (JSON Logic). An absent condition (undefined/null) is true.
 */
export function evaluateCondition(
  condition: unknown,
  context: Record<string, unknown>,
  other: EvaluateOtherCondition,
): boolean {
  if (condition === undefined || condition === null) return true;
  if (typeof condition === 'boolean') return condition;
  if (isPlainObject(condition)) {
    const keys = Object.keys(condition);
    if (keys.length === 1) {
      const [key] = keys;
      const operand = condition[key];
      if ((key === 'and' || key === 'or') && Array.isArray(operand)) {
        return key === 'and'
          ? operand.every((c) => evaluateCondition(c, context, other))
          : operand.some((c) => evaluateCondition(c, context, other));
      }
      if (key === 'not') {
        const inner = Array.isArray(operand) && operand.length === 1 ? operand[0] : operand;
        return !evaluateCondition(inner, context, other);
      }
    }
    if (isComparisonCondition(condition)) return evaluateComparison(condition, context);
  }
  return other(condition, context);
}

/** `{var, op: value, ...}`: every operator present must hold; a missing variable makes it false. */
export function evaluateComparison(condition: ComparisonCondition, context: Record<string, unknown>): boolean {
  const actual = readPath(context, condition.var);
  if (actual === undefined) return false;
  for (const op of COMPARISON_OPERATORS) {
    if (!Object.prototype.hasOwnProperty.call(condition, op)) continue;
    if (!compare(op, actual, (condition as unknown as Record<string, unknown>)[op])) return false;
  }
  return true;
}

function compare(op: ComparisonOperator, actual: unknown, expected: unknown): boolean {
  switch (op) {
    case 'equals':
      return jsonEqual(actual, expected);
    case 'not_equals':
      return !jsonEqual(actual, expected);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return order(op, actual, expected);
    case 'in':
      if (Array.isArray(expected)) return expected.some((x) => jsonEqual(actual, x));
      return typeof expected === 'string' && typeof actual === 'string' && expected.includes(actual);
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      if (Array.isArray(actual)) return actual.some((x) => jsonEqual(x, expected));
      return false;
  }
}

/**
 * Ordering: numbers numerically (a numeric string beside a number is read as a number, since agents often store
 * counts as text), two strings lexicographically; anything else is false.
 */
function order(op: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: unknown): boolean {
  let a = actual;
  let b = expected;
  if (typeof a === 'number' && typeof b === 'string') b = toNumber(b);
  else if (typeof a === 'string' && typeof b === 'number') a = toNumber(a);
  const comparable =
    (typeof a === 'number' && typeof b === 'number' && !Number.isNaN(a) && !Number.isNaN(b)) ||
    (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (op) {
    case 'gt':
      return x > y;
    case 'gte':
      return x >= y;
    case 'lt':
      return x < y;
    case 'lte':
      return x <= y;
  }
}

function toNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
