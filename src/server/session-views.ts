import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import type { WorkgraphServerDeps } from './workgraph-server-deps';
import type { PromptsAndResourcesDeps } from './mcp-resources';
import { declaresApps, requestCapabilities, servedViews, toolUiMeta } from './mcp-apps';
import { RESOURCE_CHANGES_META, resourceChangeLog, resourceChangesTool, watchableModules } from './resource-changes';
import { wireOutputSchema } from './wire-output-schema';

type ViewsDeps = Pick<WorkgraphServerDeps, 'apps' | 'registry' | 'changeEvents' | 'resolve' | 'modules' | 'reachers'>;

/**
 * One session's MCP Apps wiring (docs/mcp-apps.md): whether views are on, which request's client shows them, the
 * views' app-only tool (resource-changes.ts) and the tools/list answer with each tool's view for such a client.
 */
export class SessionViews {
  /** Whether views are on and some served tool has one (the server announces the extension then). */
  readonly on: boolean;
  /** The views' app-only tool, when views are on and some view shows a watchable resource. */
  readonly appTool?: ToolDefinition;

  constructor(
    private readonly deps: ViewsDeps,
    private readonly clientCapabilities: () => ClientCapabilities | undefined,
  ) {
    this.on = deps.apps?.enabled === true && servedViews(deps.registry.list()).length > 0;
    const events = deps.changeEvents;
    if (this.on && events && deps.resolve && watchableModules(deps.modules ?? [])) {
      const modules = deps.modules ?? [];
      this.appTool = resourceChangesTool((uris, identity) => resourceChangeLog(events).changes(uris, modules, identity, deps.reachers ?? (() => [])));
    }
  }

  /** Whether this request's client shows MCP Apps views (it declared the extension) and they are on. */
  shows(ctx: ServerContext | undefined): boolean {
    if (!this.deps.apps?.enabled) return false;
    return declaresApps(requestCapabilities(ctx as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined, this.clientCapabilities()));
  }

  /** The tool `name` names for this request: the views' app-only tool for a host that shows views, else the registry's. */
  findTool(name: string, ctx: ServerContext): ToolDefinition | undefined {
    if (this.appTool && name === this.appTool.name && this.shows(ctx)) return this.appTool;
    return this.deps.registry.get(name);
  }

  /** What mcp-resources.ts serves of the views (nothing while they are off). */
  resourcesOption(): Pick<PromptsAndResourcesDeps, 'apps'> {
    const policy = this.deps.apps;
    if (!policy?.enabled) return {};
    return { apps: { policy, views: servedViews(this.deps.registry.list()), showsViews: (ctx) => this.shows(ctx), live: this.appTool !== undefined } };
  }

  /** The tools/list answer: a host that shows views learns each tool's view; any other client gets exactly the list without them. */
  listTools(ctx: ServerContext) {
    const apps = this.shows(ctx);
    const appTool = apps ? this.appTool : undefined;
    return {
      tools: [...this.deps.registry.list().filter((t) => t.name !== appTool?.name), ...(appTool ? [appTool] : [])].map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        // Built-in tools serve their output schemas without prose; a graph file's tools are served as the file wrote them.
        outputSchema: (t.handler ? t.outputSchema : wireOutputSchema(t.outputSchema)) as { type: 'object' },
        annotations: t.annotations,
        ...(apps && t.view ? { _meta: toolUiMeta(t) } : {}),
        ...(t === appTool ? { _meta: RESOURCE_CHANGES_META } : {}),
      })),
    };
  }
}
