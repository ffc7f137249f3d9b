import jsonLogic from 'json-logic-js';
import { compileJsonata, JsonataSyntaxError, type CompiledJsonata, type ExpressionLimits } from './jsonata-expression';

/** The operators json-logic-js 2.x knows; anything else is refused at load time. */
const KNOWN_OPERATORS = new Set([
  'var', 'missing', 'missing_some', 'if', '?:', '==', '===', '!=', '!==', '!', '!!', 'or', 'and', 'in', 'cat', 'substr',
  '+', '*', '-', '/', '%', 'min', 'max', 'merge', '<', '<=', '>', '>=', 'log', 'map', 'filter', 'reduce', 'all', 'some',
  'none',
]);

/**
 * Operators whose later operands are evaluated per element: there `var` keeps its JSON Logic meaning (the element, or
 * `current`/`accumulator` in reduce). The value is the set of operand positions evaluated against the outer data.
 */
const SCOPED_OPERATORS: Record<string, ReadonlySet<number>> = {
  map: new Set([0]),
  filter: new Set([0]),
  all: new Set([0]),
  some: new Set([0]),
  none: new Set([0]),
  reduce: new Set([0, 2]),
};

/** A JSON Logic rule error found at load time: where in the rule, and for a bad `var`, its JSONata and the position. */
export class JsonLogicSyntaxError extends Error {
  constructor(
    message: string,
    readonly path?: string,
    readonly expression?: string,
    /** Character offset of a JSONata syntax error within `expression`, as jsonata reports it. */
    readonly position?: number,
  ) {
    super(message);
  }
}

/** The JSONata source of the rule's `var` whose evaluation threw `err`, when a rule evaluation failed there. */
export function failedVarSource(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { [VAR_SOURCE]?: string })[VAR_SOURCE] : undefined;
}

const VAR_SOURCE = Symbol('workgraph.jsonLogicVar');

interface VarSlot {
  key: string;
  /** Undefined for `{"var": ""}`: the whole context. */
  expr?: CompiledJsonata;
  fallback: unknown;
}

/**
 * A switch rule compiled once: every `var` in outer position is replaced by a reference to a slot whose value is the
 * `var` operand evaluated as JSONata (with the history functions); vars inside map/filter/reduce/all/some/none bodies
 * are left alone so they keep JSON Logic's per-element meaning. Evaluation fills the slots and applies the rewritten
 * rule once, with the slots layered over the context (so `missing` and body-less vars still see the context).
 */
export class CompiledJsonLogicRule {
  private constructor(private readonly rule: unknown, private readonly slots: VarSlot[]) {}

  static compile(rule: unknown, limits: ExpressionLimits): CompiledJsonLogicRule {
    const slots: VarSlot[] = [];
    const rewritten = rewrite(rule, slots, limits, 'rule');
    return new CompiledJsonLogicRule(rewritten, slots);
  }

  /** The rule's compiled `var` expressions (for load-time checks). */
  get expressions(): CompiledJsonata[] {
    return this.slots.flatMap((s) => (s.expr ? [s.expr] : []));
  }

  /** The JSONata sources of the rule's vars, for error messages. */
  get varSources(): string[] {
    return this.slots.map((s) => s.expr?.source ?? '');
  }

  async evaluate(context: Record<string, unknown>, bindings: Record<string, unknown>): Promise<boolean> {
    const data = Object.create(context) as Record<string, unknown>;
    for (const slot of this.slots) {
      let value: unknown = context;
      if (slot.expr) {
        try {
          value = await slot.expr.evaluate(context, bindings);
        } catch (err) {
          // Says which var failed (graph_test_json_logic answers its position within that var's JSONata).
          if (typeof err === 'object' && err !== null && !Object.isFrozen(err)) Object.defineProperty(err, VAR_SOURCE, { value: slot.expr.source });
          throw err;
        }
      }
      data[slot.key] = value === undefined || value === null ? slot.fallback : value;
    }
    return truthy(jsonLogic.apply(this.rule as jsonLogic.RulesLogic, data));
  }
}

function rewrite(rule: unknown, slots: VarSlot[], limits: ExpressionLimits, where: string): unknown {
  if (Array.isArray(rule)) return rule.map((r, i) => rewrite(r, slots, limits, `${where}[${i}]`));
  if (typeof rule !== 'object' || rule === null) return rule;
  const keys = Object.keys(rule);
  if (keys.length !== 1) {
    // json-logic-js treats a multi-key object as a literal value; keep it so.
    return rule;
  }
  const op = keys[0]!;
  const operand = (rule as Record<string, unknown>)[op];
  if (!KNOWN_OPERATORS.has(op)) {
    throw new JsonLogicSyntaxError(`${where}: unknown JSON Logic operator '${op}'`, where);
  }
  if (op === 'var') return { var: addSlot(operand, slots, limits, where) };
  const scoped = SCOPED_OPERATORS[op];
  if (scoped) {
    const args = Array.isArray(operand) ? operand : [operand];
    for (let i = 1; i < args.length; i++) if (!scoped.has(i)) checkOperators(args[i], `${where}.${op}[${i}]`);
    return { [op]: args.map((a, i) => (scoped.has(i) ? rewrite(a, slots, limits, `${where}.${op}[${i}]`) : a)) };
  }
  return { [op]: rewrite(operand, slots, limits, `${where}.${op}`) };
}

function addSlot(operand: unknown, slots: VarSlot[], limits: ExpressionLimits, where: string): string {
  const [path, fallback] = Array.isArray(operand) ? [operand[0], operand[1]] : [operand, undefined];
  const source = path === undefined || path === null ? '' : String(path);
  const key = `\u0000wg${slots.length}`;
  let expr: CompiledJsonata | undefined;
  if (source !== '') {
    try {
      expr = compileJsonata(source, limits);
    } catch (err) {
      const position = err instanceof JsonataSyntaxError ? err.position : undefined;
      throw new JsonLogicSyntaxError(`${where}: var ${JSON.stringify(source)} is not valid JSONata: ${(err as Error).message}`, where, source, position);
    }
  }
  slots.push({ key, ...(expr ? { expr } : {}), fallback: fallback === undefined ? null : fallback });
  return key;
}

/** Operators in per-element bodies are not rewritten but still checked. */
function checkOperators(rule: unknown, where: string): void {
  if (Array.isArray(rule)) return rule.forEach((r, i) => checkOperators(r, `${where}[${i}]`));
  if (typeof rule !== 'object' || rule === null) return;
  const keys = Object.keys(rule);
  if (keys.length !== 1) return;
  if (!KNOWN_OPERATORS.has(keys[0]!)) throw new JsonLogicSyntaxError(`${where}: unknown JSON Logic operator '${keys[0]}'`, where);
  checkOperators((rule as Record<string, unknown>)[keys[0]!], `${where}.${keys[0]}`);
}

/** JSON Logic truthiness (an empty array is falsy). */
function truthy(value: unknown): boolean {
  return jsonLogic.truthy(value);
}
