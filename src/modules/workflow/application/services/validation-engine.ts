import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { WorkflowTokens } from '../workflow.tokens';
import { isPlainObject } from '../../domain/context-path';
import type { Condition, ValidationCriteria, ValidationRule } from '../../domain/types';
import { ConditionEvaluator } from './condition-evaluator';
import { LinearRegExp } from '../../../../kernel/regex/linear-regex';
import { SchemaRegistry } from '../../../../kernel/schema-registry';

/** The answer of workflow_validate. */
export interface ValidationResult {
  valid: boolean;
  /** What is wrong, one line each. */
  issues: string[];
  /** What to do about it, one line each, without duplicates. */
  suggestions: string[];
}

interface Outcome {
  pass: boolean;
  issues: string[];
  suggestions: string[];
}

const PASS: Outcome = Object.freeze({ pass: true, issues: [], suggestions: [] }) as Outcome;

/** Compiled regexes kept per (pattern, flags); workflow files hold few distinct patterns. */
const MAX_CACHED_REGEXES = 1000;

/**
 * Checks a step's output against its `validationCriteria`:
 * - rules `contains` (value, ignoreCase), `regex` (pattern, flags; `g`/`y` dropped so a cached regex keeps no
 *   lastIndex between calls), `length` (min/max in characters), `schema` (the output parsed as JSON — a surrounding
 *   ```json fence stripped — and validated with Ajv), each applied only when its optional `condition` holds;
 * - a plain array checks every element and reports every failure; `{and}` stops at the first failure, `{or}` at the
 *   first success (reporting every alternative when none passes), `{not}` inverts; nesting to any depth.
 * Empty `and`, `or` and arrays pass (nothing to satisfy). A malformed rule or an invalid regex/schema in the workflow
 * is reported as an issue naming the rule, never thrown.
 */
@injectable()
export class ValidationEngine {
  private readonly regexes = new Map<string, LinearRegExp | string>();

  constructor(
    @inject(WorkflowTokens.ConditionEvaluator) private readonly conditions: ConditionEvaluator,
    @inject(Tokens.SchemaRegistry) private readonly schemas: SchemaRegistry,
  ) {}

  /**
   * @param criteria the step's validationCriteria; none means valid.
   * @param output the agent's output; a non-string is checked as its JSON text (and as itself by `schema` rules).
   * @param context what rule conditions are evaluated against.
   */
  validate(criteria: ValidationCriteria | undefined, output: unknown, context: Record<string, unknown> = {}): ValidationResult {
    if (criteria === undefined || criteria === null) return { valid: true, issues: [], suggestions: [] };
    const outcome = this.check(criteria, new Output(output), context, 'validationCriteria');
    return { valid: outcome.pass, issues: outcome.issues, suggestions: [...new Set(outcome.suggestions)] };
  }

  private check(criteria: unknown, output: Output, context: Record<string, unknown>, at: string): Outcome {
    if (Array.isArray(criteria)) {
      const results = criteria.map((c, i) => this.check(c, output, context, `${at}[${i}]`));
      return combine(results.every((r) => r.pass), results.filter((r) => !r.pass));
    }
    if (!isPlainObject(criteria)) return malformed(at, `expected a rule or an and/or/not composition, got ${JSON.stringify(criteria)}`);
    if (criteria.type === undefined) {
      if (Array.isArray(criteria.and)) return this.checkAnd(criteria.and, output, context, `${at}.and`);
      if (Array.isArray(criteria.or)) return this.checkOr(criteria.or, output, context, `${at}.or`);
      if ('not' in criteria) return this.checkNot(criteria.not, output, context, `${at}.not`);
      return malformed(at, `has no 'type' and is no and/or/not composition`);
    }
    return this.checkRule(criteria as unknown as ValidationRule, output, context, at);
  }

  private checkAnd(items: unknown[], output: Output, context: Record<string, unknown>, at: string): Outcome {
    for (let i = 0; i < items.length; i++) {
      const result = this.check(items[i], output, context, `${at}[${i}]`);
      if (!result.pass) return result;
    }
    return PASS;
  }

