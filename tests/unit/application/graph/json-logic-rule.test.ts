import { CompiledJsonLogicRule } from '../../../../src/modules/graph/application/engine/json-logic-rule';
import { DEFAULT_EXPRESSION_LIMITS } from '../../../../src/modules/graph/application/engine/jsonata-expression';

const compile = (rule: unknown): CompiledJsonLogicRule => CompiledJsonLogicRule.compile(rule, DEFAULT_EXPRESSION_LIMITS);

describe('CompiledJsonLogicRule', () => {
  const context = { entry: { n: 5, items: [1, 2, 3, 4], name: 'abc' }, inc: { counter: 2 } };

  it('evaluates var operands as JSONata over the context', async () => {
    expect(await compile({ '<': [{ var: '$.inc.counter' }, { var: '$.entry.n' }] }).evaluate(context, {})).toBe(true);
    expect(await compile({ '==': [{ var: '$count($.entry.items) * 2' }, 8] }).evaluate(context, {})).toBe(true);
    expect(await compile({ '==': [{ var: '$uppercase($.entry.name)' }, 'ABC'] }).evaluate(context, {})).toBe(true);
  });

  it('passes the bindings (history functions) to var expressions', async () => {
    const rule = compile({ '>=': [{ var: '$executionCount("inc")' }, 3] });
    expect(await rule.evaluate(context, { executionCount: () => 3 })).toBe(true);
    expect(await rule.evaluate(context, { executionCount: () => 2 })).toBe(false);
  });

  it('uses the var default when the expression yields nothing', async () => {
    expect(await compile({ '==': [{ var: ['$.missing.path', 7] }, 7] }).evaluate(context, {})).toBe(true);
    expect(await compile({ '==': [{ var: '$.missing.path' }, null] }).evaluate(context, {})).toBe(true);
  });

  it('treats object and array values from JSONata as data, not as rules', async () => {
    expect(await compile({ '!!': [{ var: '$.inc' }] }).evaluate(context, {})).toBe(true);
    expect(await compile({ in: [3, { var: '$.entry.items' }] }).evaluate(context, {})).toBe(true);
  });

  it('keeps var semantics inside map/filter/all/some/none/reduce bodies', async () => {
    // The array comes from JSONata; `{"var": ""}` inside the body is the current element.
    const sum = (list: unknown): unknown => ({ reduce: [list, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] });
    const filtered = compile({ '==': [sum({ filter: [{ var: '$.entry.items' }, { '>': [{ var: '' }, 2] }] }), 7] });
    expect(await filtered.evaluate(context, {})).toBe(true);
    const mapped = compile({ '==': [{ reduce: [{ map: [{ var: '$.entry.items' }, { '*': [{ var: '' }, 10] }] }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, { var: '$.inc.counter' }] }, 102] });
    expect(await mapped.evaluate(context, {})).toBe(true);
    expect(await compile({ all: [{ var: '$.entry.items' }, { '>': [{ var: '' }, 0] }] }).evaluate(context, {})).toBe(true);
    expect(await compile({ some: [{ var: '$.entry.items' }, { '==': [{ var: '' }, 4] }] }).evaluate(context, {})).toBe(true);
    expect(await compile({ none: [{ var: '$.entry.items' }, { '==': [{ var: '' }, 9] }] }).evaluate(context, {})).toBe(true);
  });

  it('compares objects of records inside bodies by their JSON Logic paths', async () => {
    const ctx = { list: { people: [{ age: 30 }, { age: 12 }] } };
    const rule = compile({ some: [{ var: '$.list.people' }, { '<': [{ var: 'age' }, 18] }] });
    expect(await rule.evaluate(ctx, {})).toBe(true);
  });

  it('refuses unknown operators and invalid JSONata at compile time', () => {
    expect(() => compile({ frobnicate: [1, 2] })).toThrow("rule: unknown JSON Logic operator 'frobnicate'");
    expect(() => compile({ map: [{ var: '$.x' }, { bogus: [] }] })).toThrow("unknown JSON Logic operator 'bogus'");
    expect(() => compile({ '==': [{ var: '$.a +' }, 1] })).toThrow(/var "\$\.a \+" is not valid JSONata/);
  });
});
