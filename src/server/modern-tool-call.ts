import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import { InputRequest } from '../kernel/call-input';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import type { ModernCallHost } from './modern-call-host';
import type { ProtocolState } from './protocol-state';
import { toErrorResult } from './error-mapper';
import { answerTaskResults, declaresTasksExtension, isCreateTaskResult } from './tasks-extension/tasks-extension-handlers';
import type { JSONRPCRequest, Server } from '@modelcontextprotocol/server';
import { toolCallParams } from './tool-call-params';
import { promotableToolCall } from './promoted-tool-call';

/**
 * A 2026-07-28 `tools/call` of a known tool:
 * - a long-running tool (`longRunning` in its declaration) called by a client that declares the tasks extension runs
 *   as a task: answered at once with the CreateTaskResult, its run going on in the background (extension-tasks.ts);
 *   one declared `longRunning: { promoted: true }` becomes a task only when its use case says so (promoted-tool-call.ts);
 * - any other call runs as in the legacy era, with `ctx.input` when the client can be asked: a use case that throws
 *   {@link InputRequest} ends the call with an `input_required` result (the question, a signed requestState), and the
 *   retried call carries the answer (input-required.ts).
 */
export type { ModernCallHost };

export async function modernToolCall(def: ToolDefinition, args: unknown, ctx: ServerContext, host: ModernCallHost): Promise<CallToolResult | Record<string, unknown>> {
  if (def.longRunning?.promoted && declaresTasksExtension(ctx)) return promotableToolCall(def, args, ctx, host, host.logger);
  const identity = host.identity(ctx);
  if (def.longRunning && !def.longRunning.promoted && declaresTasksExtension(ctx)) {
    const taskArgs = def.longRunning.taskArguments && isObject(args) ? def.longRunning.taskArguments(args) : args;
    return host.state.tasks
      .start({
        tool: def.name,
        owner: identity.name,
        track: host.calls,
        run: (signal, report) => {
          const progress: CallContext['progress'] = (value, total, message) => report(message ?? (total !== undefined ? `${value} of ${total}` : `${value}`));
          return host.dispatcher.callTool(def, taskArgs, host.taskContext(ctx, signal, progress)) as Promise<Record<string, unknown>>;
        },
      })
      // The task could not be created (its store failed): an error result, as any tool failure.
      .catch((e) => toErrorResult(e));
  }
  const seam = await host.state.seam(ctx, { tool: def.name, caller: identity.name, args });
  return host.run(
    ctx,
    async (callCtx) => {
      try {
        return await host.dispatcher.callTool(def, args, callCtx);
      } catch (e) {
        if (e instanceof InputRequest) return seam.ask(e);
        throw e;
      }
    },
    seam,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What {@link installModernToolCall} needs from the session's server. */
export interface ModernToolCallOptions {
  /** The tool a call names for this request (the registry's, or the views' app-only tool). */
  find(name: string, ctx: ServerContext): ToolDefinition | undefined;
  state: () => ProtocolState;
  host: () => ModernCallHost;
  /** The answer for a request that must not run (shutdown started), if it is one. */
  fallback(request: JSONRPCRequest, ctx: ServerContext): Promise<CallToolResult> | undefined;
  /** The plain tools/call (an unknown tool's error, the same answer as the legacy era). */
  callTool(request: JSONRPCRequest, ctx: ServerContext): Promise<CallToolResult>;
}

/** Registers the modern era's `tools/call` on `sdk`: {@link modernToolCall} for known tools, CreateTaskResults answered as they are. */
export function installModernToolCall(sdk: Server, opts: ModernToolCallOptions): void {
  const tasksAnswered = new Map<unknown, Record<string, unknown>>();
  const handle = async (request: JSONRPCRequest, ctx: ServerContext) => {
    const params = toolCallParams(request.params);
    const def = opts.find(params.name, ctx);
    if (!def) return opts.callTool(request, ctx);
    const refused = opts.fallback(request, ctx);
    if (refused) return refused;
    const result = await modernToolCall(def, params.arguments, ctx, opts.host());
    if (!isCreateTaskResult(result)) return result;
    tasksAnswered.set(ctx.mcpReq.id, result);
    return { content: [] };
  };
  sdk.setRequestHandler('tools/call', (request, ctx) => handle(request as unknown as JSONRPCRequest, ctx) as never);
  answerTaskResults(sdk, tasksAnswered);
}