  private checkOr(items: unknown[], output: Output, context: Record<string, unknown>, at: string): Outcome {
    if (items.length === 0) return PASS;
    const failures: Outcome[] = [];
    for (let i = 0; i < items.length; i++) {
      const result = this.check(items[i], output, context, `${at}[${i}]`);
      if (result.pass) return PASS;
      failures.push(result);
    }
    if (failures.length === 1) return failures[0];
    const issues = failures.map((f, i) => `Alternative ${i + 1} of ${failures.length} (any one is enough): ${f.issues.join('; ')}`);
    const suggestions = [`Satisfy at least one of the ${failures.length} alternatives; the easiest is usually the first.`];
    for (const f of failures) suggestions.push(...f.suggestions);
    return { pass: false, issues, suggestions };
  }

  private checkNot(inner: unknown, output: Output, context: Record<string, unknown>, at: string): Outcome {
    const result = this.check(inner, output, context, at);
    if (!result.pass) return PASS;
    const what = describeCriteria(inner);
    return { pass: false, issues: [`Output must not ${what}, but it does`], suggestions: [`Rewrite the output so that it does not ${what}.`] };
  }

  private checkRule(rule: ValidationRule, output: Output, context: Record<string, unknown>, at: string): Outcome {
    if (rule.condition !== undefined && !this.conditions.evaluate(rule.condition as Condition, context)) return PASS;
    switch (rule.type) {
      case 'contains':
        return this.checkContains(rule, output, at);
      case 'regex':
        return this.checkRegex(rule, output, at);
      case 'length':
        return checkLength(rule, output);
      case 'schema':
        return this.checkSchema(rule, output, at);
      default:
        return malformed(at, `has unknown type '${String((rule as { type: unknown }).type)}'; expected contains, regex, length or schema`);
    }
  }

  private checkContains(rule: Extract<ValidationRule, { type: 'contains' }>, output: Output, at: string): Outcome {
    if (typeof rule.value !== 'string') return malformed(at, `(contains) needs a string 'value'`);
    const found = rule.ignoreCase ? output.text.toLowerCase().includes(rule.value.toLowerCase()) : output.text.includes(rule.value);
    if (found) return PASS;
    const detail = `output does not contain "${rule.value}"${rule.ignoreCase ? ' (case-insensitive)' : ''}`;
    return fail(rule.message, detail, `Include "${rule.value}" in the output.`);
  }

  private checkRegex(rule: Extract<ValidationRule, { type: 'regex' }>, output: Output, at: string): Outcome {
    const regex = this.regex(rule.pattern, rule.flags);
    if (typeof regex === 'string') return malformed(at, `(regex) ${regex}`);
    if (regex.test(output.text)) return PASS;
    return fail(rule.message, `output does not match ${regex}`, `Make the output match the pattern ${regex}.`);
  }

  private checkSchema(rule: Extract<ValidationRule, { type: 'schema' }>, output: Output, at: string): Outcome {
    const parsed = output.json();
    if (!parsed.ok) {
      return fail(
        rule.message,
        `output is not valid JSON (${parsed.error})`,
        'Answer with the JSON value only (a ```json fenced block is fine), without prose around it.',
      );
    }
    let result;
    try {
      result = this.schemas.validate(rule.schema, parsed.value);
    } catch (e) {
      return malformed(at, `(schema) ${(e as Error).message}`);
    }
    if (result.valid) return PASS;
    const details = this.schemas.formatErrors(result.errors);
    const issues = details.map((d) => (rule.message ? `${rule.message}: ${d}` : `JSON field ${d}`));
    const suggestions = result.errors.map((e) => `Fix ${e.pointer || 'the top-level value'}: it ${e.message}.`);
    return { pass: false, issues, suggestions };
  }

