import * as http from 'node:http';
import { oneLine } from '../errors';
import type { Logger } from '../logger';
import { checkRequestTarget, loggedTarget, type RequestTarget } from './request-target';

/**
 * Answers a request whose target passed {@link checkRequestTarget}. Returns (or resolves to) `false` when the request
 * is not its own: the entry answers 404. Anything else means the handler answers (now or later: a stream).
 */
export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse, target: RequestTarget) => boolean | void | Promise<boolean | void>;

/** How the entry words its own answers (the /mcp endpoint answers in JSON-RPC's error shape). */
export type Refuse = (req: http.IncomingMessage, res: http.ServerResponse, status: number, code: string, message: string) => void;

/** Node's HTTP server timeouts, in ms (see docs/http.md, "Timeouts"). */
export interface HttpTimeouts {
  /** From the connection (or the previous answer) to the end of the request's headers; then 408 and closed. */
  headersTimeoutMs: number;
  /** From the connection to the end of the request's body; then 408 and closed. Answers (SSE streams) are not bound. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection between two requests is closed after this. */
  keepAliveTimeoutMs: number;
}

export const HTTP_TIMEOUT_DEFAULTS: HttpTimeouts = { headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 };

export interface RequestEntryOptions {
  handle: RequestHandler;
  logger: Logger;
  timeouts?: Partial<HttpTimeouts>;
  /** Default: `{"error":{"code","message"}}` as JSON. */
  refuse?: Refuse;
}

/** The default answer of the entry: the dashboard API's error shape. */
export const refuseJson: Refuse = (_req, res, status, code, message) => {
  const text = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
};

/**
 * The one request entry of every HTTP server workgraph runs (`serve --http`, its dashboard mount, `workgraph
 * dashboard`): a malformed request target is answered 400 (414 when overlong) before any handler runs, a request no
 * handler takes 404, a handler's exception — thrown or rejected — 500 and one error log line (or the connection
 * closed if the answer had begun), never a crash and never a socket left waiting. Stalled clients are cut by the
 * timeouts. Logged request targets never carry their query (it may hold `?token=`).
 */
export function createHttpServer(o: RequestEntryOptions): http.Server {
  const t = resolveTimeouts(o.timeouts);
  const refuse = o.refuse ?? refuseJson;
  const server = http.createServer(
    {
      headersTimeout: t.headersTimeoutMs,
      requestTimeout: t.requestTimeoutMs,
      keepAliveTimeout: t.keepAliveTimeoutMs,
      // How often Node looks for connections past headersTimeout / requestTimeout (its default is 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(t.headersTimeoutMs / 4))),
    },
    (req, res) => entry(req, res),
  );
  // No inactivity timeout on sockets: an SSE stream may be quiet between heartbeats for as long as its session lives.
  server.timeout = 0;

  const answerOnce = (req: http.IncomingMessage, res: http.ServerResponse, status: number, code: string, message: string, close: boolean): void => {
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    if (close) res.setHeader('Connection', 'close');
    try {
      refuse(req, res, status, code, message);
    } catch {
      res.destroy();
    }
  };

  const failed = (req: http.IncomingMessage, res: http.ServerResponse, e: unknown): void => {
    o.logger.error('http request failed', { method: req.method, path: loggedTarget(req.url), err: loggedMessage(e) });
    answerOnce(req, res, 500, 'internal_error', 'internal error (logged by the server)', true);
  };

  function entry(req: http.IncomingMessage, res: http.ServerResponse): void {
    // A client that goes away mid-request must not become an unhandled 'error' event.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const checked = checkRequestTarget(req.url);
    if (!checked.ok) {
      o.logger.debug('http request refused', { method: req.method, path: loggedTarget(req.url), status: checked.status, reason: checked.message });
      return answerOnce(req, res, checked.status, 'invalid_arguments', checked.message, true);
    }
    const target = checked.target;
    const notMine = (): void => answerOnce(req, res, 404, 'not_found', `nothing is served at ${shortPath(target.path)}`, false);
    let result: ReturnType<RequestHandler>;
    try {
      result = o.handle(req, res, target);
    } catch (e) {
      return failed(req, res, e);
    }
    if (result === false) return notMine();
    if (result instanceof Promise) {
      result.then(
        (r) => {
          if (r === false) notMine();
        },
        (e: unknown) => failed(req, res, e),
      );
    }
  }

  return server;
}

export function resolveTimeouts(given: Partial<HttpTimeouts> = {}): HttpTimeouts {
  const t = { ...HTTP_TIMEOUT_DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) } as HttpTimeouts;
  for (const [name, v] of Object.entries(t)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`http timeouts: ${name} must be a positive whole number of ms, got ${v}`);
  }
  // Node refuses a headers timeout above the request timeout; a request's headers are part of the request.
  if (t.headersTimeoutMs > t.requestTimeoutMs) t.headersTimeoutMs = t.requestTimeoutMs;
  return t;
}

/** An exception's message for the log: one line, bounded, and any `?name=value` in it (a URL's query) redacted. */
export function loggedMessage(e: unknown): string {
  const text = oneLine(e instanceof Error ? e.message : String(e)).slice(0, 500) || 'error';
  return text.replace(/([?&][\w.~-]*=)[^&\s"'<>]*/g, '$1<redacted>');
}

function shortPath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
