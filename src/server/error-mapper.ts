import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import { ErrorCodes, isWorkgraphError, oneLine, type ErrorCode } from '../kernel/errors';
import { fileSystemErrorAsStorageError } from '../kernel/files/storage-errors';
import type { Logger } from '../kernel/logger';
import { ERROR_CODE_META_KEY, EXECUTION_ID_META_KEY, JsonRpcErrorCodes, RETRYABLE_META_KEY } from './json-rpc-codes';

/** The one place errors become protocol answers. */

/** The stable code and one-line message of any thrown value; unexpected errors are logged with their stack. */
export function describeError(e: unknown, logger?: Logger): { code: ErrorCode; message: string } {
  if (isWorkgraphError(e)) return { code: e.code, message: e.message };
  // A file-system failure no store wrapped is still a storage failure, named by its path.
  const storage = fileSystemErrorAsStorageError(e);
  if (storage) {
    logger?.warn('storage failure', { err: storage.message });
    return { code: storage.code, message: storage.message };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  logger?.error('unexpected error', { err: err.message, stack: err.stack });
  return { code: ErrorCodes.Internal, message: oneLine(err.message || 'internal error') };
}

/**
 * A tool failure as an MCP result: `isError: true`, the code at the start of the one-line text and in
 * `_meta["workgraph/errorCode"]`, and no `structuredContent` (the SDK client would validate it against the output
 * schema). Never a stack trace.
 */
export function toErrorResult(e: unknown, logger?: Logger): CallToolResult {
  const { code, message } = describeError(e, logger);
  const result = errorResult(code, message);
  // A failed graph run still names its execution, so the agent can inspect it with graph_inspect.
  const executionId = isWorkgraphError(e) ? e.details.executionId : undefined;
  if (typeof executionId === 'string') result._meta = { ...result._meta, [EXECUTION_ID_META_KEY]: executionId };
  // A store that is unavailable (database down or restarting): the same call can be retried.
  if (isWorkgraphError(e) && e.details.retryable === true) result._meta = { ...result._meta, [RETRYABLE_META_KEY]: true };
  return result;
}

export function errorResult(code: ErrorCode, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    isError: true,
    _meta: { [ERROR_CODE_META_KEY]: code },
  };
}

/**
 * A failure of a plain JSON-RPC method: bad params → -32602 naming the field; anything else → -32000 with
 * `data: {code}`.
 */
export function toJsonRpcError(e: unknown, logger?: Logger): ProtocolError {
  const { code, message } = describeError(e, logger);
  if (code === ErrorCodes.InvalidArguments) return new ProtocolError(JsonRpcErrorCodes.InvalidParams, message, { code });
  return new ProtocolError(JsonRpcErrorCodes.ServerError, message, { code });
}
