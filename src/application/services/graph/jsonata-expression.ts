import jsonata from 'jsonata';
import { ExpressionError } from '../../../domain/errors';

/** Bounds on every single JSONata evaluation (jsonata's own guardrails, checked at each evaluation step). */
export interface ExpressionLimits {
  /** Wall-clock limit of one evaluation. Default 10,000 ms. */
  timeoutMs: number;
  /** Maximum evaluation depth (jsonata counts nested evaluation steps). Default 5,000: non-tail recursion ~1,000 deep. */
  stackDepth: number;
}

export const DEFAULT_EXPRESSION_LIMITS: Readonly<ExpressionLimits> = Object.freeze({ timeoutMs: 10_000, stackDepth: 5_000 });

/** Thrown by {@link compileJsonata} on a syntax error; the loader turns it into an InvalidGraphError with the position. */
export class JsonataSyntaxError extends Error {
  constructor(readonly source: string, readonly reason: string, readonly position: number | undefined) {
    super(`JSONata syntax error${position !== undefined ? ` at character ${position}` : ''}: ${reason}`);
  }
}

/**
 * One JSONata expression, compiled once per graph load. Shared by every run of the graph: run-specific functions
 * (the history functions) are passed as bindings to each evaluation, never registered on the expression.
 */
export class CompiledJsonata {
  constructor(readonly source: string, private readonly expression: jsonata.Expression) {}

  evaluate(input: unknown, bindings: Record<string, unknown>): Promise<unknown> {
    return this.expression.evaluate(input, bindings);
  }
}

export function compileJsonata(source: string, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS): CompiledJsonata {
  try {
    return new CompiledJsonata(source, jsonata(source, { timeout: limits.timeoutMs, stack: limits.stackDepth }));
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new JsonataSyntaxError(source, e.message ?? String(err), typeof e.position === 'number' ? e.position : undefined);
  }
}

/**
 * Turns whatever an evaluation threw into an ExpressionError naming the node. jsonata throws plain objects with a
 * `code` (D1012 timeout, D1011 depth, ...); a native RangeError means the JS stack ran out before jsonata's own limit.
 */
export function toExpressionError(err: unknown, nodeId: string, source: string, what = 'expression'): ExpressionError {
  if (err instanceof ExpressionError) return err;
  const e = (err ?? {}) as { code?: string; message?: string; position?: number };
  const reason =
    err instanceof RangeError
      ? 'stack depth exceeded (check for non-terminating recursion)'
      : `${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}`;
  return new ExpressionError(`node '${nodeId}': ${what} failed: ${reason}`, {
    node: nodeId,
    expression: source.length > 200 ? `${source.slice(0, 200)}...` : source,
    ...(typeof e.position === 'number' ? { position: e.position } : {}),
  });
}
