import { checkGraph } from '../../../../src/modules/graph/domain/graph-checks';
import { describeIssue } from '../../../../src/modules/graph/domain/graph-issue';
import { normalizeGraphConfig } from '../../../../src/modules/graph/domain/normalize-graph-config';

/** A nested-format document with one tool holding `nodes`. */
function doc(nodes: unknown[], extra: Record<string, unknown> = {}): unknown {
  return {
    server: { name: 's', version: '1' },
    mcpServers: { known: { command: 'node' } },
    tools: [{ name: 't', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, nodes }],
    ...extra,
  };
}

function problems(d: unknown): string[] {
  const { config, issues } = normalizeGraphConfig(d);
  return [...issues, ...checkGraph(config)].map(describeIssue);
}

const entry = { id: 'in', type: 'entry', next: 'out' };
const exit = { id: 'out', type: 'exit' };

describe('checkGraph', () => {
  it('accepts a minimal tool', () => {
    expect(problems(doc([entry, exit]))).toEqual([]);
  });

  it('requires exactly one entry node', () => {
    expect(problems(doc([exit]))).toEqual(["tool 't': must have exactly one entry node, found 0"]);
    expect(problems(doc([entry, { id: 'in2', type: 'entry', next: 'out' }, exit]))).toEqual([
      "tool 't': must have exactly one entry node, found 2 (in, in2)",
    ]);
  });

  it('requires exactly one exit node', () => {
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'in' }]))).toEqual(["tool 't': must have exactly one exit node, found 0"]);
    expect(problems(doc([entry, exit, { id: 'out2', type: 'exit' }]))).toEqual([
      "tool 't': must have exactly one exit node, found 2 (out, out2)",
    ]);
  });

  it('refuses a next or switch target that names no node', () => {
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'nowhere' }, exit]))).toEqual([
      "tool 't', node 'in': routes to 'nowhere', which is not a node of this tool",
      "tool 't', node 'out': exit node is not reachable from entry node 'in'",
    ]);
    const sw = { id: 'sw', type: 'switch', conditions: [{ rule: { '==': [1, 1] }, target: 'ghost' }, { target: 'out' }] };
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'sw' }, sw, exit]))).toEqual([
      "tool 't', node 'sw': routes to 'ghost', which is not a node of this tool",
    ]);
  });

  it('refuses an mcp node whose server is not declared', () => {
    const mcp = { id: 'm', type: 'mcp', server: 'unknown', tool: 'x', args: {}, next: 'out' };
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'm' }, mcp, exit]))).toEqual([
      "tool 't', node 'm': server 'unknown' is not declared under mcpServers/servers (declared: known)",
    ]);
  });

  it('refuses an exit that cannot be reached from the entry', () => {
    const loop = { id: 'loop', type: 'transform', transform: { expr: '1' }, next: 'loop' };
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'loop' }, loop, exit]))).toEqual([
      "tool 't', node 'out': exit node is not reachable from entry node 'in'",
    ]);
  });

  it('refuses duplicate node ids', () => {
    const a = { id: 'x', type: 'transform', transform: { expr: '1' }, next: 'out' };
    expect(problems(doc([{ id: 'in', type: 'entry', next: 'x' }, a, { ...a }, exit]))).toEqual([
      "tool 't', node 'x': duplicate node id",
    ]);
  });

  it('refuses a tool name declared twice in one file and an invalid tool name', () => {
    const tool = { name: 'bad name', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, nodes: [entry, exit] };
    const d = { server: { name: 's', version: '1' }, tools: [tool, tool] };
    expect(problems(d)).toEqual([
      "tool 'bad name': tool name must match ^[a-zA-Z0-9_.-]{1,64}$",
      "tool 'bad name': tool name is declared twice in this file",
    ]);
  });
});
