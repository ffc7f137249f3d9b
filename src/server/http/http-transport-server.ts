import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Logger } from '../../kernel/logger';
import { BoundedEventStore } from './event-store';
import { INTERNAL_ERROR, SERVER_ERROR, SESSION_NOT_FOUND, sendJson, sendRpcError } from './http-answers';
import { BearerAuth } from './bearer-auth';
import { MCP_PATH, RESOURCE_METADATA_PATH } from './mcp-http-paths';
import { readBody } from './http-body';
import { HttpSessionTable, type HttpSession } from './http-sessions';
import { formatHostPort, isLoopbackHost, type ListenAddress } from './listen-address';
import { createHttpServer, type HttpTimeouts, type RequestHandler } from '../../kernel/http/request-entry';
import { RequestGuard } from './request-guard';
import type { RequestTarget } from '../../kernel/http/request-target';
import type { TokenVerifier, VerifiedToken } from '../../kernel/auth/token-verifier';
import { withIdentity } from '../caller-identity';
import type { Scope } from '../../kernel/identity';
import type { ModernHttpEntry } from './modern-http-entry';

/** The SSE reconnection delay announced to legacy clients (the SDK client's own default delay). */
const SSE_RETRY_MS = 1_000;

/** The protocol side of one session, as the per-session factory builds it (transport-neutral). */
export interface ProtocolSession {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

export interface HttpTransportOptions {
  listen: ListenAddress;
  /** Builds the protocol server of a new session over the shared core. */
  newSession: () => ProtocolSession;
  /** Bearer-token check; required unless the bound address is loopback. */
  verifier?: TokenVerifier;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /**
   * The OAuth authorization server whose access tokens are accepted: named in the protected-resource metadata, and a
   * token of it lacking a call's scope is answered 403 with a scope challenge (it can ask for more).
   */
  oauthIssuer?: string;
  /** The scope a call of this tool (or plain method) needs; undefined for a name that is not a tool. */
  scopeOf?: (name: string) => Scope | undefined;
  /** The URL clients reach the server at (behind a proxy), for the protected-resource metadata; default from Host. */
  publicUrl?: string;
  sessionIdleTimeoutMs: number;
  maxSessions: number;
  /**
   * The most sessions one identity may hold (half of maxSessions when several identities may connect); undefined:
   * no share (one identity, or no authentication).
   */
  maxSessionsPerIdentity?: number;
  /** Bound on a POST body, the same as a stdio line (16 MiB). */
  maxBodyBytes: number;
  /** Whether the stores are reachable (`/readyz`). */
  ready: () => Promise<boolean>;
  logger: Logger;
  /**
   * Another app under a path prefix (the dashboard at `/dashboard/`): behind the same Host/Origin checks as `/mcp`;
   * it authenticates its own requests (a page loads without a token, its API needs one).
   */
  mount?: HttpMount;
  /** Node's header, request and keep-alive timeouts (defaults in request-entry.ts). */
  timeouts?: Partial<HttpTimeouts>;
  /** The modern era (2026-07-28, per request, no session): its POSTs go there (modern-http-entry.ts). */
  modern?: ModernHttpEntry;
}

/** An app mounted beside `/mcp`. */
export interface HttpMount {
  /** `/dashboard/` */
  basePath: string;
  /** Answers a request under the base path (false: nothing there, the entry answers 404). */
  handle: RequestHandler;
}

/** Seconds a client is told to wait when the session cap is reached. */
const RETRY_AFTER_SECONDS = '30';

/**
 * MCP's streamable HTTP transport at `/mcp` (the SDK's StreamableHTTPServerTransport, one per session, each with its
 * own protocol server from the per-session factory), with what a network service needs around it: Host/Origin
 * checks, bearer authentication, the session cap and idle sweep, bounded bodies, health endpoints, and a drain for
 * shutdown. See docs/http.md.
 */
export class HttpTransportServer {
  private readonly server: http.Server;
  private readonly sessions: HttpSessionTable;
  private readonly guard: RequestGuard;
  private readonly auth: BearerAuth;
  private draining = false;

