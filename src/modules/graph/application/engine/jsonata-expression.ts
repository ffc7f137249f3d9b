import jsonata from 'jsonata';
import { ExpressionError } from '../../../../kernel/errors';
import { LinearRegExp, regexEngineTrusting, regexKey, type RegexEngineClass } from '../../../../kernel/regex/linear-regex';

/** Bounds on every single JSONata evaluation (jsonata's own guardrails, checked at each evaluation step). */
export interface ExpressionLimits {
  /** Wall-clock limit of one evaluation. Default 10,000 ms. */
  timeoutMs: number;
  /** Maximum evaluation depth (jsonata counts nested evaluation steps). Default 5,000: non-tail recursion ~1,000 deep. */
  stackDepth: number;
}

export const DEFAULT_EXPRESSION_LIMITS: Readonly<ExpressionLimits> = Object.freeze({ timeoutMs: 10_000, stackDepth: 5_000 });

/**
 * Thrown by {@link compileJsonata} on a syntax error; the loader turns it into an InvalidGraphError with the position
 * of the offending character in the file. `offset` is where in the expression (0-based) the problem starts.
 */
export class JsonataSyntaxError extends Error {
  readonly offset: number | undefined;

  constructor(
    readonly source: string,
    readonly reason: string,
    readonly position: number | undefined,
    token?: unknown,
    /** jsonata's error code (S0201 …), when it gave one. */
    readonly code?: string,
  ) {
    const offset = position === undefined ? undefined : Math.max(0, position - (token !== undefined && token !== null && token !== '(end)' ? String(token).length : 0));
    super(`JSONata syntax error${position !== undefined ? ` at character ${position}` : ''}: ${reason}${offset !== undefined ? ` (near ${near(source, offset)})` : ''}`);
    this.offset = offset;
  }
}

/** Up to 24 characters of the expression around `offset`, on one line, quoted. */
function near(source: string, offset: number): string {
  const from = Math.max(0, offset - 12);
  const text = source.slice(from, offset + 12).replace(/\s+/g, ' ').trim();
  return JSON.stringify(`${from > 0 ? '…' : ''}${text}${offset + 12 < source.length ? '…' : ''}`);
}

/** jsonata's terse messages in words: S0201 says only "Syntax error: 2". */
function reasonOf(e: { code?: string; message?: string; token?: unknown }): string {
  if (e.code === 'S0201' && e.token !== undefined) return `unexpected ${JSON.stringify(String(e.token))}: two values in a row (a missing operator, comma or bracket before it?)`;
  return e.message ?? 'syntax error';
}

/**
 * One JSONata expression, compiled once per graph load. Shared by every run of the graph: run-specific functions
 * (the history functions) are passed as bindings to each evaluation, never registered on the expression.
 */
export class CompiledJsonata {
  constructor(
    readonly source: string,
    private readonly expression: jsonata.Expression,
    /** The expression's regex literals that run on the native (backtracking) engine, and why; see compileJsonata. */
    readonly regexFallbacks: readonly RegexFallback[] = [],
  ) {}

  evaluate(input: unknown, bindings: Record<string, unknown>): Promise<unknown> {
    return this.expression.evaluate(input, bindings);
  }
}

/** A regex literal of an expression that RE2 cannot run, so it keeps the native engine. */
export interface RegexFallback {
  /** `/source/flags` as written. */
  pattern: string;
  /** What RE2 lacks for it (lookahead, a backreference, ...). */
  reason: string;
}

/** The engine of expressions without fallback literals: any pattern RE2 cannot run (only `$eval` makes one) is refused. */
const LINEAR_ONLY_ENGINE: RegexEngineClass = regexEngineTrusting(new Set());

/**
 * Compiles one expression. Its regular expressions run on the linear-time engine (src/application/services/linear-regex.ts),
 * since jsonata's time limit is only checked between evaluation steps and a backtracking regex on agent input could
 * block the event loop far beyond it. A regex literal RE2 cannot run (lookaround, backreferences) keeps the native
 * engine — it is listed in `regexFallbacks` so the loader can warn — and a pattern that appears only at run time
 * (`$eval` of built text) and needs the native engine is refused with an error.
 */
export function compileJsonata(source: string, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS): CompiledJsonata {
  // jsonata reads `options` (RegexEngine included) at each evaluation, so the engine is set once the AST is known.
  const options = guardrailOptions(limits);
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source, options as jsonata.JsonataOptions);
  } catch (err) {
    const e = err as { message?: string; position?: number; code?: string; token?: unknown };
    throw new JsonataSyntaxError(
      source,
      e.message === undefined ? String(err) : reasonOf(e),
      typeof e.position === 'number' ? e.position : undefined,
      e.token,
      typeof e.code === 'string' ? e.code : undefined,
    );
  }
  const fallbacks: RegexFallback[] = [];
  const trusted = new Set<string>();
  for (const regex of regexLiterals(expression.ast())) {
    const engine = new LinearRegExp(regex);
    if (engine.linear || trusted.has(regexKey(regex))) continue;
    trusted.add(regexKey(regex));
    fallbacks.push({ pattern: `/${regex.source}/${regex.flags.replace('g', '')}`, reason: engine.fallbackReason ?? '' });
  }
  options.RegexEngine = trusted.size === 0 ? LINEAR_ONLY_ENGINE : regexEngineTrusting(trusted);
  return new CompiledJsonata(source, expression, fallbacks);
}

