import type { ServerResponse } from 'node:http';

/** JSON-RPC error codes the SDK's transport uses for transport-level refusals. */
export const SERVER_ERROR = -32000;
export const SESSION_NOT_FOUND = -32001;
export const INTERNAL_ERROR = -32603;

/** A JSON answer (health, metadata). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * A refusal in the shape the SDK's transport uses for its own (a JSON-RPC error with id null), so an MCP client shows
 * the message whatever refused the request.
 */
export function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}
