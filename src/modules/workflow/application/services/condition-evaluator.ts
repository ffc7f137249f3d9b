import jsonLogic from 'json-logic-js';
import { injectable } from 'tsyringe';
import { ExpressionError, isWorkgraphError } from '../../../../kernel/errors';
import { evaluateCondition, type EvaluateCondition } from '../../domain/conditions';
import { evaluateWorkrailCondition } from '../../domain/current-format/workrail-conditions';
import type { Condition, WorkflowFormat } from '../../domain/types';

/**
 * Evaluates workflow conditions (runCondition, loop while/until, validation rule conditions) against a context.
 * The comparison form `{var, equals|not_equals|gt|gte|lt|lte|in|contains}` with `and`/`or`/`not` follows the domain's
 * rules (a missing variable makes a comparison false, never an exception); any other object is JSON Logic
 * (json-logic-js) with JSON Logic's own rules and truthiness. Stateless.
 */
@injectable()
export class ConditionEvaluator {
  /** The evaluator as a plain function, for the domain's step resolution. */
  readonly asFunction: EvaluateCondition = (condition, context) => this.evaluate(condition, context);

  /** Current-format files: WorkRail's semantics (lenient equality, not_equals true on a missing variable…). */
  readonly currentFormat: EvaluateCondition = (condition, context) => evaluateWorkrailCondition(condition, context ?? {}, applyJsonLogic);

  /** The evaluator for a workflow of this format. */
  forFormat(format: WorkflowFormat | undefined): EvaluateCondition {
    return format === 'current' ? this.currentFormat : this.asFunction;
  }

  /**
   * Whether `condition` holds in `context`. An absent condition (undefined/null) holds.
   * @throws ExpressionError when a JSON Logic rule uses an unknown operation or a comparison has an unknown operator.
   */
  evaluate(condition: Condition | undefined | null, context: Record<string, unknown> = {}): boolean {
    return evaluateCondition(condition, context, applyJsonLogic);
  }
}

function applyJsonLogic(logic: unknown, context: Record<string, unknown>): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(logic as jsonLogic.RulesLogic, context));
  } catch (e) {
    if (isWorkgraphError(e)) throw e;
    throw new ExpressionError(`JSON Logic condition ${abbreviate(logic)} failed: ${(e as Error)?.message ?? String(e)}`, {
      expression: abbreviate(logic),
    });
  }
}

function abbreviate(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
