import type { ArgTemplate } from '../../domain/types';
import { compileJsonata, JsonataSyntaxError, type CompiledJsonata, type ExpressionLimits } from './jsonata-expression';

/** An `mcp` node's argument template with its JSONata compiled; literals are kept as they are. */
export type CompiledArgs =
  | { kind: 'literal'; value: unknown }
  | { kind: 'expr'; expr: CompiledJsonata }
  | { kind: 'object'; entries: Array<[string, CompiledArgs]> }
  | { kind: 'array'; items: CompiledArgs[] };

/**
 * Compiles every expression of the template. Throws JsonataSyntaxError on the first bad one — except a `$`-string of
 * the older rule (`"$5.00"`), which mcpgraph files use for plain text too: it stays a literal and `onLiteral` is told.
 */
export function compileArgs(
  template: ArgTemplate,
  limits: ExpressionLimits,
  onLiteral: (source: string, reason: string) => void = () => undefined,
): CompiledArgs {
  switch (template.kind) {
    case 'literal':
      return template;
    case 'expr':
      try {
        return { kind: 'expr', expr: compileJsonata(template.expr, limits) };
      } catch (err) {
        if (!template.dollarString || !(err instanceof JsonataSyntaxError)) throw err;
        onLiteral(template.expr, err.message);
        return { kind: 'literal', value: template.expr };
      }
    case 'object':
      return { kind: 'object', entries: template.entries.map(([k, v]) => [k, compileArgs(v, limits, onLiteral)]) };
    case 'array':
      return { kind: 'array', items: template.items.map((v) => compileArgs(v, limits, onLiteral)) };
  }
}

/**
 * Builds the arguments of one call. `onExpr` reports which expression is being evaluated, so a failure can name it.
 * An expression that yields undefined leaves its object key out (JSON has no undefined).
 */
export async function evaluateArgs(
  args: CompiledArgs,
  context: Record<string, unknown>,
  bindings: Record<string, unknown>,
  onExpr: (source: string) => void,
): Promise<unknown> {
  switch (args.kind) {
    case 'literal':
      return args.value;
    case 'expr':
      onExpr(args.expr.source);
      return args.expr.evaluate(context, bindings);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of args.entries) {
        const value = await evaluateArgs(v, context, bindings, onExpr);
        if (value !== undefined) out[k] = value;
      }
      return out;
    }
    case 'array': {
      const out: unknown[] = [];
      for (const v of args.items) out.push(await evaluateArgs(v, context, bindings, onExpr));
      return out;
    }
  }
}
