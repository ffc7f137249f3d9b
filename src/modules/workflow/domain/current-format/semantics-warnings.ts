import { isPlainObject } from '../context-path';
import type { WorkflowFormat } from '../types';

/** A condition that would evaluate differently under the other format's semantics. */
export interface SemanticsWarning {
  pointer: string;
  message: string;
}

const CONDITION_KEYS = new Set(['runCondition', 'when', 'condition']);

/**
 * Conditions whose result depends on which format's semantics apply (docs/writing-workflows.md, Conditions): in
 * current-format files `not_equals` on a missing variable is true, string `equals`/`in` ignore case and trim,
 * numeric strings and yes/no words equal numbers and booleans, `gt/gte/lt/lte` hold for numbers only, `contains` is
 * a case-insensitive substring test; classic files compare exactly and a missing variable makes any comparison false.
 */
export function semanticsWarnings(doc: unknown, format: WorkflowFormat): SemanticsWarning[] {
  const out: SemanticsWarning[] = [];
  const other = format === 'current' ? 'classic' : 'current-format';
  const visitCondition = (c: unknown, at: string): void => {
    if (Array.isArray(c)) return c.forEach((x, i) => visitCondition(x, `${at}/${i}`));
    if (!isPlainObject(c)) return;
    for (const k of ['and', 'or']) if (Array.isArray(c[k])) (c[k] as unknown[]).forEach((x, i) => visitCondition(x, `${at}/${k}/${i}`));
    if ('not' in c) visitCondition(c.not, `${at}/not`);
    if (typeof c.var !== 'string') return;
    const why: string[] = [];
    if ('not_equals' in c) why.push(`on a missing '${c.var}' not_equals is ${format === 'current' ? 'true here but false' : 'false here but true'} in ${other} files`);
    for (const op of ['equals', 'not_equals', 'in']) {
      const v = c[op];
      const values = Array.isArray(v) ? v : [v];
      if (!(op in c)) continue;
      if (values.some((x) => typeof x === 'string')) why.push(`${op} on text ${format === 'current' ? 'ignores case and surrounding spaces here, not' : 'is exact here, but ignores case'} in ${other} files`);
      if (values.some((x) => typeof x === 'number' || typeof x === 'boolean')) why.push(`${op} ${format === 'current' ? 'also matches numeric strings and yes/no words here, not' : 'is exact here, but also matches numeric strings and yes/no words'} in ${other} files`);
    }
    for (const op of ['gt', 'gte', 'lt', 'lte']) if (op in c) why.push(`${op} ${format === 'current' ? 'is false for a numeric string here, not' : 'reads a numeric string as a number here, not'} in ${other} files`);
    if ('contains' in c) why.push(`contains ${format === 'current' ? 'ignores case here, not' : 'is case-sensitive here, not'} in ${other} files`);
    if (why.length > 0) out.push({ pointer: at, message: `condition on '${c.var}' would evaluate differently as ${other}: ${why.join('; ')}` });
  };
  const visit = (v: unknown, at: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => visit(x, `${at}/${i}`));
    if (!isPlainObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      if (CONDITION_KEYS.has(k)) visitCondition(child, `${at}/${k}`);
      else if (k === 'requireConfirmation' && isPlainObject(child)) visitCondition('kind' in child ? child.condition : child, `${at}/${k}${'kind' in child ? '/condition' : ''}`);
      else if (typeof child === 'object' && child !== null && k !== 'schema') visit(child, `${at}/${k}`);
    }
  };
  visit(doc, '');
  return out;
}
