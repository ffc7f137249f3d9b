import { CancelledError, ExternalToolError } from '../../../../kernel/errors';
import type { McpServerConfig } from '../../domain/types';
import type { McpClientPool } from '../ports/mcp-client-pool';
import type { CompiledNode } from './compiled-graph';
import { evaluateArgs } from './compiled-args';
import type { HistoryBindings } from './history-bindings';
import { toExpressionError } from './jsonata-expression';
import { mcpErrorText, mcpNodeOutput } from './mcp-output';

/** What an `mcp` node's call needs from its run. */
export interface McpNodeRun {
  pool?: McpClientPool;
  /** The graph's MCP servers by name (its own and `--mcp-config`'s). */
  servers: Record<string, McpServerConfig>;
  /** The expression context (`{[nodeId]: latest output}`) and history functions its arguments are evaluated with. */
  context: Record<string, unknown>;
  bindings: HistoryBindings;
  /** Aborts the call in flight when the run is stopped. */
  signal: AbortSignal;
  stopped(): boolean;
  stoppedError(): CancelledError;
}

/**
 * Runs an `mcp` node: its arguments evaluated, its tool called through the client pool (the run's signal aborting it),
 * its answer the node's output (mcp-output.ts). A failed call or an error result is an ExternalToolError naming the
 * node, server and tool (with the end of the server's stderr when known); a call ended by stop() is the run's
 * CancelledError.
 */
export async function callMcpNode(cnode: Extract<CompiledNode, { kind: 'mcp' }>, run: McpNodeRun): Promise<unknown> {
  const { node } = cnode;
  let source = '';
  let args: unknown;
  try {
    args = await evaluateArgs(cnode.args, run.context, run.bindings, (s) => (source = s));
  } catch (err) {
    throw toExpressionError(err, node.id, source, 'argument expression');
  }
  const pool = run.pool;
  const where = `node '${node.id}': tool '${node.tool}' on server '${node.server}'`;
  if (!pool) throw new ExternalToolError(`${where}: no MCP client pool is configured`, { node: node.id, server: node.server, tool: node.tool });
  const config = run.servers[node.server]!;
  let result;
  try {
    result = await pool.callTool({ name: node.server, config }, node.tool, args, run.signal);
  } catch (err) {
    if (err instanceof CancelledError || run.stopped()) throw run.stoppedError();
    const e = err as { message?: string; details?: { stderrTail?: unknown }; stderrTail?: unknown };
    const tail = typeof e.details?.stderrTail === 'string' ? e.details.stderrTail : typeof e.stderrTail === 'string' ? e.stderrTail : undefined;
    throw new ExternalToolError(`${where} failed: ${e.message ?? String(err)}`, {
      node: node.id,
      server: node.server,
      tool: node.tool,
      ...(tail ? { stderrTail: tail } : {}),
    });
  }
  if (result.isError) {
    throw new ExternalToolError(`${where} returned an error: ${mcpErrorText(result)}`, { node: node.id, server: node.server, tool: node.tool });
  }
  return mcpNodeOutput(result);
}
