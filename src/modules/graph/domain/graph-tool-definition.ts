import { normalizeGraphConfig } from './normalize-graph-config';
import type { ArgTemplate, GraphNode, GraphTool } from './types';

/** A graph tool as mcpgraph's toolkit reads and writes one (and graph_tool_get answers it). */
export interface GraphToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  nodes: Array<Record<string, unknown>>;
}

/**
 * A served graph tool as a definition an agent can read and write back: the newest mcpgraph format (`{expr}`
 * arguments, `transform.expr`, switch `conditions: [{rule?, target}]`), whichever format its file was written in,
 * with the schemas as served (a non-object output schema already wrapped as `{result}`).
 */
export function graphToolDefinition(tool: GraphTool): GraphToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    nodes: tool.nodes.map(nodeDefinition),
  };
}

/**
 * A definition read back as a tool (its nodes as a load reads them, in the newest format's rule): what a draft's
 * recorded run is drawn from.
 */
export function toolOfDefinition(definition: GraphToolDefinition): GraphTool | undefined {
  return normalizeGraphConfig({ server: { name: 'draft', version: '0' }, tools: [definition] }).config.tools[0];
}

function nodeDefinition(n: GraphNode): Record<string, unknown> {
  switch (n.type) {
    case 'entry':
      return { id: n.id, type: n.type, next: n.next };
    case 'mcp':
      return { id: n.id, type: n.type, server: n.server, tool: n.tool, args: argValue(n.args), next: n.next };
    case 'transform':
      return { id: n.id, type: n.type, transform: { expr: n.expr }, next: n.next };
    case 'switch':
      return { id: n.id, type: n.type, conditions: n.conditions.map((c) => (c.rule === undefined ? { target: c.target } : { rule: c.rule, target: c.target })) };
    case 'exit':
      return { id: n.id, type: n.type };
  }
}

function argValue(t: ArgTemplate): unknown {
  switch (t.kind) {
    case 'literal':
      return t.value;
    case 'expr':
      return { expr: t.expr };
    case 'object':
      return Object.fromEntries(t.entries.map(([k, v]) => [k, argValue(v)]));
    case 'array':
      return t.items.map(argValue);
  }
}
