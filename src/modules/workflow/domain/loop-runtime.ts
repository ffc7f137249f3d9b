import { InvalidArgumentsError, InvalidWorkflowError } from '../../../kernel/errors';
import { readPath } from './context-path';
import type { EvaluateCondition } from './conditions';
import type { LoopStep } from './types';

/**
 * What a loop needs from the context at one iteration: whether it runs, and the variables it binds.
 */

/** The variables a loop binds at iteration i: indexVar = i, iterationVar = i + 1, itemVar = the item (forEach). */
export function loopBindings(loop: LoopStep, iteration: number, item: { value: unknown } | undefined): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  const { indexVar, iterationVar, itemVar } = loop.loop;
  if (indexVar) bound[indexVar] = iteration;
  if (iterationVar) bound[iterationVar] = iteration + 1;
  if (itemVar && item) bound[itemVar] = item.value;
  return bound;
}

/**
 * The array a forEach loop iterates over: `items` names a context array (dotted path).
 * @throws InvalidArgumentsError naming `context.<items>` when it is missing or not an array — the agent is expected
 *   to put it there before the loop starts.
 */
export function forEachItems(workflowId: string, loop: LoopStep, context: Record<string, unknown>): unknown[] {
  const name = loop.loop.items;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidWorkflowError(workflowId, undefined, `forEach loop '${loop.id}' needs 'items' (the name of a context array)`);
  }
  const value = readPath(context, name);
  if (!Array.isArray(value)) {
    throw new InvalidArgumentsError(
      `context.${name} must be an array for forEach loop '${loop.id}' (got ${describe(value)}); put the list in the context before the loop starts`,
      `context.${name}`,
    );
  }
  return value;
}

/**
 * How many iterations a `for` loop runs: `count` is a number or the name of a context variable holding one (a numeric
 * string is accepted). Fractions are rounded down; negative counts run zero times.
 * @throws InvalidArgumentsError naming `context.<count>` when the variable is missing or not a number.
 */
export function forCount(workflowId: string, loop: LoopStep, context: Record<string, unknown>): number {
  const count = loop.loop.count;
  if (typeof count === 'number') return Math.max(0, Math.floor(count));
  if (typeof count !== 'string' || count === '') {
    throw new InvalidWorkflowError(workflowId, undefined, `for loop '${loop.id}' needs 'count' (a number or a context variable name)`);
  }
  const value = readPath(context, count);
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) {
    throw new InvalidArgumentsError(
      `context.${count} must be a number for for-loop '${loop.id}' (got ${describe(value)})`,
      `context.${count}`,
    );
  }
  return Math.max(0, Math.floor(n));
}

/** The loop's cap. @throws InvalidWorkflowError when maxIterations is not a positive integer. */
export function maxIterationsOf(workflowId: string, loop: LoopStep): number {
  const max = loop.loop?.maxIterations;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw new InvalidWorkflowError(workflowId, undefined, `loop '${loop.id}' needs maxIterations, a positive integer`);
  }
  return max;
}

/**
 * Whether iteration i should run, decided at its start: for → i < count; forEach → i < items.length; while → the
 * condition holds; until → the condition does not hold yet. `iterationContext` already has i's bindings.
 */
export function iterationRuns(
  workflowId: string,
  loop: LoopStep,
  iteration: number,
  outerContext: Record<string, unknown>,
  iterationContext: Record<string, unknown>,
  evaluate: EvaluateCondition,
): boolean {
  switch (loop.loop.type) {
    case 'for':
      return iteration < forCount(workflowId, loop, outerContext);
    case 'forEach':
      return iteration < forEachItems(workflowId, loop, outerContext).length;
    case 'while':
    case 'until': {
      const condition = loop.loop.condition;
      if (condition === undefined || condition === null) {
        throw new InvalidWorkflowError(workflowId, undefined, `${loop.loop.type} loop '${loop.id}' needs a condition`);
      }
      const holds = evaluate(condition, iterationContext);
      return loop.loop.type === 'while' ? holds : !holds;
    }
    default:
      throw new InvalidWorkflowError(
        workflowId,
        undefined,
        `loop '${loop.id}' has type '${String((loop.loop as { type?: unknown }).type)}'; expected while, until, for or forEach`,
      );
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
