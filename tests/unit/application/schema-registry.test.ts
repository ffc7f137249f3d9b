import { SchemaRegistry, formatSchemaErrors } from '../../../src/kernel/schema-registry';
import { InvalidArgumentsError } from '../../../src/kernel/errors';

describe('SchemaRegistry', () => {
  const registry = new SchemaRegistry();
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    additionalProperties: false,
    properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, mail: { type: 'string', format: 'email' } },
  };

  test('valid data', () => {
    expect(registry.validate(schema, { name: 'ada', age: 36 })).toEqual({ valid: true, errors: [] });
  });

  test('every error, each with the pointer of the field itself and what was expected', () => {
    const r = registry.validate(schema, { age: -1, extra: 1, mail: 'nope' });
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => [e.pointer, e.message])).toEqual([
      ['/name', 'is required'],
      ['/extra', 'is not an allowed property; allowed: name, age, mail'],
      ['/age', 'must be >= 0'],
      ['/mail', 'must be a valid email'],
    ]);
  });

  test('formatErrors gives one line per problem naming the field', () => {
    const r = registry.validate(schema, { name: 5, age: 1 });
    expect(registry.formatErrors(r.errors)).toEqual(['/name: must be string (got number)']);
    expect(formatSchemaErrors(registry.validate({ type: 'string' }, 1).errors)).toEqual(['(root): must be string (got number)']);
    const pointerWithSlash = registry.validate({ type: 'object', required: ['a/b'] }, {});
    expect(pointerWithSlash.errors[0].pointer).toBe('/a~1b');
  });

  test('compiled validators are cached by schema text', () => {
    const a = registry.compile({ type: 'number', minimum: 3 });
    const b = registry.compile({ type: 'number', minimum: 3 });
    expect(b).toBe(a);
    expect(registry.compile({ type: 'number', minimum: 4 })).not.toBe(a);
  });

  test('draft-07 and 2020-12 schemas both work', () => {
    const d7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', definitions: { n: { type: 'number' } }, properties: { x: { $ref: '#/definitions/n' } } };
    expect(registry.validate(d7, { x: 'a' }).errors[0]).toMatchObject({ pointer: '/x', message: 'must be number (got string)' });
    const d2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] };
    expect(registry.validate(d2020, [1]).valid).toBe(false);
  });

  test('a changed schema with the same $id replaces the old one', () => {
    expect(registry.validate({ $id: 'urn:test:x', type: 'number' }, 'a').valid).toBe(false);
    expect(registry.validate({ $id: 'urn:test:x', type: 'string' }, 'a').valid).toBe(true);
  });

  test('a schema that does not compile is an InvalidArgumentsError naming the schema', () => {
    expect(() => registry.validate({ type: 'nonsense' }, 1)).toThrow(InvalidArgumentsError);
    expect(() => registry.validate({ type: 'nonsense' }, 1)).toThrow(/schema does not compile/);
    expect(() => registry.validate([1] as never, 1)).toThrow(/must be a JSON Schema object/);
  });

  test('boolean schemas', () => {
    expect(registry.validate(true, 1).valid).toBe(true);
    expect(registry.validate(false, 1).valid).toBe(false);
  });
});