/** jsonata's options as compileJsonata passes them. */
interface JsonataEngineOptions {
  readonly timeout: number;
  readonly stack: number;
  RegexEngine?: RegexEngineClass;
}

/**
 * How many evaluation steps pass between two clock reads of the time limit. jsonata checks its guardrails before every
 * evaluation step and reads the clock each time; in a tight graph loop those clock reads were about a quarter of the
 * cost. A step is small (one operator, one function call), so 64 steps are microseconds: the limit's precision is
 * unchanged for any practical purpose, while the depth limit is still checked at every step.
 */
export const CLOCK_CHECK_EVERY_STEPS = 64;

/**
 * The options object jsonata's guardrails read. jsonata 2.2 checks, before each step,
 * `options.timeout > 0 && Date.now() - start > options.timeout`; `timeout` is a getter that answers NaN on most reads
 * (`NaN > 0` is false, so the clock is not read) and the real limit on every CLOCK_CHECK_EVERY_STEPS-th read, the read
 * right after it (the comparison) and the one after (the limit named in the timeout error). A stray NaN in the comparison (`elapsed > NaN`) is false: at worst one check is
 * skipped, never a false timeout. With `stack` > 0 jsonata always installs its guardrails (it tests
 * `options.timeout || options.stack` once per evaluation).
 */
function guardrailOptions(limits: ExpressionLimits): JsonataEngineOptions {
  const limit = limits.timeoutMs;
  if (!(limit > 0) || !(limits.stackDepth > 0)) return { timeout: limit, stack: limits.stackDepth };
  let reads = 0;
  // Reads still to answer with the limit: the comparison, and the `value` of the D1012 error when it throws.
  let armed = 0;
  return {
    get timeout(): number {
      if (armed > 0) {
        armed--;
        return limit;
      }
      if (++reads < CLOCK_CHECK_EVERY_STEPS) return NaN;
      reads = 0;
      armed = 2;
      return limit;
    },
    stack: limits.stackDepth,
  };
}

/** Every regex literal of a jsonata AST (nodes `{type: 'regex', value: RegExp}`). */
function regexLiterals(ast: unknown): RegExp[] {
  const found: RegExp[] = [];
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node) || node instanceof RegExp) return;
    seen.add(node);
    const n = node as { type?: unknown; value?: unknown };
    if (n.type === 'regex' && n.value instanceof RegExp) found.push(n.value);
    for (const child of Object.values(node)) visit(child);
  };
  visit(ast);
  return found;
}

/**
 * Turns whatever an evaluation threw into an ExpressionError naming the node. jsonata throws plain objects with a
 * `code` (D1012 timeout, D1011 depth, ...); a native RangeError means the JS stack ran out before jsonata's own limit.
 */
export function toExpressionError(err: unknown, nodeId: string, source: string, what = 'expression'): ExpressionError {
  if (err instanceof ExpressionError) return err;
  const e = (err ?? {}) as { code?: string; message?: string; position?: number; token?: unknown };
  const reason =
    err instanceof RangeError
      ? 'stack depth exceeded (check for non-terminating recursion)'
      : `${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}${failedAt(e.token, e.position, source)}`;
  return new ExpressionError(`node '${nodeId}': ${what} failed: ${reason}`, {
    node: nodeId,
    expression: source.length > 200 ? `${source.slice(0, 200)}...` : source,
    ...(typeof e.position === 'number' ? { position: e.position } : {}),
  });
}

/**
 * Where a JSONata runtime error happened, from the `token` and `position` jsonata puts on it: ` at $notAFunction
 * (character 14)` — the bare "Attempted to invoke a non-function (T1006)" does not say which call. The token is shown
 * as written: with its `$` when the expression calls it as a function or variable.
 */
function failedAt(token: unknown, position: number | undefined, source: string): string {
  if (typeof token !== 'string' || token === '') return '';
  let name = token;
  if (typeof position === 'number') {
    const at = source.lastIndexOf(token, position);
    if (at > 0 && source[at - 1] === '$') name = `$${token}`;
  }
  const where = typeof position === 'number' && position > 0 && position <= source.length ? ` (character ${position})` : '';
  return ` at ${name}${where}`;
}
