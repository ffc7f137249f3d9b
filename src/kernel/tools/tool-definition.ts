import type { InjectionToken } from 'tsyringe';
import type { CallContext } from '../call-context';
import type { Scope } from '../identity';
import type { UseCase } from '../use-case';
import type { ObjectSchema, Static, StaticAnswer, ToolSchemas } from './tool-schema';
import type { AppView } from './app-views';

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
 * tests all read from this declaration. `In` and `Out` are the use case's input and output types, inferred from the
 * schemas by `defineTool` (built-in tools) or left `unknown` (graph tools, whose schemas come from files at run time).
 */
export interface ToolDefinition<In = unknown, Out = unknown> {
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
  useCase?: InjectionToken<UseCase<In, Out>>;
  /**
   * Alternative to `useCase` for tools built at run time (graph tools). A method, so a definition with a narrower
   * input type is still a `ToolDefinition` (the dispatcher has validated the input against the schema first).
   */
  handler?(input: In, ctx: CallContext): Promise<Out | ToolResultWithMeta>;
  /**
   * The scope a caller needs (docs/http.md "Scopes"). Default: `read` for a tool annotated `readOnlyHint: true`, else
   * `write` — see {@link requiredScope}. Say `run` for a tool that runs commands (validation, verification).
   */
  scope?: Scope;
  /** Also answered as a plain JSON-RPC method of the same name, before or without `initialize`. Default false. */
  plainMethod?: boolean;
  /** Which module declared it (workflow, graph, tasks, knowledge) — for docs and the startup line. */
  module: string;
  /**
   * The tool may run long (docs/protocol-eras.md "Tasks"): a 2026-07-28 client that declares the tasks extension
   * (`io.modelcontextprotocol/tasks`) gets a call of it as a task — answered at once with a task id, run in the
   * background, its state (progress, result, cancellation) kept in the stores so any instance answers `tasks/get`.
   * Other clients call it as before. With `promoted: true` only the calls whose use case says so become tasks.
   */
  longRunning?: LongRunning;
  /**
   * The MCP Apps view that shows this tool's result (`ui://workgraph/<view>`, app-views.ts). Announced as
   * `_meta.ui.resourceUri` on tools/list only to clients that declare the extension, unless `--no-ui`.
   */
  view?: AppView;
}

/** What a long-running tool says about running as a task. */
export interface LongRunning {
  /**
   * The arguments a task's run is called with, from the caller's: e.g. validate_task_loop waits for the command's
   * end instead of answering "still running" after `waitSeconds`. Default: the caller's, unchanged.
   */
  taskArguments?(args: Record<string, unknown>): Record<string, unknown>;
  /**
   * Only some calls run long: a call starts as any other and becomes a task when its use case calls
   * `ctx.promoteToTask()` (CallContext), e.g. right before it runs a command — workflow_continue on a verification
   * step, not every continue. Default false: every call is a task from the start. `taskArguments` does not apply.
   */
  promoted?: boolean;
}

/** What a built-in tool declaration says besides its schemas. */
type ToolDeclaration<I extends ObjectSchema, O extends ObjectSchema> = Omit<ToolDefinition<NoInfer<Static<I>>, NoInfer<StaticAnswer<O>>>, 'inputSchema' | 'outputSchema'> &
  ToolSchemas<I, O>;

/**
 * Declares a built-in tool: its schemas (usually a `toolSchemas(...)` constant from the module's application layer,
 * spread in, so the use case takes its types from the same literal) and the rest of its declaration. The use case
 * token and handler are typed with the input and output the schemas describe.
 */
export function defineTool<I extends ObjectSchema, O extends ObjectSchema>(declaration: ToolDeclaration<I, O>): ToolDefinition {
  return declaration;
}

/**
 * The scope a call of `def` needs, from its declaration alone: its explicit `scope`, else `read` when it declares
 * itself read-only (`readOnlyHint: true`), else `write`. A new tool is thus a write unless it says otherwise — it
 * cannot be forgotten open.
 */
export function requiredScope(def: Pick<ToolDefinition, 'scope' | 'annotations'>): Scope {
  return def.scope ?? (def.annotations.readOnlyHint === true ? 'read' : 'write');
}