  constructor(private readonly opts: HttpTransportOptions) {
    if (!opts.verifier && !isLoopbackHost(opts.listen.host)) {
      throw new Error(`--http: binding ${opts.listen.host} (not a loopback address) requires authentication: give --auth-token-file or WORKGRAPH_AUTH_TOKENS`);
    }
    this.auth = new BearerAuth(opts);
    this.guard = new RequestGuard({ boundHost: opts.listen.host, allowedHosts: opts.allowedHosts, allowedOrigins: opts.allowedOrigins });
    this.sessions = new HttpSessionTable(opts.maxSessions, opts.sessionIdleTimeoutMs, undefined, opts.maxSessionsPerIdentity);
    // Every request passes the one request entry: a malformed target is 400 before routing, an exception 500 and
    // one log line, stalled clients are cut by the timeouts (SSE answers are not).
    this.server = createHttpServer({
      handle: (req, res, target) => this.route(req, res, target),
      logger: opts.logger,
      timeouts: opts.timeouts,
      refuse: (req, res, status, code, message) => {
        if (req.url === MCP_PATH || req.url?.startsWith(`${MCP_PATH}?`)) {
          return sendRpcError(res, status, status >= 500 ? INTERNAL_ERROR : SERVER_ERROR, message);
        }
        sendJson(res, status, { error: { code, message } });
      },
    });
  }

