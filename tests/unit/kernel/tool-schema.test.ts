import { defineTool, type ToolDefinition } from '../../../src/kernel/tools/tool-definition';
import { toolSchemas, type ToolInput, type ToolOutput } from '../../../src/kernel/tools/tool-schema';
import type { UseCase } from '../../../src/kernel/use-case';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';

/**
 * One declaration gives the wire schema and the use case's types. The type-level half of these tests is checked by
 * `npm run typecheck` (and ts-jest): each `@ts-expect-error` line must stay an error, or the compile fails.
 */
const greetSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1 }, times: { type: 'integer', minimum: 1, default: 1 } },
  },
  outputSchema: {
    type: 'object',
    required: ['text', 'meta'],
    properties: { text: { type: 'string' }, meta: { type: 'object' }, mood: { enum: ['calm', 'loud'] } },
  },
});

type GreetInput = ToolInput<typeof greetSchemas>;
type GreetOutput = ToolOutput<typeof greetSchemas>;

/** A domain value typed as an interface (no index signature), as use cases return them. */
interface Meta {
  at: string;
}

class Greet implements UseCase<GreetInput, GreetOutput> {
  async execute(input: GreetInput): Promise<{ text: string; meta: Meta; mood?: 'calm' }> {
    return { text: `hello ${input.name}`.repeat(input.times ?? 1), meta: { at: 'now' } };
  }
}

describe('typed tool declarations', () => {
  it('derives the input type: required fields required, defaulted ones optional, no other fields', () => {
    const ok: GreetInput = { name: 'a' };
    // @ts-expect-error name is required
    const missing: GreetInput = { times: 2 };
    // @ts-expect-error times is an integer
    const wrongType: GreetInput = { name: 'a', times: 'two' };
    // @ts-expect-error additionalProperties: false
    const extra: GreetInput = { name: 'a', other: 1 };
    expect([ok, missing, wrongType, extra]).toHaveLength(4);
  });

  it('derives the output type: enums are literal unions, an open object takes an interface', async () => {
    const out: GreetOutput = await new Greet().execute({ name: 'x' });
    // @ts-expect-error mood is 'calm' | 'loud'
    const badMood: GreetOutput = { text: '', meta: {}, mood: 'sad' };
    expect(out.text).toBe('hello x');
    expect(badMood.mood).toBe('sad');
  });

  it('sends and validates the very literal it was declared with', () => {
    const def: ToolDefinition = defineTool({
      name: 'greet',
      description: 'Greets.',
      ...greetSchemas,
      annotations: { readOnlyHint: true },
      handler: async (input) => ({ text: input.name, meta: {} }),
      module: 'test',
    });
    expect(def.inputSchema).toBe(greetSchemas.inputSchema);
    expect(JSON.stringify(def.outputSchema)).toBe(JSON.stringify(greetSchemas.outputSchema));
    const registry = new SchemaRegistry();
    expect(registry.validate(def.inputSchema, { name: 'a' }).valid).toBe(true);
    expect(registry.validate(def.inputSchema, { name: '' }).valid).toBe(false);
    const wrong = defineTool({
      ...greetSchemas,
      name: 'greet_wrong',
      description: 'Answers a number where the output schema says a string.',
      annotations: {},
      // @ts-expect-error the handler must answer the output schema's type (text is a string)
      handler: async (input) => ({ text: input.times, meta: {} }),
      module: 'test',
    });
    expect(wrong.name).toBe('greet_wrong');
  });

});
