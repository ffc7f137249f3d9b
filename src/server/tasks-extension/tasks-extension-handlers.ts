import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, type Server, type ServerContext, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from './extension-task';
import type { ExtensionTasks } from './extension-tasks';

/** The params of tasks/get, tasks/update and tasks/cancel: `{taskId}` (checked by ExtensionTasks, naming the field). */
const TASK_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'workgraph', validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }) },
};

/** Whether the request's client declared the tasks extension in its per-request capabilities. */
export function declaresTasksExtension(ctx: ServerContext): boolean {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as { extensions?: Record<string, unknown> } | undefined;
  return typeof caps?.extensions?.[TASKS_EXTENSION] === 'object';
}

/**
 * Registers the extension's methods on a modern-era server: `tasks/get`, `tasks/update`, `tasks/cancel`, each refused
 * -32021 (naming the extension) for a client that does not declare it, and answered for the caller's own tasks only.
 */
export function installTasksExtension(sdk: Server, tasks: () => ExtensionTasks, caller: (ctx: ServerContext) => string): void {
  const guard = (ctx: ServerContext) => {
    if (!declaresTasksExtension(ctx)) {
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, `Missing required client capability: the ${TASKS_EXTENSION} extension`);
    }
  };
  sdk.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async (params, ctx) => {
    guard(ctx);
    return (await tasks().get(params.taskId, caller(ctx))) as never;
  });
  sdk.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async (params, ctx) => {
    guard(ctx);
    return tasks().update(params.taskId, caller(ctx));
  });
  sdk.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async (params, ctx) => {
    guard(ctx);
    return tasks().cancel(params.taskId, caller(ctx));
  });
}

type SdkRequestHandler = (request: { id?: unknown }, extra: unknown) => Promise<unknown>;

/**
 * The SDK's `tools/call` seam knows the results `complete` and `input_required` only: it would validate a
 * CreateTaskResult as a CallToolResult and add `content: []` to it. So the handler hands a CreateTaskResult over in
 * `answered` (by request id) with a stand-in result, and the handler the SDK registered is wrapped to answer the
 * CreateTaskResult itself, as the extension says (`resultType: "task"`; the SDK's encoder keeps a non-`complete`
 * resultType of tools/call and stamps the server identity). Relies on SDK 2.x keeping its handlers in
 * `_requestHandlers`; the tasks-extension e2e test fails if that changes.
 */
export function answerTaskResults(sdk: Server, answered: Map<unknown, Record<string, unknown>>): void {
  const handlers = (sdk as unknown as { _requestHandlers?: Map<string, SdkRequestHandler> })._requestHandlers;
  const handler = handlers instanceof Map ? handlers.get('tools/call') : undefined;
  if (!handler) return;
  handlers!.set('tools/call', async (request, extra) => {
    try {
      const result = await handler(request, extra);
      return answered.get(request.id) ?? result;
    } finally {
      answered.delete(request.id);
    }
  });
}

/** Whether a tool call's answer is the tasks extension's CreateTaskResult. */
export function isCreateTaskResult(result: unknown): result is Record<string, unknown> {
  return typeof result === 'object' && result !== null && (result as { resultType?: unknown }).resultType === 'task';
}
