import { ProtocolError, type JSONRPCRequest, type Server, type ServerContext, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import type { Identity } from '../kernel/identity';
import type { Logger } from '../kernel/logger';
import type { CallTracker } from '../kernel/shutdown-coordinator';
import { CancelledError, ErrorCodes } from '../kernel/errors';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import type { ToolRegistry } from '../kernel/tools/tool-registry';
import { errorResult, toJsonRpcError } from './error-mapper';
import { closestName, unknownNameMessage } from './closest-name';
import { toolCallParams } from './tool-call-params';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import type { ToolDispatcher } from './tool-dispatcher';
import type { ProtocolEra } from './protocol-era';
import type { ProtocolState } from './protocol-state';
import { installModernToolCall } from './modern-tool-call';
import { installTasksExtension } from './tasks-extension/tasks-extension-handlers';
import type { CallSeam } from './session-call-context';

/** The params schema of a plain method in the modern era: any object (the tool's own input schema checks it). */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'workgraph', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

/** The answer to a call that arrives once shutdown started. */
const SHUTTING_DOWN = 'the server is shutting down and takes no new calls';

/** What one session's tool calls need from its server (mcp-server.ts). */
export interface SessionToolCallsHost {
  era: ProtocolEra;
  registry: ToolRegistry;
  dispatcher: ToolDispatcher;
  logger: Logger;
  calls: CallTracker;
  /** Ids of requests that arrived once shutdown had started: answered "shutting down", not run. */
  refused: Set<string | number>;
  /** The modern era's state in the stores; without it the modern era runs no tasks and asks no questions. */
  protocolState?: () => ProtocolState;
  /** The tool a call names for this request (the registry's, or the views' app-only tool). */
  findTool(name: string, ctx: ServerContext): ToolDefinition | undefined;
  identityOf(ctx: ServerContext): Identity;
  /** Runs `fn` with the call's context; its signal aborts when the request is cancelled or the server shuts down. */
  run<T>(ctx: ServerContext, fn: (callCtx: CallContext) => Promise<T>, seam?: CallSeam): Promise<T>;
  /** A call's context with the given signal (a task's run: its own signal and progress). */
  callContext(ctx: ServerContext, signal: () => AbortSignal, seam?: CallSeam): CallContext;
}

/**
 * Registers how one session's tools are called: `tools/call` and the plain JSON-RPC workflow methods. Legacy: both
 * through the SDK's fallback handler (see tool-call-params.ts), any other method -32601 with a guess. Modern:
 * registered with the SDK, so an unknown method is the SDK's own -32601 (404 over HTTP) and tools/call passes the
 * SDK's input_required seam; a long-running tool runs as a task for a client declaring the tasks extension
 * (modern-tool-call.ts, promoted-tool-call.ts).
 */
export function installSessionToolCalls(sdk: Server, host: SessionToolCallsHost): void {
  const { registry, dispatcher } = host;

  const callTool = async (request: JSONRPCRequest, ctx: ServerContext) => {
    const params = toolCallParams(request.params);
    const def = host.findTool(params.name, ctx);
    if (!def) {
      const known = registry.list().map((t) => t.name);
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, unknownNameMessage('tool', params.name, known));
    }
    if (host.refused.has(ctx.mcpReq.id)) return errorResult(ErrorCodes.Cancelled, SHUTTING_DOWN);
    return host.run(ctx, (callCtx) => dispatcher.callTool(def, params.arguments, callCtx));
  };

  const runPlain = async (def: ToolDefinition, request: JSONRPCRequest, ctx: ServerContext) => {
    const { _meta: _ignored, ...params } = (request.params ?? {}) as Record<string, unknown>;
    if (host.refused.has(ctx.mcpReq.id)) throw toJsonRpcError(new CancelledError(SHUTTING_DOWN));
    try {
      const { value } = await host.run(ctx, (callCtx) => dispatcher.run(def, params, callCtx));
      return value as Record<string, unknown>;
    } catch (e) {
      throw toJsonRpcError(e, host.logger);
    }
  };

  if (host.era === 'modern') {
    const state = host.protocolState;
    if (!state) sdk.setRequestHandler('tools/call', (request, ctx) => callTool(request as unknown as JSONRPCRequest, ctx) as never);
    else {
      installModernToolCall(sdk, {
        find: (name, ctx) => host.findTool(name, ctx),
        state,
        fallback: (request, ctx) => (host.refused.has(ctx.mcpReq.id) ? callTool(request, ctx) : undefined),
        host: () => ({
          state: state(),
          dispatcher,
          calls: host.calls,
          identity: (c) => host.identityOf(c),
          logger: host.logger,
          run: (c, fn, seam) => host.run(c, fn, seam),
          taskContext: (c, signal, progress) => ({ ...host.callContext(c, () => signal, undefined), progress }),
        }),
        callTool,
      });
      installTasksExtension(sdk, () => state().tasks, (c) => host.identityOf(c).name);
    }
    for (const def of registry.list().filter((t) => t.plainMethod)) {
      sdk.setRequestHandler(def.name, { params: ANY_PARAMS }, (_params, ctx) => runPlain(def, { jsonrpc: '2.0', id: ctx.mcpReq.id, method: def.name, params: _params as Record<string, unknown> }, ctx));
    }
  } else {
    // Plain JSON-RPC methods (workflow_*), answered before or without initialize; anything else is -32601.
    sdk.fallbackRequestHandler = async (request: JSONRPCRequest, ctx: ServerContext) => {
      if (request.method === 'tools/call') return callTool(request, ctx);
      const def = registry.get(request.method);
      if (!def || !def.plainMethod) {
        const plain = registry.list().filter((t) => t.plainMethod).map((t) => t.name);
        const guess = closestName(request.method, plain);
        throw new ProtocolError(JsonRpcErrorCodes.MethodNotFound, `Method not found: ${request.method}${guess ? ` (did you mean '${guess}'?)` : ''}`);
      }
      return runPlain(def, request, ctx);
    };
  }
}