  /**
   * The compiled regex, or the reason it does not compile. `g` and `y` are dropped (stateful with `test`). It runs in
   * linear time (RE2) so agent output cannot make it backtrack for ages; a pattern RE2 cannot run (lookaround,
   * backreferences) keeps the native engine, as docs/writing-workflows.md says.
   */
  private regex(pattern: unknown, flags: unknown): LinearRegExp | string {
    if (typeof pattern !== 'string') return `needs a string 'pattern'`;
    const cleanFlags = typeof flags === 'string' ? flags.replace(/[gy]/g, '') : '';
    const key = `${cleanFlags}/${pattern}`;
    let cached = this.regexes.get(key);
    if (cached === undefined) {
      try {
        cached = new LinearRegExp(pattern, cleanFlags);
      } catch (e) {
        cached = `pattern /${pattern}/${cleanFlags} is invalid: ${(e as Error).message}`;
      }
      if (this.regexes.size >= MAX_CACHED_REGEXES) this.regexes.delete(this.regexes.keys().next().value as string);
      this.regexes.set(key, cached);
    }
    return cached;
  }
}

/** The output as text (for contains/regex/length) and as JSON (for schema), each worked out once. */
class Output {
  readonly text: string;
  private parsed?: { ok: true; value: unknown } | { ok: false; error: string };

  constructor(private readonly raw: unknown) {
    this.text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
  }

  json(): { ok: true; value: unknown } | { ok: false; error: string } {
    if (!this.parsed) {
      if (typeof this.raw !== 'string') this.parsed = { ok: true, value: this.raw };
      else {
        try {
          this.parsed = { ok: true, value: JSON.parse(stripJsonFence(this.raw)) };
        } catch (e) {
          this.parsed = { ok: false, error: (e as Error).message };
        }
      }
    }
    return this.parsed;
  }
}

/** Strips one surrounding ``` or ```json fence (the output trimmed first); anything else is returned trimmed. */
export function stripJsonFence(text: string): string {
  const trimmed = text.trim();
  const match = /^```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```$/.exec(trimmed);
  return match ? match[1] : trimmed;
}

function checkLength(rule: Extract<ValidationRule, { type: 'length' }>, output: Output): Outcome {
  // Characters as a reader counts them (code points), not UTF-16 units.
  const length = [...output.text].length;
  if (typeof rule.min === 'number' && length < rule.min) {
    return fail(rule.message, `output is ${length} characters; at least ${rule.min} required`, `Expand the output by at least ${rule.min - length} characters.`);
  }
  if (typeof rule.max === 'number' && length > rule.max) {
    return fail(rule.message, `output is ${length} characters; at most ${rule.max} allowed`, `Shorten the output by at least ${length - rule.max} characters.`);
  }
  return PASS;
}

function fail(message: string | undefined, detail: string, suggestion: string): Outcome {
  const issue = message ? `${message} (${detail})` : capitalize(detail);
  return { pass: false, issues: [issue], suggestions: [suggestion] };
}

function malformed(at: string, problem: string): Outcome {
  return {
    pass: false,
    issues: [`Rule ${at} ${problem}`],
    suggestions: [`The workflow's validation rule ${at} is broken; report it to the workflow author.`],
  };
}

function combine(pass: boolean, failures: Outcome[]): Outcome {
  if (pass) return PASS;
  return { pass: false, issues: failures.flatMap((f) => f.issues), suggestions: failures.flatMap((f) => f.suggestions) };
}

/** A short phrase for what a criterion demands, for `not` messages: `contain "TODO"`, `match /x/`. */
function describeCriteria(criteria: unknown): string {
  if (Array.isArray(criteria)) return criteria.map(describeCriteria).join(' and ');
  if (!isPlainObject(criteria)) return 'satisfy the rule';
  if (Array.isArray(criteria.and)) return `(${criteria.and.map(describeCriteria).join(' and ')})`;
  if (Array.isArray(criteria.or)) return `(${criteria.or.map(describeCriteria).join(' or ')})`;
  if ('not' in criteria) return `not ${describeCriteria(criteria.not)}`;
  switch (criteria.type) {
    case 'contains':
      return `contain "${String(criteria.value)}"`;
    case 'regex':
      return `match /${String(criteria.pattern)}/`;
    case 'length': {
      const min = typeof criteria.min === 'number' ? `at least ${criteria.min}` : '';
      const max = typeof criteria.max === 'number' ? `at most ${criteria.max}` : '';
      return `be ${[min, max].filter(Boolean).join(' and ') || 'any'} characters long`;
    }
    case 'schema':
      return 'match the JSON schema';
    default:
      return 'satisfy the rule';
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
