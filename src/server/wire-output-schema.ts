import type { JsonSchema } from '../kernel/tools/tool-definition';

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'];
/** Keywords whose value is a subschema or a list of subschemas. */
const SCHEMA_VALUES = ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'contains', 'prefixItems'];

const cache = new WeakMap<object, JsonSchema>();

/**
 * An output schema as tools/list serves it: the same schema without its `description` keywords. Clients use an
 * output schema to check structuredContent, and models are not shown it, so its prose only costs every session's
 * tools/list bytes (issue 11: the list an agent pays for stays small); the full declarations, prose included, are in
 * spec/mcp-api.md. A property *named* `description` is kept — only the keyword goes. Cached per declaration.
 */
export function wireOutputSchema(schema: JsonSchema): JsonSchema {
  let out = cache.get(schema);
  if (!out) {
    out = strip(schema) as JsonSchema;
    cache.set(schema, out);
  }
  return out;
}

function strip(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strip);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description') continue;
    if (SCHEMA_MAPS.includes(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strip(sub)]));
    } else if (SCHEMA_VALUES.includes(key)) {
      out[key] = strip(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}
