import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes } from '../kernel/errors';
import { MAX_STRING_CHARS } from '../kernel/json-size';
import { errorResult } from './error-mapper';
import { JsonRpcErrorCodes } from './json-rpc-codes';

// Where the SDK's own answers fall short of JSON-RPC or of the one-line error rule, and what the server answers instead.

type SdkRequestHandler = (request: JSONRPCRequest, extra: unknown) => Promise<unknown>;

/**
 * The SDK parses a request's params with its zod schema before the handler runs and lets the ZodError escape, which
 * it answers as -32603 Internal error with the issues as a multi-line JSON dump (`tools/call` with `name: null`,
 * `initialize` without `clientInfo`, `logging/setLevel` with an unknown level...). JSON-RPC says invalid params are
 * -32602: every registered handler (the SDK's own `initialize` and `ping` included) is wrapped so such a failure is
 * answered -32602 with a one-line message naming the fields (zod 4 names the error `$ZodError`). Relies on SDK 1.x keeping its handlers in
 * `_requestHandlers`; the fuzz e2e test fails if that changes.
 */
export function answerSchemaFailuresAsInvalidParams(sdk: Server): void {
  const handlers = (sdk as unknown as { _requestHandlers?: Map<string, SdkRequestHandler> })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (e) {
        const issues = (e as { issues?: unknown }).issues;
        if (!(e instanceof Error) || !/ZodError$/.test(e.name) || !Array.isArray(issues)) throw e;
        const fields = (issues as Array<{ path?: unknown[]; message?: string }>)
          .slice(0, 3)
          .map((i) => `${(i.path ?? []).join('.') || 'params'}: ${String(i.message ?? 'invalid').replace(/\s+/g, ' ')}`);
        throw new McpError(JsonRpcErrorCodes.InvalidParams, `Invalid params for ${method}: ${fields.join('; ')}`);
      }
    });
  }
}

/**
 * The stand-in for a response that cannot be serialized because it is longer than V8's longest string (the transport's
 * JSON.stringify throws RangeError): a tool call gets an error result, any other request a JSON-RPC error, with the
 * same id. Undefined for any other failure (a closed pipe, a notification).
 */
export function answerTooLargeToSend(message: JSONRPCMessage, e: unknown): { id: string | number; reason: string; message: JSONRPCMessage } | undefined {
  const m = message as { id?: string | number; method?: string; result?: { content?: unknown } };
  if (!(e instanceof RangeError) || m.method !== undefined || m.id === undefined || m.result === undefined) return undefined;
  const reason = `the answer is too large to send (longer than the longest string this runtime can build, ${Math.round(MAX_STRING_CHARS / 1024 ** 2)} MiB): ask for less`;
  const reply: JSONRPCMessage = Array.isArray(m.result.content)
    ? { jsonrpc: '2.0', id: m.id, result: errorResult(ErrorCodes.Internal, reason) }
    : { jsonrpc: '2.0', id: m.id, error: { code: JsonRpcErrorCodes.InternalError, message: reason } };
  return { id: m.id, reason, message: reply };
}
