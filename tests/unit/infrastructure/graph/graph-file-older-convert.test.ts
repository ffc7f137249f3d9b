import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { convertOlderFormat } from '../../../../src/modules/graph/infrastructure/graph-file-older-convert';
import { GraphFileLoader } from '../../../../src/modules/graph/infrastructure/graph-file-loader';
import { graphToolDefinition } from '../../../../src/modules/graph/domain/graph-tool-definition';

const ROOT = path.resolve(__dirname, '../../../..');
const SUM_TO_N = fs.readFileSync(path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), 'utf8');

/** Two tools sharing nodes, one node no entry reaches, comments everywhere, a flow map inside a node, items at column 0. */
const SHARED = `# Two tools over one node list.
version: "1.0"
server: { name: "shared", version: "1" }
servers:   # the older spelling
  files: { command: "node", args: ["x.js"] }
tools:
  - name: "double"
    description: "Doubles x"
    inputSchema: { type: "object", properties: { x: { type: "number" } } }
    outputSchema: { type: "object" }
  - name: "double_plus"
    description: "Doubles x and adds one"
    inputSchema: { type: "object", properties: { x: { type: "number" } } }
    outputSchema: { type: "object" }
# The nodes.
nodes:   # shared by both tools
- id: "in_double"
  type: "entry"
  tool: "double"
  next: "twice"
# Doubles; both tools use it.
- id: "twice"
  type: "transform"
  transform: { expr: '{ "y": $.in_double ? $.in_double.x * 2 : $.in_plus.x * 2 }' }
  next: "pick"
- id: "pick"
  type: "switch"
  conditions:
    - rule: { "!!": [{ var: "$.in_plus" }] }
      target: "plus_one"
  next: "out_double"
- id: "plus_one"
  type: "transform"
  transform:
    expr: |
      { "y": $.twice.y + 1 }
  next: "out_plus"
- id: "dead_end"   # no entry reaches it
  type: "transform"
  transform: { expr: "1" }
  next: "out_double"
- id: "out_double"
  type: "exit"
  tool: "double"
- id: "in_plus"
  type: "entry"
  tool: "double_plus"
  next: "twice"
- id: "out_plus"
  type: "exit"
  tool: "double_plus"
# The end.
`;

const loader = new GraphFileLoader();
/** Each tool of a text as graph_tool_get would answer it, and how the file loads. */
async function toolsOf(file: string, text: string) {
  const { graph, issues } = await loader.readText(file, text);
  expect(issues).toEqual([]);
  return { format: graph!.config.format, tools: Object.fromEntries(graph!.config.tools.map((t) => [t.name, graphToolDefinition(t)])) };
}

