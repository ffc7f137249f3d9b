import { ProtocolError } from '@modelcontextprotocol/server';
import { JsonRpcErrorCodes } from './json-rpc-codes';

/** The params of a `tools/call` request, as the dispatcher reads them. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * Checks the envelope of a `tools/call` request's params — what the SDK's zod schema checks, once: `params` an object,
 * `name` a string, `arguments` absent or an object, `_meta.progressToken` absent or a string or number. The
 * arguments themselves are checked by the tool's own input schema (Ajv) in the dispatcher.
 *
 * Why not the SDK's `setRequestHandler(CallToolRequestSchema)`: it parses every call's params with zod twice and the
 * result once more, about a tenth of a fast call's time (bench/rpc-latency.js); the answer is built here from declared
 * schemas, so checking it again adds nothing.
 * @throws ProtocolError -32602 naming the field and what was expected.
 */
export function toolCallParams(params: unknown): ToolCallParams {
  if (!isObject(params)) throw invalid('params', 'an object', params);
  const { name, arguments: args, _meta: meta } = params as { name?: unknown; arguments?: unknown; _meta?: unknown };
  if (typeof name !== 'string') throw invalid('name', 'a string', name);
  if (args !== undefined && !isObject(args)) throw invalid('arguments', 'an object', args);
  if (meta !== undefined) {
    if (!isObject(meta)) throw invalid('_meta', 'an object', meta);
    const token = (meta as { progressToken?: unknown }).progressToken;
    if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') throw invalid('_meta.progressToken', 'a string or a number', token);
  }
  return args === undefined ? { name } : { name, arguments: args as Record<string, unknown> };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(field: string, expected: string, got: unknown): ProtocolError {
  const kind = got === null ? 'null' : Array.isArray(got) ? 'an array' : got === undefined ? 'nothing' : typeof got === 'object' ? 'an object' : `a ${typeof got}`;
  return new ProtocolError(JsonRpcErrorCodes.InvalidParams, `Invalid params for tools/call: ${field}: expected ${expected}, got ${kind}`);
}
