import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { stripJsonFence, ValidationEngine } from '../../../src/modules/workflow/application/services/validation-engine';
import type { ValidationCriteria } from '../../../src/modules/workflow/domain/types';

const engine = new ValidationEngine(new ConditionEvaluator(), new SchemaRegistry());
const check = (criteria: unknown, output: unknown, context: Record<string, unknown> = {}) =>
  engine.validate(criteria as ValidationCriteria, output, context);

describe('rules', () => {
  test('no criteria: valid', () => {
    expect(check(undefined, 'x')).toEqual({ valid: true, issues: [], suggestions: [] });
  });

  test('contains: names the missing word; ignoreCase; the rule message comes first', () => {
    expect(check({ type: 'contains', value: 'line' }, 'see line 4').valid).toBe(true);
    const miss = check({ type: 'contains', value: 'Line' }, 'see line 4');
    expect(miss.valid).toBe(false);
    expect(miss.issues).toEqual(['Output does not contain "Line"']);
    expect(miss.suggestions).toEqual(['Include "Line" in the output.']);
    expect(check({ type: 'contains', value: 'Line', ignoreCase: true }, 'see line 4').valid).toBe(true);
    expect(check({ type: 'contains', value: 'tests', message: 'Mention the tests' }, 'nothing').issues).toEqual([
      'Mention the tests (output does not contain "tests")',
    ]);
  });

  test('regex: flags honoured, g and y ignored so repeated calls agree', () => {
    expect(check({ type: 'regex', pattern: '^done$', flags: 'im' }, 'work\nDONE').valid).toBe(true);
    const rule = { type: 'regex', pattern: 'a', flags: 'gy' };
    for (let i = 0; i < 4; i++) expect(check(rule, 'banana').valid).toBe(true);
    const miss = check({ type: 'regex', pattern: '\\d+', message: 'Give a number' }, 'none');
    expect(miss.issues).toEqual(['Give a number (output does not match /\\d+/)']);
  });

  test('an invalid regex is a clear issue, not a crash, and keeps failing the same way', () => {
    for (let i = 0; i < 2; i++) {
      const r = check({ type: 'regex', pattern: '([a-z' }, 'abc');
      expect(r.valid).toBe(false);
      expect(r.issues[0]).toMatch(/^Rule validationCriteria \(regex\) pattern \/\(\[a-z\/ is invalid: /);
    }
  });

  test('length: min and max with the actual length; characters, not UTF-16 units', () => {
    expect(check({ type: 'length', min: 3, max: 5 }, 'abcd').valid).toBe(true);
    expect(check({ type: 'length', min: 10 }, 'short').issues).toEqual(['Output is 5 characters; at least 10 required']);
    expect(check({ type: 'length', max: 3, message: 'Too long' }, 'abcdef').issues).toEqual(['Too long (output is 6 characters; at most 3 allowed)']);
    expect(check({ type: 'length', max: 2 }, '😀😀').valid).toBe(true);
  });

  test('schema: JSON output validated, a ```json fence stripped, the failing field named', () => {
    const schema = { type: 'object', required: ['verdict'], properties: { verdict: { enum: ['approve', 'reject'] }, n: { type: 'integer' } } };
    expect(check({ type: 'schema', schema }, '{"verdict":"approve"}').valid).toBe(true);
    expect(check({ type: 'schema', schema }, '```json\n{"verdict": "approve"}\n```').valid).toBe(true);
    expect(check({ type: 'schema', schema }, '  ```\n{"verdict": "approve"}\n```\n').valid).toBe(true);
    const bad = check({ type: 'schema', schema }, '{"verdict":"maybe","n":"3"}');
    expect(bad.valid).toBe(false);
    expect(bad.issues).toEqual(['JSON field /verdict: must be one of "approve", "reject"', 'JSON field /n: must be integer (got string)']);
    expect(bad.suggestions).toContain('Fix /verdict: it must be one of "approve", "reject".');
    const missing = check({ type: 'schema', schema, message: 'Answer with the verdict object' }, '{}');
    expect(missing.issues).toEqual(['Answer with the verdict object: /verdict: is required']);
  });

  test('schema: output that is not JSON is reported as such', () => {
    const r = check({ type: 'schema', schema: { type: 'object' } }, 'Here is my answer: {"a":1}');
    expect(r.valid).toBe(false);
    expect(r.issues[0]).toMatch(/^Output is not valid JSON/);
    expect(r.suggestions[0]).toMatch(/JSON value only/);
  });

  test('schema: a non-string output is validated as it is', () => {
    expect(check({ type: 'schema', schema: { type: 'object', required: ['a'] } }, { a: 1 }).valid).toBe(true);
    expect(check({ type: 'contains', value: '"a":1' }, { a: 1 }).valid).toBe(true);
  });

  test('schema: a schema that does not compile is an issue naming the rule', () => {
    const r = check([{ type: 'length', min: 0 }, { type: 'schema', schema: { type: 'not-a-type' } }], '{}');
    expect(r.valid).toBe(false);
    expect(r.issues[0]).toMatch(/^Rule validationCriteria\[1\] \(schema\) schema does not compile/);
  });

  test('a rule with a false condition is not applied; a true one is', () => {
    const rule = { type: 'contains', value: 'migration', condition: { var: 'touchesDb', equals: true } };
    expect(check(rule, 'no db talk', { touchesDb: false }).valid).toBe(true);
    expect(check(rule, 'no db talk', {}).valid).toBe(true);
    expect(check(rule, 'no db talk', { touchesDb: true }).valid).toBe(false);
    expect(check({ ...rule, condition: { '==': [{ var: 'touchesDb' }, true] } }, 'x', { touchesDb: true }).valid).toBe(false);
  });

  test('an unknown rule type or a malformed entry is an issue, not a crash', () => {
    expect(check({ type: 'spellcheck' }, 'x').issues[0]).toMatch(/unknown type 'spellcheck'/);
    expect(check([42], 'x').issues[0]).toMatch(/^Rule validationCriteria\[0\] expected a rule/);
  });
});

describe('compositions', () => {
  const hasA = { type: 'contains', value: 'A' };
  const hasB = { type: 'contains', value: 'B' };
  const broken = { type: 'regex', pattern: '(' };

  test('a plain array checks every rule and reports every failure', () => {
    const r = check([hasA, hasB, { type: 'length', min: 100 }], 'nothing');
    expect(r.valid).toBe(false);
    expect(r.issues).toHaveLength(3);
    expect(check([hasA, hasB], 'A and B').valid).toBe(true);
  });

  test('and stops at the first failure', () => {
    const r = check({ and: [hasA, broken, hasB] }, 'no');
    expect(r.issues).toEqual(['Output does not contain "A"']);
    expect(check({ and: [hasA, hasB] }, 'A B').valid).toBe(true);
  });

  test('or stops at the first success and reports every alternative when none passes', () => {
    expect(check({ or: [hasA, broken] }, 'A').valid).toBe(true);
    const r = check({ or: [hasA, hasB] }, 'none');
    expect(r.valid).toBe(false);
    expect(r.issues).toEqual([
      'Alternative 1 of 2 (any one is enough): Output does not contain "A"',
      'Alternative 2 of 2 (any one is enough): Output does not contain "B"',
    ]);
    expect(r.suggestions[0]).toMatch(/at least one of the 2 alternatives/);
  });

  test('not inverts', () => {
    expect(check({ not: { type: 'contains', value: 'TODO' } }, 'all done').valid).toBe(true);
    const r = check({ not: { type: 'contains', value: 'TODO' } }, 'TODO: later');
    expect(r.valid).toBe(false);
    expect(r.issues).toEqual(['Output must not contain "TODO", but it does']);
    expect(check({ not: { not: hasA } }, 'A').valid).toBe(true);
  });

  test("code-review's review criteria: and of length and an or", () => {
    const criteria = {
      and: [
        { type: 'length', min: 20, message: 'Say something concrete about the file' },
        {
          or: [
            { type: 'contains', value: 'line', message: 'Point at a line' },
            { type: 'contains', value: 'no findings', message: 'Or say there are no findings' },
          ],
        },
      ],
    };
    expect(check(criteria, 'Null check missing at line 12 of the parser').valid).toBe(true);
    expect(check(criteria, 'I looked at it and there are no findings.').valid).toBe(true);
    expect(check(criteria, 'ok').issues).toEqual(['Say something concrete about the file (output is 2 characters; at least 20 required)']);
    expect(check(criteria, 'Looks reasonable overall to me, nice work').issues).toHaveLength(2);
  });

  test('compositions nest to any depth', () => {
    let criteria: unknown = hasA;
    for (let i = 0; i < 300; i++) criteria = i % 3 === 0 ? { and: [criteria] } : i % 3 === 1 ? { or: [criteria] } : [criteria];
    expect(check(criteria, 'A').valid).toBe(true);
    expect(check(criteria, 'z').issues).toEqual(['Output does not contain "A"']);
    let negated: unknown = hasA;
    for (let i = 0; i < 101; i++) negated = { not: negated };
    expect(check(negated, 'A').valid).toBe(false);
    expect(check(negated, 'z').valid).toBe(true);
  });

  test('empty compositions pass', () => {
    expect(check({ and: [] }, 'x').valid).toBe(true);
    expect(check({ or: [] }, 'x').valid).toBe(true);
    expect(check([], 'x').valid).toBe(true);
  });

  test('suggestions are not repeated', () => {
    const r = check([hasA, hasA], 'z');
    expect(r.issues).toHaveLength(2);
    expect(r.suggestions).toEqual(['Include "A" in the output.']);
  });
});

describe('stripJsonFence', () => {
  test.each([
    ['```json\n{"a":1}\n```', '{"a":1}'],
    ['```JSON\r\n[1]\r\n```', '[1]'],
    ['```\n{}\n```', '{}'],
    ['  {"a": 1}  ', '{"a": 1}'],
    ['text ```json\n{}\n```', 'text ```json\n{}\n```'],
  ])('%j → %j', (input, expected) => {
    expect(stripJsonFence(input)).toBe(expected);
  });
});