describe('convertOlderFormat: an older-format file in the nested format, every tool meaning what it meant', () => {
  it('sum_to_n: the nodes move under the tool with their comments, the entry/exit tool: lines go, every other line stays', async () => {
    const out = convertOlderFormat(SUM_TO_N, 'sum_to_n.yaml');
    const before = await toolsOf('sum_to_n.yaml', SUM_TO_N);
    const after = await toolsOf('sum_to_n.yaml', out);
    expect(before.format).toBe('older');
    expect(after.format).toBe('nested');
    expect(after.tools).toEqual(before.tools);
    expect(parse(out).nodes).toBeUndefined();
    // Everything up to the nodes is kept byte for byte, the node lines follow indented by four more columns.
    const head = SUM_TO_N.slice(0, SUM_TO_N.indexOf('\n# Graph Nodes'));
    expect(out.startsWith(`${head}    nodes:\n      # Entry node: Receives tool arguments\n      - id: "entry_sum"\n        type: "entry"\n        next: "increment_node"\n`)).toBe(true);
    for (const line of SUM_TO_N.split('\n').filter((l) => l.trim() !== '' && !/^\s+tool: "sum_to_n"$/.test(l) && l !== 'nodes:')) {
      expect(out).toContain(line.trim());
    }
    expect(out).toContain('# Graph Nodes');
    expect(out).not.toMatch(/tool: "sum_to_n"/);
  });

  it('shared nodes go to each tool that reaches them, an unreached one to the first tool; servers renamed; comments kept', async () => {
    const out = convertOlderFormat(SHARED, 'shared.yaml');
    const doc = parse(out);
    expect(doc.nodes).toBeUndefined();
    expect(Object.keys(doc)).toEqual(['version', 'server', 'mcpServers', 'tools']);
    expect(doc.tools[0].nodes.map((n: { id: string }) => n.id)).toEqual(['in_double', 'twice', 'pick', 'plus_one', 'dead_end', 'out_double']);
    // out_double is the other tool's exit: not a node of double_plus in the older file either.
    expect(doc.tools[1].nodes.map((n: { id: string }) => n.id)).toEqual(['twice', 'pick', 'plus_one', 'in_plus', 'out_plus']);
    for (const c of ['# Two tools over one node list.', 'mcpServers:   # the older spelling', '# The nodes.', '# shared by both tools', '# Doubles; both tools use it.', '# no entry reaches it', '# The end.']) {
      expect(out).toContain(c);
    }
    // Both copies of the shared transform keep its flow map as written.
    expect(out.split(`transform: { expr: '{ "y": $.in_double ? $.in_double.x * 2 : $.in_plus.x * 2 }' }`)).toHaveLength(3);
    expect(doc.tools[1].nodes[2]).toEqual({ id: 'plus_one', type: 'transform', transform: { expr: '{ "y": $.twice.y + 1 }\n' }, next: 'out_plus' });
    expect(doc.tools[0].nodes[5]).toEqual({ id: 'out_double', type: 'exit' });
  });

  it('a flow-style node list goes through the yaml document (comments kept); JSON through jsonc-parser with its indentation', async () => {
    const flow = 'server: { name: f, version: "1" }\ntools:\n  - { name: t, description: d, inputSchema: { type: object }, outputSchema: { type: object } }\n# nodes below\nnodes: [{ id: a, type: entry, tool: t, next: b }, { id: b, type: exit, tool: t }]\n';
    const out = convertOlderFormat(flow, 'f.yaml');
    expect(parse(out).tools[0].nodes).toEqual([{ id: 'a', type: 'entry', next: 'b' }, { id: 'b', type: 'exit' }]);
    expect(out).toContain('# nodes below');
    expect((await toolsOf('f.yaml', out)).format).toBe('nested');

    const json = JSON.stringify({ server: { name: 'j', version: '1' }, servers: {}, tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }], nodes: [{ id: 'a', type: 'entry', tool: 't', next: 'b' }, { id: 'b', type: 'exit', tool: 't' }] }, null, 4);
    const jout = convertOlderFormat(json, 'j.json');
    expect(JSON.parse(jout)).toEqual({ server: { name: 'j', version: '1' }, mcpServers: {}, tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, nodes: [{ id: 'a', type: 'entry', next: 'b' }, { id: 'b', type: 'exit' }] }] });
    expect(jout).toMatch(/\n {4}"server"/);
  });

  it('CRLF line ends and a file without a last newline stay so; nodes sharing an anchor are refused, not mangled', async () => {
    const crlf = SUM_TO_N.replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    const out = convertOlderFormat(crlf, 'sum_to_n.yaml');
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
    expect((await toolsOf('sum_to_n.yaml', out)).tools).toEqual((await toolsOf('sum_to_n.yaml', SUM_TO_N)).tools);

    // t1's node uses an anchor defined in a node only t2 reaches: moved, the alias would come before its anchor.
    const anchored = `server: { name: a, version: "1" }
tools:
  - { name: t1, description: d, inputSchema: { type: object }, outputSchema: { type: object } }
  - { name: t2, description: d, inputSchema: { type: object }, outputSchema: { type: object } }
nodes:
  - { id: in1, type: entry, tool: t1, next: a1 }
  - id: b2
    type: transform
    transform: &tx { expr: "1" }
    next: out2
  - id: a1
    type: transform
    transform: *tx
    next: out1
  - { id: out1, type: exit, tool: t1 }
  - { id: in2, type: entry, tool: t2, next: b2 }
  - { id: out2, type: exit, tool: t2 }
`;
    expect(() => convertOlderFormat(anchored, 'a.yaml')).toThrow(/^file: a\.yaml is in mcpgraph's older format and cannot be converted to the nested one: /);
  });

  it('refuses, naming the node, a file it cannot split', () => {
    const orphan = SHARED.replace('tool: "double_plus"\n  next: "twice"', 'tool: "nobody"\n  next: "twice"');
    expect(() => convertOlderFormat(orphan, 'o.yaml')).toThrow(/^file: o\.yaml is in mcpgraph's older format and cannot be converted to the nested one: node 'in_plus' \(entry\) names tool 'nobody', which is not declared under 'tools'/);
    expect(() => convertOlderFormat('server: { name: n, version: "1" }\nnodes:\n  - { id: x, type: transform, transform: { expr: "1" }, next: x }\n', 'n.yaml')).toThrow(/declares nodes but no tools/);
  });
});
