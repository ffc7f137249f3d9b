import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import { injectable } from 'tsyringe';
import { InvalidArgumentsError } from './errors';

/** One schema violation: where (a JSON pointer into the data, `""` for the whole value) and what was expected. */
export interface SchemaIssue {
  pointer: string;
  /** What was expected, without the pointer: `is required`, `must be string (got number)`. */
  message: string;
  /** The JSON Schema keyword that failed (`required`, `type`, ...). */
  keyword: string;
}

export interface SchemaValidationResult {
  valid: boolean;
  errors: SchemaIssue[];
}

/** Compiled validators kept by JSON text; enough for every tool, workflow and rule schema of a server. */
const MAX_CACHED_VALIDATORS = 1000;

/**
 * JSON Schema validation for the whole server: tool inputs (the RPC layer), workflow files, `schema` validation rules.
 * Ajv with draft 2020-12 (draft-07 schemas work too: its meta-schema is registered), ajv-formats, `strict: false` (a
 * schema with unknown keywords still compiles), `allErrors: true` (every problem reported, not the first). Compiled
 * validators are cached by schema object and by JSON text, so a schema is compiled once. Register as a singleton.
 */
@injectable()
export class SchemaRegistry {
  private readonly ajv: Ajv2020;
  private readonly byObject = new WeakMap<object, ValidateFunction>();
  private readonly byText = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, validateSchema: true });
    addFormats(this.ajv);
    this.ajv.addMetaSchema(draft07MetaSchema);
  }

  /**
   * The compiled validator of `schema` (an object or a boolean), from the cache when compiled before.
   * @throws InvalidArgumentsError (field `schema`) when the schema does not compile, with Ajv's reason.
   */
  compile(schema: unknown): ValidateFunction {
    if (typeof schema === 'object' && schema !== null) {
      const cached = this.byObject.get(schema);
      if (cached) return cached;
    }
    const text = JSON.stringify(schema);
    let validate = this.byText.get(text);
    if (!validate) {
      validate = this.compileFresh(schema);
      if (this.byText.size >= MAX_CACHED_VALIDATORS) this.byText.delete(this.byText.keys().next().value as string);
      this.byText.set(text, validate);
    }
    if (typeof schema === 'object' && schema !== null) this.byObject.set(schema, validate);
    return validate;
  }

  /** Validates `data` against `schema`; errors carry a JSON pointer and what was expected. */
  validate(schema: unknown, data: unknown): SchemaValidationResult {
    const validate = this.compile(schema);
    if (validate(data)) return { valid: true, errors: [] };
    return { valid: false, errors: toSchemaIssues(validate.errors ?? []) };
  }

  /** One line per problem: `/field: what was expected` (`(root)` for the whole value). */
  formatErrors(errors: readonly (SchemaIssue | ErrorObject)[]): string[] {
    return formatSchemaErrors(errors);
  }

  private compileFresh(schema: unknown): ValidateFunction {
    if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
      throw new InvalidArgumentsError(`schema must be a JSON Schema object or a boolean (got ${describe(schema)})`, 'schema');
    }
    try {
      return this.ajv.compile(schema as object);
    } catch (e) {
      // A different schema with the same $id was compiled before: the newer one wins.
      const id = typeof schema === 'object' ? (schema as { $id?: unknown }).$id : undefined;
      if (typeof id === 'string' && /already exists/.test(String((e as Error).message))) {
        this.ajv.removeSchema(id);
        try {
          return this.ajv.compile(schema as object);
        } catch (retry) {
          throw compileError(retry);
        }
      }
      throw compileError(e);
    }
  }
}

/** Ajv errors as {pointer, message, keyword}: the pointer names the field itself (a missing property included). */
export function toSchemaIssues(errors: readonly ErrorObject[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  // `if` only says "must match then schema"; the failing `then` keyword is reported on its own.
  const meaningful = errors.some((e) => e.keyword !== 'if') ? errors.filter((e) => e.keyword !== 'if') : errors;
  for (const error of meaningful) {
    const issue = toIssue(error);
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** One line per problem: `/field: what was expected` (`(root)` for the whole value). Accepts Ajv errors or issues. */
export function formatSchemaErrors(errors: readonly (SchemaIssue | ErrorObject)[]): string[] {
  const issues = errors.map((e) => ('instancePath' in e ? toIssue(e) : e));
  return [...new Set(issues.map((i) => `${i.pointer || '(root)'}: ${i.message}`))];
}

function toIssue(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapePointer(String(params.missingProperty))}`, message: 'is required', keyword: 'required' };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = knownProperties(error.parentSchema);
      const allowed = known.length > 0 ? `; allowed: ${known.join(', ')}` : '';
      return { pointer: `${at}/${escapePointer(name)}`, message: `is not an allowed property${allowed}`, keyword: error.keyword };
    }
    case 'type':
      return { pointer: at, message: `must be ${String(params.type).replace(/,/g, ' or ')} (got ${describe(error.data)})`, keyword: 'type' };
    case 'enum': {
      const values = (params.allowedValues as unknown[] | undefined) ?? [];
      return { pointer: at, message: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, keyword: 'enum' };
    }
    case 'const':
      return { pointer: at, message: `must be ${JSON.stringify(params.allowedValue)}`, keyword: 'const' };
    case 'format':
      return { pointer: at, message: `must be a valid ${String(params.format)}`, keyword: 'format' };
    case 'pattern':
      return { pointer: at, message: `must match the pattern ${String(params.pattern)}`, keyword: 'pattern' };
    default:
      return { pointer: at, message: error.message ?? `fails ${error.keyword}`, keyword: error.keyword };
  }
}

function knownProperties(parentSchema: unknown): string[] {
  if (typeof parentSchema !== 'object' || parentSchema === null) return [];
  const props = (parentSchema as { properties?: unknown }).properties;
  return typeof props === 'object' && props !== null ? Object.keys(props) : [];
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function compileError(e: unknown): InvalidArgumentsError {
  return new InvalidArgumentsError(`schema does not compile: ${(e as Error)?.message ?? String(e)}`, 'schema');
}
