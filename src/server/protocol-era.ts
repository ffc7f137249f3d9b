import type { CacheHint, ProtocolEra, ServerCapabilities } from '@modelcontextprotocol/server';
import { promptsAndResourcesCapabilities } from './mcp-resources';
import { TASKS_EXTENSION } from './tasks-extension/extension-task';

/**
 * What differs between the two protocol eras a connection (stdio) or a request (HTTP) is served in. The era itself is
 * decided by the SDK's serving entries (`serveStdio` from the opening exchange, `createMcpHandler` per request);
 * see docs/protocol-eras.md.
 *
 * - legacy (2025-11-25 and older, `initialize`): exactly what workgraph served before the modern era — MCP logging,
 *   client roots, sampling, unsolicited `list_changed` and `resources/updated` to `resources/subscribe`rs.
 * - modern (2026-07-28): no handshake, no roots, no sampling requests, no `logging/setLevel` (a request names its log
 *   level in its envelope and hears its own call's log entries); every list can change
 *   (`subscriptions/listen` delivers `list_changed` and the resource updates a listener names) and the cacheable
 *   results carry the hints below.
 */
export type { ProtocolEra };

/** The capabilities a server of this era announces (in `initialize` or `server/discover`). */
export function eraCapabilities(era: ProtocolEra, modules: readonly string[], servesPromptsAndResources: boolean, runsTasks = false, viewsServed = false): ServerCapabilities {
  const served = servesPromptsAndResources ? promptsAndResourcesCapabilities(modules, viewsServed) : {};
  if (era === 'legacy') return { tools: { listChanged: true }, logging: {}, ...served };
  // Logging (deprecated in 2026-07-28, still in it): per request, by the level its envelope names.
  const caps: ServerCapabilities = { tools: { listChanged: true }, logging: {} };
  if (served.prompts) caps.prompts = { listChanged: true };
  if (served.resources) caps.resources = { subscribe: true, listChanged: true };
  // The tasks extension (docs/protocol-eras.md "Tasks"): long-running tools run as tasks for clients declaring it.
  if (runsTasks) caps.extensions = { [TASKS_EXTENSION]: {} };
  return caps;
}

/**
 * Cache hints of the modern era's cacheable results (the 2026-07-28 caching rules: `public` only for a result that is
 * the same for every caller, which any client, gateway or proxy may then hand to anyone). The prompt and template
 * lists are the same for every caller of one server (its workflow folders, its modules), so they are `public`; so is
 * the tool list of a server whose tools announce no MCP Apps view. With views on (`viewsVary`), `tools/list` differs
 * by the request's client capabilities — `_meta.ui` and the views' app-only tool for a host that declares the
 * `io.modelcontextprotocol/ui` extension, neither for any other client — and a cache hint cannot say "vary by
 * capability", so it is `private`: a shared cache must not hand one client's list to another. A change is announced
 * on `subscriptions/listen` (tools: a graph file reloaded; prompts: a workflow folder changed; resources: a session
 * written) and invalidates a cached copy before its TTL ends. Sessions and task graphs change with every call, so the
 * resource list and a read are fresh for a few seconds only and `private` (they hold one team's work; the list holds
 * the views' `ui://` resources for a host that shows them).
 */
export function cacheHints(viewsVary: boolean): Partial<Record<'server/discover' | 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read', CacheHint>> {
  return {
    'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
    'tools/list': { ttlMs: 300_000, cacheScope: viewsVary ? 'private' : 'public' },
    'prompts/list': { ttlMs: 60_000, cacheScope: 'public' },
    'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
    'resources/list': { ttlMs: 5_000, cacheScope: 'private' },
    'resources/read': { ttlMs: 0, cacheScope: 'private' },
  };
}
