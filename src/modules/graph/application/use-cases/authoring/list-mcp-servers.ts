import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../../kernel/errors';
import type { CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { McpServerConfig } from '../../../domain/types';
import { GraphTokens } from '../../graph.tokens';
import type { graphMcpServerListSchemas, graphMcpToolGetSchemas } from '../../graph-mcp-servers.tool-schemas';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';
import type { McpServerRef } from '../../ports/mcp-client-pool';

type ServerListInput = ToolInput<typeof graphMcpServerListSchemas>;
type ServerListOutput = ToolOutput<typeof graphMcpServerListSchemas>;
type ToolGetInput = ToolInput<typeof graphMcpToolGetSchemas>;
type ToolGetOutput = ToolOutput<typeof graphMcpToolGetSchemas>;

/** One distinct server (name and configuration) and where it is declared. */
interface KnownServer extends McpServerRef {
  declaredIn: string[];
}

export const MCP_CONFIG_SOURCE = '--mcp-config';

/**
 * The MCP servers the loaded graphs can call — each graph's own (`mcpServers`/`servers`) and `--mcp-config`'s — one
 * entry per distinct name and configuration, sorted by name. `file` keeps those one loaded file can call.
 * @throws NotFoundError for a `file` that is not loaded.
 */
export function knownServers(catalog: GraphToolCatalog, file?: string): KnownServer[] {
  const fromConfig = catalog.mcpConfigServers();
  const byKey = new Map<string, KnownServer>();
  const add = (name: string, config: McpServerConfig, source: string) => {
    const key = `${name}\u0000${stableJson(config)}`;
    const known = byKey.get(key) ?? { name, config, declaredIn: [] };
    if (!known.declaredIn.includes(source)) known.declaredIn.push(source);
    byKey.set(key, known);
  };
  const graphs = catalog.graphs().map((g) => g.config);
  const chosen = file === undefined ? graphs : graphs.filter((g) => g.file === file || (g.file ?? '').endsWith(`/${file}`));
  if (file !== undefined && chosen.length === 0) throw new NotFoundError('graph file', file);
  for (const g of chosen) {
    for (const [name, config] of Object.entries(g.mcpServers)) {
      // --mcp-config's servers are merged into every graph: they are named by their source, not by each file.
      const inherited = fromConfig[name] !== undefined && stableJson(fromConfig[name]) === stableJson(config);
      add(name, config, inherited ? MCP_CONFIG_SOURCE : (g.file ?? '(in-memory graph)'));
    }
  }
  if (file === undefined) for (const [name, config] of Object.entries(fromConfig)) add(name, config, MCP_CONFIG_SOURCE);
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function transportOf(config: McpServerConfig): 'stdio' | 'http' | 'sse' {
  if (config.type === 'sse') return 'sse';
  return config.type === 'http' || config.type === 'streamableHttp' ? 'http' : 'stdio';
}

/**
 * graph_mcp_server_list: the MCP servers graphs can call, each asked for its tools (in parallel, each within the MCP
 * request timeout). A server that cannot be started or reached is listed with `reachable: false` and its error; the
 * others are listed all the same (mcpgraph's listMcpServers and listMcpServerTools).
 * @throws NotFoundError for an unknown `server` or a `file` that is not loaded.
 */
@injectable()
export class ListMcpServers implements UseCase<ServerListInput, ServerListOutput> {
  constructor(@inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog) {}

  async execute(input: ServerListInput, ctx?: CallContext): Promise<ServerListOutput> {
    let servers = knownServers(this.catalog, input.file);
    if (input.server !== undefined) {
      servers = servers.filter((s) => s.name === input.server);
      if (servers.length === 0) throw new NotFoundError('MCP server', input.server, unknownServerMessage(input.server, knownServers(this.catalog, input.file)));
    }
    const described = await Promise.all(
      servers.map(async (s) => {
        const base = { name: s.name, transport: transportOf(s.config), declaredIn: s.declaredIn };
        try {
          const d = await this.catalog.describeMcpServer({ name: s.name, config: s.config }, ctx?.signal);
          return {
            ...base,
            reachable: true,
            ...(d.serverInfo ? { serverInfo: d.serverInfo } : {}),
            ...(d.instructions ? { instructions: d.instructions } : {}),
            tools: d.tools.map((t) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema })),
          };
        } catch (e) {
          if (ctx?.signal.aborted) throw e;
          return { ...base, reachable: false, error: (e as Error).message };
        }
      }),
    );
    return { servers: described };
  }
}

/**
 * graph_mcp_tool_get: one tool of one MCP server with its input and output schemas and annotations (mcpgraph's
 * getMcpServerTool).
 * @throws NotFoundError for an unknown server or tool (the message lists what there is); ExternalToolError when the
 *   server cannot be reached.
 */
@injectable()
export class GetMcpServerTool implements UseCase<ToolGetInput, ToolGetOutput> {
  constructor(@inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog) {}

  async execute(input: ToolGetInput, ctx?: CallContext): Promise<ToolGetOutput> {
    const all = knownServers(this.catalog);
    const server = all.find((s) => s.name === input.server);
    if (!server) throw new NotFoundError('MCP server', input.server, unknownServerMessage(input.server, all));
    const d = await this.catalog.describeMcpServer({ name: server.name, config: server.config }, ctx?.signal);
    const tool = d.tools.find((t) => t.name === input.tool);
    if (!tool) {
      const names = d.tools.map((t) => t.name);
      throw new NotFoundError('MCP tool', input.tool, `MCP server '${server.name}' has no tool '${input.tool}' (it lists: ${names.join(', ') || 'no tools'})`);
    }
    return { server: server.name, ...tool };
  }
}

function unknownServerMessage(name: string, servers: readonly KnownServer[]): string {
  const names = [...new Set(servers.map((s) => s.name))];
  return `MCP server '${name}' not found (the graphs can call: ${names.join(', ') || 'no MCP servers'})`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
