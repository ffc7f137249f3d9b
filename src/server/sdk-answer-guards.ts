import { ProtocolError, type JSONRPCMessage, type JSONRPCRequest, type Server } from '@modelcontextprotocol/server';
import { ErrorCodes } from '../kernel/errors';
import { MAX_STRING_CHARS } from '../kernel/json-size';
import { errorResult } from './error-mapper';
import { JsonRpcErrorCodes } from './json-rpc-codes';

// Where the SDK's own answers fall short of JSON-RPC or of the one-line error rule, and what the server answers instead.

type SdkRequestHandler = (request: JSONRPCRequest, extra: unknown) => Promise<unknown>;

/**
 * The SDK validates a request's params against its wire schema before the handler runs and, when they do not fit,
 * throws a plain Error whose message is the zod issues as a multi-line JSON dump, which it answers as -32603 Internal
 * error (`initialize` without `clientInfo`, `logging/setLevel` with an unknown level, `prompts/get` without a name...).
 * JSON-RPC says invalid params are -32602: every registered handler (the SDK's own `initialize` and `ping` included)
 * is wrapped so such a failure is answered -32602 with a one-line message naming the fields. Relies on SDK 2.x keeping
 * its handlers in `_requestHandlers` and its issue dump; the fuzz e2e test fails if either changes.
 */
export function answerSchemaFailuresAsInvalidParams(sdk: Server): void {
  const handlers = (sdk as unknown as { _requestHandlers?: Map<string, SdkRequestHandler> })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (e) {
        const issues = schemaIssues(e);
        if (!issues) throw e;
        const fields = issues
          .slice(0, 3)
          .map((i) => `${(i.path ?? []).filter((p) => p !== 'params').join('.') || 'params'}: ${String(i.message ?? 'invalid').replace(/\s+/g, ' ')}`);
        throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `Invalid params for ${method}: ${fields.join('; ')}`);
      }
    });
  }
}

type SchemaIssue = { path?: unknown[]; message?: string };

/** The schema issues a validation failure carries: a zod error's, or the SDK's JSON dump of them in a plain Error. */
function schemaIssues(e: unknown): SchemaIssue[] | undefined {
  if (!(e instanceof Error) || e instanceof ProtocolError) return undefined;
  const own = (e as { issues?: unknown }).issues;
  if (/ZodError$/.test(e.name) && Array.isArray(own)) return own as SchemaIssue[];
  if (e.name !== 'Error' || !e.message.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(e.message);
    const isIssue = (i: unknown) => typeof i === 'object' && i !== null && Array.isArray((i as SchemaIssue).path) && typeof (i as SchemaIssue).message === 'string';
    return Array.isArray(parsed) && parsed.length > 0 && parsed.every(isIssue) ? (parsed as SchemaIssue[]) : undefined;
  } catch {
    return undefined;
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
