import type { InjectionToken } from 'tsyringe';
import type { CallContext } from '../call-context';
import type { UseCase } from '../use-case';

/** A JSON Schema object (draft 2020-12 / 07 subset Ajv understands). */
export type JsonSchema = Record<string, unknown>;

/** MCP tool annotations (hints for clients; see the MCP spec). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * What a handler may return when the result needs `_meta` besides the structured content (graph tools put their
 * `executionId` there).
 */
export class ToolResultWithMeta<T extends object = object> {
  constructor(readonly value: T, readonly meta: Record<string, unknown>) {}
}

/**
 * One MCP tool, declared once: `tools/list`, input validation (Ajv, before the use case runs), spec/mcp-api.md and the
 * tests all read from this declaration.
 */
export interface ToolDefinition {
  /** Tool name, `^[a-zA-Z0-9_.-]{1,64}$`. */
  name: string;
  title?: string;
  description: string;
  /** Must be `type: "object"`. */
  inputSchema: JsonSchema;
  /** Must be `type: "object"` (the SDK client rejects any other). */
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** The use case that runs the tool, resolved lazily from the container on first call. */
  useCase?: InjectionToken<UseCase<any, any>>;
  /** Alternative to `useCase` for tools built at run time (graph tools). */
  handler?: (input: any, ctx: CallContext) => Promise<object | ToolResultWithMeta>;
  /** Also answered as a plain JSON-RPC method of the same name, before or without `initialize`. Default false. */
  plainMethod?: boolean;
  /** Which module declared it (workflow, graph, tasks, knowledge) — for docs and the startup line. */
  module: string;
}
