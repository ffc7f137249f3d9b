import { Command } from 'commander';
import { graphRuntime, type NodeExecutionRecord } from '../../modules/graph';

interface RunFlags {
  args: string;
  trace?: boolean;
  mcpConfig?: string[];
}

/** Longest output summary in the trace table, in characters (the rest is cut and marked with "..."). */
const SUMMARY_CHARS = 80;

/**
 * `workgraph run GRAPH TOOL --args JSON [--trace]`: loads one graph file (or folder of them), runs one of its tools
 * once and prints the result as JSON on stdout. `--trace` prints the execution history as a table on stderr (index,
 * node id, type, duration, output summary), also when the run fails. `mcp` nodes start their servers as the graph
 * declares (relative paths are relative to the working directory); they are closed before the command ends.
 * Exit 0 on success; 1 (one line on stderr) for bad `--args` JSON, a graph that does not load, an unknown tool or a
 * failed run; 2 for usage errors; 130 when interrupted (Ctrl-C stops the run first).
 */
export function runCommand(): Command {
  return new Command('run')
    .description('run one tool of a graph file once and print its result as JSON (--trace: the node history on stderr)')
    .argument('<graph>', 'graph file (YAML or JSON) or folder of graph files')
    .argument('<tool>', 'name of the graph tool to run')
    .option('--args <json>', 'the tool arguments as a JSON object', '{}')
    .option('--trace', 'print every node execution (index, node, type, ms, output) to stderr')
    .option('--mcp-config <file>', 'MCP server definitions ({"mcpServers": {...}}) merged into the graph\'s servers, repeatable (mcpgraph -m)', (v: string, prev: string[] = []) => [...prev, v])
    .action(async (graph: string, toolName: string, flags: RunFlags) => {
      process.exitCode = await run(graph, toolName, flags);
    });
}

async function run(graph: string, toolName: string, flags: RunFlags): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`workgraph run: ${oneLine(message)}\n`);
    return 1;
  };
  let args: unknown;
  try {
    args = JSON.parse(flags.args);
  } catch (e) {
    return fail(`--args is not valid JSON: ${(e as Error).message}`);
  }

  const { loadGraph, SdkMcpClientPool, readMcpConfigFiles } = graphRuntime();
  const { packageVersion } = await import('../../kernel/config/package-root');
  const pool = new SdkMcpClientPool({ clientInfo: { name: 'workgraph', version: packageVersion() } });
  let host;
  try {
    const mcpServers = flags.mcpConfig?.length ? readMcpConfigFiles(flags.mcpConfig) : undefined;
    host = await loadGraph(graph, { mcpClientPool: pool, ...(mcpServers ? { mcpServers } : {}) });
  } catch (e) {
    await pool.closeAll();
    return fail((e as Error).message);
  }

  let executionId: string | undefined;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
    if (executionId) host.getExecution(executionId)?.stop();
  };
  process.once('SIGINT', onSigint);
  try {
    if (!host.hasTool(toolName)) {
      const names = host.listTools().map((t) => t.name);
      return fail(`tool '${toolName}' is not declared in ${graph} (tools: ${names.length ? names.join(', ') : 'none'})`);
    }
    const handle = host.executeTool(toolName, args);
    executionId = handle.executionId;
    try {
      const { result } = await handle.promise;
      if (flags.trace) printTrace(host.getExecutionState(handle.executionId).history);
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    } catch (e) {
      if (flags.trace) printTrace(host.getExecutionState(handle.executionId).history);
      const code = fail((e as Error).message);
      return interrupted ? 130 : code;
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    await host.close();
  }
}

/** The history as an aligned table on stderr, then a one-line total. */
function printTrace(history: readonly NodeExecutionRecord[]): void {
  const rows = history.map((r) => [
    String(r.executionIndex),
    r.nodeId,
    r.nodeType,
    String(r.duration),
    r.error ? `error ${r.error.code}: ${oneLine(r.error.message)}` : summarize(r.output),
  ]);
  const header = ['#', 'NODE', 'TYPE', 'MS', 'OUTPUT'];
  // A loop, not Math.max(...rows): a long run has more rows than a call may take arguments.
  const widths = header.map((h) => h.length);
  for (const r of rows) for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, r[i]!.length);
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : i === 0 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  const totalMs = history.length ? history[history.length - 1]!.endTime - history[0]!.startTime : 0;
  out.push(`${history.length} node execution(s) in ${totalMs} ms`);
  process.stderr.write(`${out.join('\n')}\n`);
}

/** A node output as compact JSON on one line, cut to {@link SUMMARY_CHARS}. */
function summarize(output: unknown): string {
  const text = output === undefined ? 'undefined' : (JSON.stringify(output) ?? String(output));
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 3)}...` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
