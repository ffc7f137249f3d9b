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
 * - Object schemas with `properties` but without `additionalProperties` are typed as closed (no
 *   `[key: string]: unknown`). Output schemas leave additionalProperties open so clients stay lenient, but a use case
 *   returning a domain interface must still type-check against them (interfaces have no implicit index signature).
 * - Properties with a `default` stay optional: Ajv runs without useDefaults, so a use case sees them absent.
 */
export type Static<S> = Closed<S, false> extends infer C extends JSONSchema ? FromSchema<C, { keepDefaultedPropertiesOptional: true }> : never;

/**
 * What a use case may answer for a schema: as {@link Static}, and an object schema without any `properties`
 * (`{type: "object"}`: "some object", e.g. an opaque artifact) accepts any object value, interfaces included.
 */
export type StaticAnswer<S> = Closed<S, true> extends infer C extends JSONSchema ? FromSchema<C, { keepDefaultedPropertiesOptional: true }> : never;

/** The input type of a tool's use case. */
export type ToolInput<T extends ToolSchemas> = Static<T['inputSchema']>;
/** The output type of a tool's use case. */
export type ToolOutput<T extends ToolSchemas> = StaticAnswer<T['outputSchema']>;

/** Declares the schemas of one tool (keeps the literal types for inference; returns the same object). */
export function toolSchemas<const I extends ObjectSchema, const O extends ObjectSchema>(schemas: { inputSchema: I; outputSchema: O }): ToolSchemas<I, O> {
  return schemas;
}

type ClosedList<L, A extends boolean> = { [K in keyof L]: Closed<L[K], A> };
type ClosedMap<P, A extends boolean> = { [K in keyof P]: Closed<P[K], A> };
/** Keys that close an object schema: `additionalProperties: false` when it has properties and says nothing of others. */
type CloseKeys<S, A extends boolean> = S extends { additionalProperties: unknown }
  ? never
  : S extends { properties: object }
    ? 'additionalProperties'
    : A extends true
      ? S extends { type: 'object' }
        ? 'additionalProperties' | 'properties'
        : never
      : never;
/**
 * `S` with `additionalProperties: false` added to every object schema that has `properties` and no
 * additionalProperties; with `Opaque`, also an empty closed `properties` on an object schema that declares none (typed
 * `{}`: any object).
 */
type Closed<S, Opaque extends boolean> = S extends readonly unknown[]
  ? ClosedList<S, Opaque>
  : S extends object
    ? {
        [K in keyof S | CloseKeys<S, Opaque>]: K extends keyof S
          ? K extends 'properties' | 'definitions' | '$defs' | 'patternProperties'
            ? ClosedMap<S[K], Opaque>
            : K extends 'items' | 'anyOf' | 'oneOf' | 'allOf' | 'additionalProperties' | 'not' | 'contains'
              ? Closed<S[K], Opaque>
              : S[K]
          : K extends 'properties'
            ? {}
            : false;
      }
    : S;
