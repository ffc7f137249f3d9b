import { ExecutionHistory } from '../../domain/execution-history';
import type { NodeType } from '../../domain/types';
import { compileJsonata, DEFAULT_EXPRESSION_LIMITS, JsonataSyntaxError, type CompiledJsonata, type ExpressionLimits } from '../engine/jsonata-expression';
import { CompiledJsonLogicRule, failedVarSource, JsonLogicSyntaxError } from '../engine/json-logic-rule';
import { createHistoryBindings } from '../engine/history-bindings';
import { plainJson } from '../engine/plain-json';
import type { ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { graphTestJsonataSchemas } from '../graph-authoring.tool-schemas';

/** What the testers answer (both tools share the output schema). */
export type ExpressionTestAnswer = ToolOutput<typeof graphTestJsonataSchemas>;
type TestError = NonNullable<ExpressionTestAnswer['error']>;

/** One node execution handed to a tester: what the history functions answer from. */
export interface HistoryItem {
  nodeId: string;
  nodeType?: NodeType;
  output?: unknown;
}

/**
 * Evaluates expressions the way a graph run does — the engine's own compile (the same limits, the linear-time regex
 * engine) and the engine's history functions over a history built from the executions given — and answers the
 * value, or the error with its position, instead of throwing: a tester's failure is its answer.
 */
export class ExpressionTester {
  constructor(private readonly limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS) {}

  async jsonata(expression: string, context: Record<string, unknown> | undefined, history: readonly HistoryItem[] = []): Promise<ExpressionTestAnswer> {
    let compiled: CompiledJsonata;
    try {
      compiled = compileJsonata(expression, this.limits);
    } catch (err) {
      if (!(err instanceof JsonataSyntaxError)) throw err;
      return { ok: false, error: { kind: 'syntax', message: err.message, ...(err.code ? { code: err.code } : {}), ...where(expression, err.position) } };
    }
    const { input, bindings } = evaluationOf(context, history);
    try {
      return answer(await compiled.evaluate(input, bindings));
    } catch (err) {
      return { ok: false, error: runtimeError(err, expression) };
    }
  }

  async jsonLogic(rule: unknown, context: Record<string, unknown> | undefined, history: readonly HistoryItem[] = []): Promise<ExpressionTestAnswer> {
    let compiled: CompiledJsonLogicRule;
    try {
      compiled = CompiledJsonLogicRule.compile(rule, this.limits);
    } catch (err) {
      if (!(err instanceof JsonLogicSyntaxError)) throw err;
      const expression = err.expression;
      return {
        ok: false,
        error: {
          kind: 'syntax',
          message: err.message,
          ...(err.path ? { path: err.path } : {}),
          ...(expression !== undefined ? { expression, ...where(expression, err.position) } : {}),
        },
      };
    }
    const { input, bindings } = evaluationOf(context, history);
    try {
      return answer(await compiled.evaluate(input, bindings));
    } catch (err) {
      const source = failedVarSource(err);
      return { ok: false, error: { ...runtimeError(err, source ?? ''), ...(source !== undefined ? { expression: source } : {}) } };
    }
  }
}

/** The input and history functions of one evaluation: the context given, else the history's (node id → latest output). */
function evaluationOf(
  context: Record<string, unknown> | undefined,
  items: readonly HistoryItem[],
): { input: Record<string, unknown>; bindings: Record<string, unknown> } {
  const history = new ExecutionHistory();
  const now = Date.now();
  for (const item of items) history.append(item.nodeId, item.nodeType ?? 'transform', now, now, item.output);
  return { input: context ?? { ...history.context }, bindings: createHistoryBindings(history) };
}

function answer(value: unknown): ExpressionTestAnswer {
  return value === undefined ? { ok: true } : { ok: true, result: plainJson(value) };
}

/** A thrown evaluation error as the answer says it: jsonata's message, code and position; a native RangeError is the JS stack. */
function runtimeError(err: unknown, source: string): TestError {
  if (err instanceof RangeError) return { kind: 'runtime', message: 'stack depth exceeded (check for non-terminating recursion)' };
  const e = (err ?? {}) as { code?: unknown; message?: unknown; position?: unknown };
  return {
    kind: 'runtime',
    message: typeof e.message === 'string' ? e.message : String(err),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.position === 'number' && source !== '' ? where(source, e.position) : {}),
  };
}

/**
 * jsonata's `position` (the count of characters read when it found the error: the 1-based offset of that character)
 * with its line and column within the expression.
 */
function where(source: string, position: number | undefined): { position?: number; line?: number; column?: number } {
  if (typeof position !== 'number' || !Number.isFinite(position)) return {};
  const at = Math.min(Math.max(position, 1), Math.max(source.length, 1)) - 1;
  const before = source.slice(0, at);
  const line = before.split('\n').length;
  const column = at - (before.lastIndexOf('\n') + 1) + 1;
  return { position, line, column };
}
