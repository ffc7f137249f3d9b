import type * as http from 'node:http';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import type { ChangeEvents } from '../../kernel/change-events';
import type { Logger } from '../../kernel/logger';
import type { ToolRegistry } from '../../kernel/tools/tool-registry';
import { servedModules } from '../builtin-tools';
import { resourceTargetOf, resourceUriOf } from '../resource-uris';
import { ListenedResources, listenedUris } from '../listened-resources';
import { sendJson } from './http-answers';
import { callerIdentity, type AuthInfoLike } from '../caller-identity';
import { changeReachersIn } from '../../kernel/change-reachers';
import { LOCAL_IDENTITY } from '../../kernel/identity';
import { ReachEventBus } from './reach-event-bus';
import type { ServerHost } from '../run-server';

/** The envelope key a 2026-07-28 request names its protocol version under (in `params._meta`). */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

export interface ModernHttpEntry {
  /**
   * Whether a POST belongs to the modern era (2026-07-28) — exactly the SDK's `isLegacyRequest` decision, asked only
   * when the request names a modern revision at all (the envelope claim or the `MCP-Protocol-Version` header), so a
   * 2025-era request costs no Request object.
   */
  isModern(req: http.IncomingMessage, parsed: unknown): Promise<boolean>;
  /**
   * Answers a modern request (its body already read and parsed; `req.auth`, set by the route, carries the caller's
   * identity to each handler as `authInfo`).
   */
  handle(req: http.IncomingMessage, res: http.ServerResponse, parsed: unknown): Promise<void>;
  /** Ends the open `subscriptions/listen` streams and in-flight modern exchanges; stops publishing changes. */
  close(): Promise<void>;
}

export interface ModernHttpOptions {
  host: ServerHost;
  logger: Logger;
  /** Bound on a request body (the same as the legacy transport's). */
  maxBodyBytes: number;
}

/**
 * The modern era over HTTP: the SDK's `createMcpHandler` (`legacy: 'reject'`: the 2025-era sessions stay with
 * http-transport-server.ts), one protocol server per request from the shared core, every instance answering any
 * request (no session, nothing kept between requests). The SDK checks the envelope and the `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers (400 -32020 on a mismatch, 400 -32022 naming the supported versions), answers
 * `server/discover`, stamps results (`resultType`, server identity, cache hints) and serves `subscriptions/listen`.
 * Changes reach the listeners from the process's change events (with PostgreSQL those of every instance, through
 * LISTEN/NOTIFY) and the tool registry (a graph file reloaded).
 */
export function createModernHttpEntry(opts: ModernHttpOptions): ModernHttpEntry {
  const { host, logger } = opts;
  // With PostgreSQL the change bridge (LISTEN/NOTIFY) lives in the container: built now, so a listener on this
  // instance hears the changes every other instance makes even before this one has answered a tool call.
  if (host.core.config.database) host.container();
  // One call tracker for every modern request: the shutdown coordinator drains it with the sessions'.
  const calls = host.core.lifecycle.openSession();
  // Each listen stream hears only changes within its identity's reach (reach-event-bus.ts).
  const bus = new ReachEventBus(() => changeReachersIn(host.container()));
  const handler: McpHttpHandler = createMcpHandler(
    () => host.newSession({ era: 'modern', isolateLogs: true, announcesChanges: false, calls, tracksRequests: true }).server.sdk,
    {
      legacy: 'reject',
      bus,
      maxRequestBodySize: opts.maxBodyBytes,
      onerror: (e) => logger.debug('modern http exchange', { err: e.message }),
    },
  );
  const node = toNodeHandler(handler, { maxRequestBodySize: opts.maxBodyBytes, onerror: (e) => logger.warn('modern http request failed', { err: e.message }) });
  const modules = servedModules(host.core.config);
  // What the open listen streams name: watched in the data dir (other processes' changes), knowledge nodes announced.
  const listened = new ListenedResources(host.core.changeEvents, (uri) => resourceTargetOf(uri, modules), host.core.config.maxSubscriptions);
  const stopPublishing = publishChanges(handler, bus, host.core.changeEvents, host.core.registry, modules, listened);
  const stopPrompts = host.onWorkflowsChanged(() => handler.notify.promptsChanged());

  return {
    isModern: async (req, parsed) => {
      if (!namesModernRevision(req, parsed)) return false;
      return !(await isLegacyRequest(await toWebRequest(req, parsed), parsed, { maxRequestBodySize: opts.maxBodyBytes }));
    },
    handle: (req, res, parsed) => {
      const uris = listenedUris(parsed);
      if (uris) {
        const refused = listened.refusal((parsed as { id: string | number }).id, uris);
        // As the SDK answers a listen request it refuses: a JSON-RPC error, HTTP 200.
        if (refused) return Promise.resolve(sendJson(res, 200, refused));
        res.once('close', listened.open(uris));
      }
      return bus.runAs(callerIdentity((req as http.IncomingMessage & { auth?: AuthInfoLike }).auth, LOCAL_IDENTITY), () => node(req, res, parsed));
    },
    close: async () => {
      stopPublishing();
      stopPrompts();
      await handler.close();
    },
  };
}

/** Whether a request names a 2026-era revision anywhere the SDK's classification looks (cheap pre-check). */
function namesModernRevision(req: http.IncomingMessage, parsed: unknown): boolean {
  const header = req.headers['mcp-protocol-version'];
  if (typeof header === 'string' && header >= '2026') return true;
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
    return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_KEY in meta;
  });
}

/** Publishes the process's changes on the handler's `subscriptions/listen` bus; returns the function that stops. */
function publishChanges(handler: McpHttpHandler, bus: ReachEventBus, changes: ChangeEvents, registry: ToolRegistry, modules: readonly string[], listened: ListenedResources): () => void {
  const stopChanges = changes.subscribe((e) => {
    const uri = resourceUriOf(e, modules);
    // A knowledge change updates its project's node resources too: those a listen stream names.
    if (uri) void bus.publishChange(e, uri, e.kind === 'knowledge' ? listened.nodeUrisOf(e.project ?? e.id) : []);
  });
  const stopTools = registry.onChange(() => handler.notify.toolsChanged());
  return () => {
    stopChanges();
    stopTools();
  };
}
