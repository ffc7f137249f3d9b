import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** Checks a value against one compiled JSON Schema: undefined when valid, else a one-line reason naming the field. */
export type ValueValidator = (value: unknown) => string | undefined;

/** Compiles a schema into a {@link ValueValidator}; throws when the schema itself is invalid. */
export type ValidatorFactory = (schema: Record<string, unknown>) => ValueValidator;

/**
 * The default factory: one Ajv instance per graph load (strict off: graph files carry mcpgraph's loose schemas;
 * formats on; the first error only — a tool call is refused on its first bad field).
 */
export function createAjvValidatorFactory(): ValidatorFactory {
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  return (schema) => {
    const validate = ajv.compile(schema);
    return (value) => {
      if (validate(value)) return undefined;
      const e = validate.errors?.[0];
      if (!e) return 'invalid value';
      const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(root)';
      const extra = e.keyword === 'additionalProperties' ? ` '${String(e.params.additionalProperty)}'` : '';
      return `${field}: ${e.message ?? 'invalid'}${extra}`;
    };
  };
}
