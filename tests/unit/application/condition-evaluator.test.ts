import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { ExpressionError } from '../../../src/kernel/errors';

const evaluator = new ConditionEvaluator();
const ctx = {
  n: 10,
  s: 'hello world',
  list: ['a', 'b', { k: 1 }],
  user: { name: 'ada', roles: ['admin'], profile: { age: 36 } },
  nothing: null,
  count: '12',
  flag: false,
};
const ev = (c: unknown, context: Record<string, unknown> = ctx) => evaluator.evaluate(c as never, context);

describe('ConditionEvaluator — comparison form', () => {
  test.each([
    [{ var: 'n', equals: 10 }, true],
    [{ var: 'n', equals: 11 }, false],
    [{ var: 'user', equals: { name: 'ada', roles: ['admin'], profile: { age: 36 } } }, true],
    [{ var: 'nothing', equals: null }, true],
    [{ var: 'flag', equals: false }, true],
    [{ var: 'n', not_equals: 11 }, true],
    [{ var: 'n', not_equals: 10 }, false],
    [{ var: 'n', gt: 9 }, true],
    [{ var: 'n', gt: 10 }, false],
    [{ var: 'n', gte: 10 }, true],
    [{ var: 'n', gte: 11 }, false],
    [{ var: 'n', lt: 11 }, true],
    [{ var: 'n', lt: 10 }, false],
    [{ var: 'n', lte: 10 }, true],
    [{ var: 'n', lte: 9 }, false],
    [{ var: 's', gt: 'apple' }, true],
    [{ var: 'count', gt: 11 }, true],
    [{ var: 'count', lt: 11 }, false],
    [{ var: 's', gt: 5 }, false],
    [{ var: 'n', in: [1, 10, 100] }, true],
    [{ var: 'n', in: [1, 2] }, false],
    [{ var: 'user.name', in: ['ada', 'grace'] }, true],
    [{ var: 's', contains: 'world' }, true],
    [{ var: 's', contains: 'mars' }, false],
    [{ var: 'list', contains: 'b' }, true],
    [{ var: 'list', contains: { k: 1 } }, true],
    [{ var: 'list', contains: 'z' }, false],
    [{ var: 'n', contains: 1 }, false],
    [{ var: 'user.profile.age', gte: 18 }, true],
    [{ var: 'user.roles', contains: 'admin' }, true],
    [{ var: 'list.2.k', equals: 1 }, true],
  ])('%j → %s', (condition, expected) => {
    expect(ev(condition)).toBe(expected);
  });

  test('a missing variable makes every operator false, never throws', () => {
    for (const op of ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'in', 'contains']) {
      const value = op === 'in' ? [1] : 1;
      expect(ev({ var: 'missing', [op]: value })).toBe(false);
      expect(ev({ var: 'user.missing.deeper', [op]: value })).toBe(false);
      expect(ev({ var: 'n.toFixed', [op]: value })).toBe(false);
    }
  });

  test('an absent condition holds', () => {
    expect(evaluator.evaluate(undefined, ctx)).toBe(true);
    expect(evaluator.evaluate(null, ctx)).toBe(true);
  });

  test('and / or / not combine, to any depth', () => {
    expect(ev({ and: [{ var: 'n', gt: 5 }, { var: 's', contains: 'hello' }] })).toBe(true);
    expect(ev({ and: [{ var: 'n', gt: 5 }, { var: 'missing', equals: 1 }] })).toBe(false);
    expect(ev({ or: [{ var: 'missing', equals: 1 }, { var: 'n', equals: 10 }] })).toBe(true);
    expect(ev({ or: [{ var: 'missing', equals: 1 }, { var: 'n', equals: 0 }] })).toBe(false);
    expect(ev({ not: { var: 'n', equals: 10 } })).toBe(false);
    expect(ev({ not: { var: 'missing', equals: 10 } })).toBe(true);
    expect(ev({ not: [{ var: 'n', equals: 10 }] })).toBe(false);
    expect(ev({ and: [] })).toBe(true);
    expect(ev({ or: [] })).toBe(false);
    expect(ev({ and: [{ or: [{ not: { var: 'n', lt: 0 } }, { var: 'x', equals: 1 }] }, { not: { not: { var: 's', contains: 'o' } } }] })).toBe(true);
  });

  test('a comparison with an unknown operator is an error naming it (a typo must not pass silently)', () => {
    expect(() => ev({ var: 'n', equal: 10 })).toThrow(ExpressionError);
    expect(() => ev({ var: 'n', equal: 10 })).toThrow(/unknown operator 'equal'/);
  });
});

describe('ConditionEvaluator — JSON Logic', () => {
  test('any other object is JSON Logic', () => {
    expect(ev({ '==': [{ var: 'n' }, 10] })).toBe(true);
    expect(ev({ '>': [{ var: 'user.profile.age' }, 40] })).toBe(false);
    expect(ev({ in: ['admin', { var: 'user.roles' }] })).toBe(true);
    expect(ev({ '!': { var: 'flag' } })).toBe(true);
    expect(ev({ var: 's' })).toBe(true);
    expect(ev({ var: 'flag' })).toBe(false);
    expect(ev({ var: ['missing', 'fallback'] })).toBe(true);
  });

  test('JSON Logic truthiness: an empty array is false, a missing var is null (false)', () => {
    expect(ev({ var: 'empty' }, { empty: [] })).toBe(false);
    expect(ev({ var: 'missing' })).toBe(false);
    expect(ev({ '==': [{ var: 'missing' }, null] })).toBe(true);
  });

  test('JSON Logic and comparison forms mix inside and/or', () => {
    expect(ev({ and: [{ '>': [{ var: 'n' }, 1] }, { var: 's', contains: 'hello' }] })).toBe(true);
    expect(ev({ or: [{ '<': [{ var: 'n' }, 1] }, { var: 'missing', equals: 1 }] })).toBe(false);
    expect(ev({ and: [true, { var: 'n' }] })).toBe(true);
  });

  test('an unknown JSON Logic operation is an ExpressionError, not a crash', () => {
    expect(() => ev({ frobnicate: [1, 2] })).toThrow(ExpressionError);
    expect(() => ev({ frobnicate: [1, 2] })).toThrow(/frobnicate/);
  });
});
