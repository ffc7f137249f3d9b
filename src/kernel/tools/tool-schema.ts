import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * Typed tool schemas. A tool's input and output schemas are written once, as plain JSON Schema literals (`as const`),
 * and everything else is derived from that one literal: the JSON Schema that tools/list sends and Ajv checks is the
 * literal itself (so the wire cannot drift from the declaration, key order included), and the TypeScript types of the
 * use case's input and output are inferred from it by json-schema-to-ts. See docs/architecture.md "How to add a tool".
 */

/** An object schema literal, as a tool's input or output schema must be (the SDK client rejects any other). */
export type ObjectSchema = { readonly type: 'object' } & JSONSchema & object;

/** The input and output schema of one tool: what a use case and its tool declaration share. */
export interface ToolSchemas<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> {
  readonly inputSchema: I;
  readonly outputSchema: O;
}

/**
 * The TypeScript type of the values a schema accepts.
 *
 * Two choices differ from json-schema-to-ts's defaults, both on purpose:
 * - Object schemas without `additionalProperties` are typed as closed (no `[key: string]: unknown`). Output schemas
 *   leave additionalProperties open so clients stay lenient, but a use case returning a domain interface must still
 *   type-check against them (interfaces have no implicit index signature).
 * - Properties with a `default` stay optional: Ajv runs without useDefaults, so a use case sees them absent.
 */
export type Static<S> = Closed<S> extends infer C extends JSONSchema ? FromSchema<C, { keepDefaultedPropertiesOptional: true }> : never;

/** The input type of a tool's use case. */
export type ToolInput<T extends ToolSchemas> = Static<T['inputSchema']>;
/** The output type of a tool's use case. */
export type ToolOutput<T extends ToolSchemas> = Static<T['outputSchema']>;

/** Declares the schemas of one tool (keeps the literal types for inference; returns the same object). */
export function toolSchemas<const I extends ObjectSchema, const O extends ObjectSchema>(schemas: { inputSchema: I; outputSchema: O }): ToolSchemas<I, O> {
  return schemas;
}

type ClosedList<L> = { [K in keyof L]: Closed<L[K]> };
type ClosedMap<P> = { [K in keyof P]: Closed<P[K]> };
/** `S` with `additionalProperties: false` added to every object schema that has `properties` and no additionalProperties. */
type Closed<S> = S extends readonly unknown[]
  ? ClosedList<S>
  : S extends object
    ? {
        [K in keyof S | (S extends { properties: object } ? 'additionalProperties' : never)]: K extends keyof S
          ? K extends 'properties' | 'definitions' | '$defs' | 'patternProperties'
            ? ClosedMap<S[K]>
            : K extends 'items' | 'anyOf' | 'oneOf' | 'allOf' | 'additionalProperties' | 'not' | 'contains'
              ? Closed<S[K]>
              : S[K]
          : false;
      }
    : S;
