import { parse } from 'yaml';
import { checkGraph } from '../../../../src/modules/graph/domain/graph-checks';
import { describeIssue } from '../../../../src/modules/graph/domain/graph-issue';
import { normalizeGraphConfig } from '../../../../src/modules/graph/domain/normalize-graph-config';
import { compileGraph, type CompiledGraph } from '../../../../src/modules/graph/application/engine/compiled-graph';
import { GraphRunner, type GraphRunnerOptions } from '../../../../src/modules/graph/application/graph-runner';
import type { ExpressionLimits } from '../../../../src/modules/graph/application/engine/jsonata-expression';
import type { McpClientPool, McpServerRef, McpToolCallResult } from '../../../../src/modules/graph/application/ports/mcp-client-pool';

/** Compiles a graph given as YAML text (no file), failing loudly on any load problem. */
export function compileYaml(yamlText: string, expressionLimits?: ExpressionLimits): CompiledGraph {
  const { config, issues } = normalizeGraphConfig(parse(yamlText));
  issues.push(...checkGraph(config));
  if (issues.length) throw new Error(issues.map(describeIssue).join('; '));
  const compiled = compileGraph(config, expressionLimits ? { expressionLimits } : {});
  if (compiled.issues.length) throw new Error(compiled.issues.map(describeIssue).join('; '));
  return compiled.graph;
}

/** A runner serving the graphs given as YAML texts. */
export function runnerFor(yamlTexts: string | string[], options: GraphRunnerOptions = {}, limits?: ExpressionLimits): GraphRunner {
  const runner = new GraphRunner(options);
  runner.setGraphs((Array.isArray(yamlTexts) ? yamlTexts : [yamlTexts]).map((t) => compileYaml(t, limits)));
  return runner;
}

export interface FakeCall {
  server: McpServerRef;
  tool: string;
  args: unknown;
}

/** An McpClientPool answering from a handler, recording what it was asked. */
export class FakeMcpClientPool implements McpClientPool {
  readonly calls: FakeCall[] = [];
  closed = 0;

  constructor(private readonly handler: (call: FakeCall, signal?: AbortSignal) => Promise<McpToolCallResult> | McpToolCallResult) {}

  async callTool(server: McpServerRef, tool: string, args: unknown, signal?: AbortSignal): Promise<McpToolCallResult> {
    const call = { server, tool, args };
    this.calls.push(call);
    return this.handler(call, signal);
  }

  async closeAll(): Promise<void> {
    this.closed++;
  }
}

/** A linear tool: entry → the given middle nodes (YAML list items, already indented by 6) → exit. */
export function linearTool(name: string, middle: string, outputSchema = 'type: "object"'): string {
  return `
server: { name: "t", version: "1" }
mcpServers:
  srv: { command: "node" }
tools:
  - name: "${name}"
    description: "test tool"
    inputSchema: { type: "object" }
    outputSchema: { ${outputSchema} }
    nodes:
      - id: "entry"
        type: "entry"
        next: "first"
${middle}
      - id: "exit"
        type: "exit"
`;
}
