/** JSON-RPC 2.0 and MCP error codes the server answers with, as named constants. */
export const JsonRpcErrorCodes = {
  /** The line is not valid JSON. Answered with id null. */
  ParseError: -32700,
  /** Valid JSON that is not a JSON-RPC 2.0 message, or an oversized / too deeply nested line. */
  InvalidRequest: -32600,
  /** No such method. */
  MethodNotFound: -32601,
  /** Unknown tool, malformed `tools/call` params, or (plain JSON-RPC methods) params failing the tool's input schema. */
  InvalidParams: -32602,
  InternalError: -32603,
  /** A failure inside a plain JSON-RPC workflow method; `data.code` carries the workgraph error code. */
  ServerError: -32000,
} as const;

/** `_meta` key under which error results carry their stable workgraph error code. */
export const ERROR_CODE_META_KEY = 'workgraph/errorCode';
/** `_meta` key under which graph tool results carry their execution id. */
export const EXECUTION_ID_META_KEY = 'workgraph/executionId';
/** `_meta` key set to true on error results whose call can be retried as it is (`storage_unavailable`). */
export const RETRYABLE_META_KEY = 'workgraph/retryable';
