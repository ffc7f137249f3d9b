import type { McpServerConfig } from '../../domain/types';

/** One MCP server a graph names: its name (from the graph's `mcpServers`/`servers`) and how to start or reach it. */
export interface McpServerRef {
  name: string;
  config: McpServerConfig;
}

/** What an MCP `tools/call` answered, as the server sent it. */
export interface McpToolCallResult {
  structuredContent?: unknown;
  content?: Array<{ type: string; text?: string; [k: string]: unknown }>;
  /**
   * True when the tool reported a failure. The pool returns such a result as it is (it is an answer, not a transport
   * failure); the graph engine turns it into an ExternalToolError naming node, server and tool.
   */
  isError?: boolean;
}

/** One tool an MCP server lists (tools/list), as the server described it. */
export interface McpServerTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What an MCP server says about itself: its `serverInfo`, its instructions and every tool it lists. */
export interface McpServerDescription {
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
  tools: McpServerTool[];
}

/**
 * Clients for the MCP servers that graph `mcp` nodes call. Clients are started on first use, reused across calls,
 * restarted after a crash, and closed by {@link McpClientPool.closeAll}.
 */
export interface McpClientPool {
  /**
   * Calls `tool` on `server` with `args`.
   * @throws ExternalToolError (details `{server, tool, stderrTail}`) when the server cannot be started or reached, exits
   *   during the call, answers with a protocol error, or does not answer within the request timeout.
   * @throws CancelledError when `signal` aborts before the answer arrives.
   */
  callTool(server: McpServerRef, tool: string, args: unknown, signal?: AbortSignal): Promise<McpToolCallResult>;
  /**
   * Opens (or reuses) the connection to `server` and lists its tools (every page), for the authoring tools.
   * @throws ExternalToolError naming the server when it cannot be started or reached, or does not answer within the
   *   request timeout; CancelledError when `signal` aborts.
   */
  describeServer?(server: McpServerRef, signal?: AbortSignal): Promise<McpServerDescription>;
  /** Closes every client and ends every server process it started. Later calls start servers afresh. */
  closeAll(): Promise<void>;
  /**
   * Says which servers the loaded graphs serve now (after a graph file was loaded, edited or removed): every open
   * connection to a server not among them — a name no longer declared, or a changed command, args, env or url — is
   * closed and its process ended, once the calls in flight on it have finished. A later call to such a server (a run
   * started before the edit) opens it again and closes it after that call.
   */
  retainOnly?(servers: readonly McpServerRef[]): Promise<void>;
}
