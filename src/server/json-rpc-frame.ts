import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';

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
  if (!isMessage(value)) return invalid(id, 'not a valid JSON-RPC 2.0 message');
  return { kind: 'message', message: value as JSONRPCMessage };
}

/** What the SDK's protocol layer dispatches: a request, a notification, a result or an error response. */
function isMessage(value: unknown): boolean {
  return isJSONRPCRequest(value) || isJSONRPCNotification(value) || isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value);
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

/**
 * The `id` member of the top-level object of a JSON text that is not parsed (nested too deep, say), so the error can
 * carry the request's own id: a client waits for that id and would wait forever for an answer with id null. Scans
 * the text once, tracking strings and depth; reads only string and finite-number ids at depth 1 (the last one wins,
 * as with JSON.parse). Returns null when there is none or the text is not an object.
 */
export function topLevelId(text: string): string | number | null {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b /* { */) return null;
  let depth = 0;
  let id: string | number | null = null;
  // At depth 1 a string that follows `{` or `,` is a key.
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return id;
      if (depth === 1 && expectKey) {
        const key = text.slice(i, end + 1);
        let j = end + 1;
        while (j < text.length && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 0x3a /* : */ && (key === '"id"' || decodeString(key) === 'id')) {
          j++;
          while (j < text.length && isSpace(text.charCodeAt(j))) j++;
          const value = readScalar(text, j);
          if (value !== undefined) id = value;
        }
      }
      expectKey = false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      expectKey = depth === 1;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return id;
    } else if (c === 0x2c /* , */) {
      expectKey = depth === 1;
    }
  }
  return id;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Index of the closing quote of the string starting at `start`, or -1 when it is not closed. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

function decodeString(quoted: string): string | undefined {
  try {
    const v: unknown = JSON.parse(quoted);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A string or finite number starting at `at`; undefined for anything else (objects, arrays, null, booleans). */
function readScalar(text: string, at: number): string | number | undefined {
  const c = text.charCodeAt(at);
  if (c === 0x22) {
    const end = stringEnd(text, at);
    return end < 0 ? undefined : decodeString(text.slice(at, end + 1));
  }
  const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at, at + 64));
  if (!m) return undefined;
  const n = Number(m[0]);
  return Number.isFinite(n) ? n : undefined;
}
