import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type ClassifiedFrame =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'invalid'; id: string | number | null; reason: string };

/**
 * Decides whether a parsed line is a JSON-RPC 2.0 message the SDK will accept, and if not, why — with the request id
 * to answer to when one can be recovered (a bad request with a usable id is answered with that id).
 */
export function classifyMessage(value: unknown): ClassifiedFrame {
  if (Array.isArray(value)) return invalid(null, 'batches are not supported; send one JSON-RPC object per line');
  if (value === null || typeof value !== 'object') return invalid(null, 'expected a JSON-RPC 2.0 object');
  const msg = value as Record<string, unknown>;
  const id = usableId(msg.id);
  if (msg.jsonrpc !== '2.0') return invalid(id, '"jsonrpc" must be "2.0"');
  if ('method' in msg) {
    if (typeof msg.method !== 'string' || msg.method === '') return invalid(id, '"method" must be a non-empty string');
    if ('id' in msg && id === null) return invalid(null, '"id" must be a string or a number');
    if ('params' in msg && (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params))) {
      return invalid(id, '"params" must be an object');
    }
  } else if (!('id' in msg) || !('result' in msg || 'error' in msg)) {
    return invalid(id, 'expected a request (method), a notification (method, no id) or a response (id with result or error)');
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return invalid(id, 'not a valid JSON-RPC 2.0 message');
  return { kind: 'message', message: value as JSONRPCMessage };
}

function usableId(id: unknown): string | number | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function invalid(id: string | number | null, reason: string): ClassifiedFrame {
  return { kind: 'invalid', id, reason };
}

/**
 * The nesting depth of the JSON text, counting `[` and `{` outside strings; stops scanning once `limit` is exceeded.
 * Checked before JSON.parse so a hostile line cannot blow the stack of anything that walks the parsed value.
 */
export function maxNestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
