import type { GraphConfig, GraphNode, GraphTool } from './types';
import type { GraphIssue } from './graph-issue';

/** MCP tool names: what clients accept. */
const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/** The ids a node can hand control to. */
export function successorsOf(node: GraphNode): string[] {
  switch (node.type) {
    case 'entry':
    case 'mcp':
    case 'transform':
      return [node.next];
    case 'switch':
      return node.conditions.map((c) => c.target);
    case 'exit':
      return [];
  }
}

/**
 * The structural load-time checks of one graph file (expression syntax is checked where expressions are compiled):
 * tool names valid and unique within the file, exactly one entry and one exit per tool, no duplicate node ids, every
 * `next`/target names a node of the tool, every `server` is declared, and the exit is reachable from the entry.
 */
export function checkGraph(config: GraphConfig): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const seenTools = new Set<string>();
  for (const tool of config.tools) {
    if (!TOOL_NAME.test(tool.name)) {
      issues.push({ tool: tool.name, message: 'tool name must match ^[a-zA-Z0-9_.-]{1,64}$', position: tool.position });
    }
    if (seenTools.has(tool.name)) {
      issues.push({ tool: tool.name, message: 'tool name is declared twice in this file', position: tool.position });
    }
    seenTools.add(tool.name);
    issues.push(...checkTool(tool, config));
  }
  return dedupe(issues);
}

function checkTool(tool: GraphTool, config: GraphConfig): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const byId = new Map<string, GraphNode>();
  for (const node of tool.nodes) {
    if (byId.has(node.id)) {
      issues.push({ tool: tool.name, node: node.id, message: 'duplicate node id', position: node.position });
    } else {
      byId.set(node.id, node);
    }
  }
  const entries = tool.nodes.filter((n) => n.type === 'entry');
  const exits = tool.nodes.filter((n) => n.type === 'exit');
  if (entries.length !== 1) {
    issues.push({
      tool: tool.name,
      message: `must have exactly one entry node, found ${entries.length}${entries.length ? ` (${entries.map((n) => n.id).join(', ')})` : ''}`,
      position: entries[1]?.position ?? tool.position,
    });
  }
  if (exits.length !== 1) {
    issues.push({
      tool: tool.name,
      message: `must have exactly one exit node, found ${exits.length}${exits.length ? ` (${exits.map((n) => n.id).join(', ')})` : ''}`,
      position: exits[1]?.position ?? tool.position,
    });
  }
  for (const node of tool.nodes) {
    for (const target of successorsOf(node)) {
      if (target !== '' && !byId.has(target)) {
        issues.push({ tool: tool.name, node: node.id, message: `routes to '${target}', which is not a node of this tool`, position: node.position });
      }
    }
    if (node.type === 'mcp' && node.server !== '' && !Object.prototype.hasOwnProperty.call(config.mcpServers, node.server)) {
      const declared = Object.keys(config.mcpServers);
      issues.push({
        tool: tool.name,
        node: node.id,
        message: `server '${node.server}' is not declared under mcpServers/servers (declared: ${declared.join(', ') || 'none'})`,
        position: node.position,
      });
    }
  }
  if (entries.length === 1 && exits.length === 1 && !reachable(entries[0]!.id, byId).has(exits[0]!.id)) {
    issues.push({
      tool: tool.name,
      node: exits[0]!.id,
      message: `exit node is not reachable from entry node '${entries[0]!.id}'`,
      position: exits[0]!.position,
    });
  }
  return issues;
}

function reachable(from: string, byId: Map<string, GraphNode>): Set<string> {
  const seen = new Set<string>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const node = byId.get(queue.pop()!);
    if (!node) continue;
    for (const next of successorsOf(node)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

/** The older format shares nodes between tools; a problem in a shared node is reported once. */
function dedupe(issues: GraphIssue[]): GraphIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.node === undefined ? i.tool : ''}|${i.node}|${i.message}|${i.position?.line}:${i.position?.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