  /** Starts listening; resolves with the bound address (the real port when 0 was asked). */
  listen(): Promise<ListenAddress> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.listen.port, this.opts.listen.host, () => {
        this.server.off('error', reject);
        const addr = this.server.address() as AddressInfo;
        this.sessions.startSweeping((idle) => {
          for (const s of idle) {
            this.opts.logger.info('closing idle http session', { session: s.id });
            void s.transport.close();
          }
        });
        resolve({ host: this.opts.listen.host, port: addr.port });
      });
    });
  }

  /** The MCP endpoint's URL on the bound address. */
  get url(): string {
    const addr = this.server.address() as AddressInfo | null;
    return `http://${formatHostPort(this.opts.listen.host, addr?.port ?? this.opts.listen.port)}${MCP_PATH}`;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * First step of shutdown: no new connections, sessions or requests (503); what is in flight goes on, and
   * notifications and answers to the server's own requests (sampling, roots) still pass so in-flight calls can end.
   */
  stopAccepting(): void {
    if (this.draining) return;
    this.draining = true;
    this.server.close();
    this.sessions.stopSweeping();
  }

  /** Last step of shutdown: every session closed, every connection dropped. */
  async close(): Promise<void> {
    this.stopAccepting();
    await this.opts.modern?.close().catch(() => undefined);
    await Promise.all(this.sessions.all().map((s) => s.transport.close().catch(() => undefined)));
    this.server.closeAllConnections();
  }

  /** Answers a request whose target the entry checked; false when nothing is served at its path (the entry's 404). */
  private async route(req: http.IncomingMessage, res: http.ServerResponse, target: RequestTarget): Promise<boolean | void> {
    const path = target.path;
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const ready = !this.draining && (await this.opts.ready().catch(() => false));
      return sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready' });
    }
    if (path === RESOURCE_METADATA_PATH && this.opts.verifier) {
      // It names this server's URL from Host: behind the same Host check as /mcp, or any page could have it say another.
      const refused = this.guard.check({ host: req.headers.host, origin: req.headers.origin });
      if (refused) return sendJson(res, refused.status, { error: { code: 'forbidden', message: refused.message } });
      return this.auth.resourceMetadata(req, res);
    }
    const mount = this.opts.mount;
    if (mount && (path.startsWith(mount.basePath) || path === mount.basePath.replace(/\/$/, ''))) {
      const refused = this.guard.check({ host: req.headers.host, origin: req.headers.origin });
      if (refused) return sendJson(res, refused.status, { error: { code: 'forbidden', message: refused.message } });
      if (this.draining) return sendJson(res, 503, { error: { code: 'unavailable', message: 'the server is shutting down' } }, { 'Retry-After': RETRY_AFTER_SECONDS });
      return mount.handle(req, res, target);
    }
    if (path !== MCP_PATH) return false;

    const refusal = this.guard.check({ host: req.headers.host, origin: req.headers.origin });
    if (refusal) return sendRpcError(res, refusal.status, SERVER_ERROR, refusal.message);
    const auth = await this.auth.authenticate(req, res);
    if (auth === false) return;
    // The SDK's transport hands `req.auth` to each message's handler as `authInfo`: every call runs as this
    // request's identity (src/server/caller-identity.ts), not as whoever opened the session.
    if (auth) (req as http.IncomingMessage & { auth?: unknown }).auth = withIdentity(auth, auth.identity);

    switch (req.method) {
      case 'POST':
        return this.post(req, res, auth);
      case 'GET':
      case 'DELETE':
        return this.withSession(req, res, auth, undefined);
      default:
        return sendRpcError(res, 405, SERVER_ERROR, 'Method not allowed', { Allow: 'GET, POST, DELETE' });
    }
  }

  private async post(req: http.IncomingMessage, res: http.ServerResponse, auth: VerifiedToken | undefined): Promise<void> {
    const body = await readBody(req, this.opts.maxBodyBytes);
    if (!body.ok) {
      return sendRpcError(res, 413, SERVER_ERROR, `Payload Too Large: a request body must not exceed ${this.opts.maxBodyBytes} bytes`, { Connection: 'close' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return sendRpcError(res, 400, -32700, 'Parse error: the request body is not JSON');
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JSONRPCMessage[];
    if (this.draining && messages.some((m) => isJSONRPCRequest(m))) {
      return sendRpcError(res, 503, SERVER_ERROR, 'Service Unavailable: the server is shutting down', { 'Retry-After': RETRY_AFTER_SECONDS });
    }
    if (auth?.kind === 'oauth' && this.auth.insufficientScope(req, res, auth, messages)) return;
    if (this.opts.modern && (await this.opts.modern.isModern(req, parsed))) return this.opts.modern.handle(req, res, parsed);
    if (req.headers['mcp-session-id'] === undefined && messages.some((m) => isInitializeRequest(m))) return this.open(req, res, auth, parsed);
    return this.withSession(req, res, auth, parsed);
  }

  /** An `initialize` without a session: a new transport and protocol server, if the cap allows. */
  private async open(req: http.IncomingMessage, res: http.ServerResponse, auth: VerifiedToken | undefined, parsed: unknown): Promise<void> {
    const reserved = this.sessions.reserve(auth?.clientId);
    if (reserved === 'full') {
      this.opts.logger.warn('http session cap reached; refusing a new session', { maxSessions: this.opts.maxSessions });
      return sendRpcError(res, 503, SERVER_ERROR, `Service Unavailable: ${this.opts.maxSessions} sessions are open (--max-sessions)`, {
        'Retry-After': RETRY_AFTER_SECONDS,
      });
    }
    if (reserved === 'holder') {
      // The cap is shared: one identity holds at most its share, so another still gets a session.
      this.opts.logger.warn('http session share of an identity reached; refusing a new session', { identity: auth?.clientId, perIdentity: this.opts.maxSessionsPerIdentity });
      return sendRpcError(
        res,
        503,
        SERVER_ERROR,
        `Service Unavailable: identity '${auth?.clientId}' holds ${this.opts.maxSessionsPerIdentity} sessions, its share of --max-sessions ${this.opts.maxSessions}; close one (DELETE /mcp) or wait for one to go idle`,
        { 'Retry-After': RETRY_AFTER_SECONDS },
      );
    }
    let session: HttpSession | undefined;
    const protocol = this.opts.newSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(),
      // SSE `retry:` on the priming event (SEP-1699): how long a client whose stream dropped waits before it resumes.
      retryInterval: SSE_RETRY_MS,
      maxRequestBodySize: this.opts.maxBodyBytes,
      onsessioninitialized: (id) => {
        session = { id, transport, closeServer: () => protocol.close(), clientId: auth?.clientId, active: 0, lastSeen: 0 };
        this.sessions.add(session);
        res.once('close', this.sessions.begin(session));
        this.opts.logger.debug('http session opened', { session: id, sessions: this.sessions.size });
      },
    });
    transport.onclose = () => {
      if (!session) return;
      this.sessions.remove(session.id);
      void protocol.close();
      this.opts.logger.debug('http session closed', { session: session.id, sessions: this.sessions.size });
    };
    transport.onerror = (e) => this.opts.logger.debug('http transport error', { err: e.message });
    await protocol.connect(transport);
    try {
      await transport.handleRequest(req, res, parsed);
    } finally {
      // The initialize was refused (bad params, wrong headers): nothing was opened.
      if (!session) {
        this.sessions.release(auth?.clientId);
        await protocol.close();
      }
    }
  }

  /** A request of an open session: routed to its transport, if the token holder is the one that opened it. */
  private async withSession(req: http.IncomingMessage, res: http.ServerResponse, auth: VerifiedToken | undefined, parsed: unknown): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') {
      return sendRpcError(res, 400, SERVER_ERROR, 'Bad Request: no Mcp-Session-Id header (send initialize first)');
    }
    const session = this.sessions.get(id);
    // Another token holder's session is answered exactly like an unknown one: its existence is not revealed.
    if (!session || session.clientId !== auth?.clientId) return sendRpcError(res, 404, SESSION_NOT_FOUND, 'Session not found');
    res.once('close', this.sessions.begin(session));
    await session.transport.handleRequest(req, res, parsed);
  }
}
