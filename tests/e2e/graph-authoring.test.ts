import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const AUTHORING = [
  'graph_server',
  'graph_tool_list',
  'graph_tool_get',
  'graph_mcp_server_list',
  'graph_mcp_tool_get',
  'graph_test_jsonata',
  'graph_test_json_logic',
  'graph_tool_run',
  'graph_tool_add',
  'graph_tool_update',
  'graph_tool_delete',
];

/** The sum_to_n loop's history after three increments (what its switch and exit see). */
const loopHistory = [
  { nodeId: 'entry_sum', nodeType: 'entry', output: { n: 3 } },
  { nodeId: 'increment_node', output: { counter: 1, sum: 1, target: 3 } },
  { nodeId: 'check_condition', nodeType: 'switch', output: 'increment_node' },
  { nodeId: 'increment_node', output: { counter: 2, sum: 3, target: 3 } },
  { nodeId: 'check_condition', nodeType: 'switch', output: 'increment_node' },
  { nodeId: 'increment_node', output: { counter: 3, sum: 6, target: 3 } },
];

/** The graph authoring tools of the built server through the SDK client, with and without --graph-authoring. */
describe('graph authoring tools (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await conn.client.callTool({ name, arguments: args });
    return r as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }> };
  };

  beforeAll(async () => {
    tmp = tempDir('wg-authoring-');
    graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    fs.copyFileSync(path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), path.join(graphs, 'sum_to_n.yaml'));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs, '--graph-authoring'] });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('without --graph-authoring none of the authoring tools is listed', async () => {
    const plain = await connectClient({ dataDir: path.join(tmp.dir, 'data-plain'), args: ['--graphs', graphs] });
    try {
      const names = (await plain.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('graph_inspect');
      expect(names).toContain('sum_to_n');
      for (const n of AUTHORING) expect(names).not.toContain(n);
      expect(plain.client.getInstructions()).not.toContain('author-graph-tool');
      await expect(plain.client.callTool({ name: 'graph_test_jsonata', arguments: { expression: '1' } })).rejects.toThrow(/Unknown tool/);
    } finally {
      await plain.close();
    }
  });

  it('with it, lists them beside the graph tools, with descriptions as short as the other built-in tools\'', async () => {
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of AUTHORING) expect(names).toContain(n);
    expect(names).toContain('sum_to_n');
    // The server's instructions point the agent at them and at the workflow that walks through them.
    expect(conn.client.getInstructions()).toMatch(/graph tools \(graph_inspect shows a run\), and tools to author them \(.*graph_tool_add: the author-graph-tool workflow walks you through\)/);
    // The bars of tools-list-size.test.ts (which serves without the flag): 400 characters a tool, 200 an input field.
    const fieldDescriptions = (s: unknown): string[] =>
      Array.isArray(s) ? s.flatMap(fieldDescriptions) : s && typeof s === 'object' ? Object.entries(s).flatMap(([k, v]) => (k === 'description' && typeof v === 'string' ? [v] : fieldDescriptions(v))) : [];
    for (const t of tools.filter((x) => AUTHORING.includes(x.name))) {
      expect({ tool: t.name, long: t.description!.length > 400 }).toEqual({ tool: t.name, long: false });
      expect({ tool: t.name, long: fieldDescriptions(t.inputSchema).filter((d) => d.length > 200) }).toEqual({ tool: t.name, long: [] });
    }
  });

  it("graph_server: the file's server block, format, limits and tools", async () => {
    const r = await call('graph_server', {});
    expect(r.isError).toBeFalsy();
    const file = path.join(graphs, 'sum_to_n.yaml');
    expect(r.structuredContent).toEqual({
      graphs: [
        {
          file: fs.realpathSync(file) === file ? file : expect.any(String),
          revision: expect.stringMatching(/^[0-9a-f]{16}$/),
          format: 'older',
          server: { name: 'loopExample', version: '1.0.0', description: 'Example with a loop using history functions' },
          executionLimits: { maxNodeExecutions: expect.any(Number), maxExecutionTimeMs: expect.any(Number) },
          mcpServers: [],
          tools: ['sum_to_n'],
        },
      ],
    });
    expect((await call('graph_server', { file: 'sum_to_n.yaml' })).structuredContent).toEqual(r.structuredContent);
    const missing = await call('graph_server', { file: 'nope.yaml' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toMatch(/nope\.yaml/);
  });

  it('graph_tool_list and graph_tool_get: the tool as served, nodes in the newest format', async () => {
    const list = await call('graph_tool_list', {});
    expect(list.structuredContent).toEqual({
      tools: [{ name: 'sum_to_n', description: 'Sums numbers from 1 to n using a loop', file: expect.stringMatching(/sum_to_n\.yaml$/), graph: 'loopExample' }],
    });
    const got = await call('graph_tool_get', { name: 'sum_to_n' });
    expect(got.isError).toBeFalsy();
    const def = got.structuredContent!;
    const served = (await conn.client.listTools()).tools.find((t) => t.name === 'sum_to_n')!;
    expect(def.inputSchema).toEqual(served.inputSchema);
    expect(def.outputSchema).toEqual(served.outputSchema);
    const nodes = def.nodes as Array<Record<string, unknown>>;
    expect(nodes[0]).toEqual({ id: 'entry_sum', type: 'entry', next: 'increment_node' });
    expect(nodes.find((n) => n.id === 'increment_node')).toEqual({
      id: 'increment_node',
      type: 'transform',
      transform: { expr: expect.stringContaining('$executionCount("increment_node")') },
      next: 'check_condition',
    });
    expect(nodes.find((n) => n.type === 'switch')?.conditions).toEqual([
      { rule: { '<': [{ var: '$.increment_node.counter' }, { var: '$.increment_node.target' }] }, target: 'increment_node' },
      { target: 'exit_sum' },
    ]);
    const unknown = await call('graph_tool_get', { name: 'no_such_tool' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(/no_such_tool/);
  });

  it('graph_test_jsonata: a good expression answers its value, over the context and the history functions', async () => {
    expect((await call('graph_test_jsonata', { expression: '$.entry.n * 2', context: { entry: { n: 21 } } })).structuredContent).toEqual({ ok: true, result: 42 });
    // No context: built from the history (each node's latest output); the history functions answer from it.
    const r = await call('graph_test_jsonata', {
      expression: '{"count": $executionCount("increment_node"), "prev": $previousNode().sum, "first": $nodeExecution("increment_node", 0).sum, "sums": $nodeExecutions("increment_node").sum, "now": $.increment_node.sum}',
      history: loopHistory,
    });
    expect(r.structuredContent).toEqual({ ok: true, result: { count: 3, prev: 6, first: 1, sums: [1, 3, 6], now: 6 } });
    // JSONata's undefined (no match) is ok without a result.
    expect((await call('graph_test_jsonata', { expression: '$.missing', context: {} })).structuredContent).toEqual({ ok: true });
  });

  it('graph_test_jsonata: a syntax error answers its code and position (offset, line, column)', async () => {
    const r = await call('graph_test_jsonata', { expression: '(\n  $x := 1;\n  $x +\n)' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({
      ok: false,
      error: { kind: 'syntax', message: expect.stringMatching(/character 21.*cannot be used as a unary operator/), code: 'S0211', position: 21, line: 4, column: 1 },
    });
  });

  it('graph_test_jsonata: a runtime error answers its code and position; the engine\'s limits hold', async () => {
    const r = await call('graph_test_jsonata', { expression: '1 + $notAFunction(1)', context: {} });
    expect(r.structuredContent).toEqual({
      ok: false,
      error: { kind: 'runtime', message: expect.stringMatching(/non-function/), code: 'T1006', position: 18, line: 1, column: 18 },
    });
    // Non-terminating recursion stops at the engine's depth limit instead of hanging or crashing the server.
    const deep = await call('graph_test_jsonata', { expression: '($f := function($n) { $n + $f($n + 1) }; $f(0))' });
    expect(deep.structuredContent).toMatchObject({ ok: false, error: { kind: 'runtime' } });
    expect((deep.structuredContent!.error as { message: string }).message).toMatch(/stack|depth/i);
  });

  it('graph_test_json_logic: the rule as the switch sees it, with errors located in the var that failed', async () => {
    const rule = { '<': [{ var: '$.increment_node.counter' }, { var: '$.increment_node.target' }] };
    expect((await call('graph_test_json_logic', { rule, history: loopHistory })).structuredContent).toEqual({ ok: true, result: false });
    expect((await call('graph_test_json_logic', { rule, history: loopHistory.slice(0, 4) })).structuredContent).toEqual({ ok: true, result: true });
    expect((await call('graph_test_json_logic', { rule: { '==': [{ var: '$executionCount("increment_node")' }, 3] }, history: loopHistory })).structuredContent).toEqual({
      ok: true,
      result: true,
    });
    const syntax = await call('graph_test_json_logic', { rule: { and: [true, { var: '$.a +' }] }, context: {} });
    expect(syntax.structuredContent).toEqual({
      ok: false,
      error: { kind: 'syntax', message: expect.stringMatching(/not valid JSONata/), path: 'rule.and[1]', expression: '$.a +', position: 5, line: 1, column: 5 },
    });
    const unknownOp = await call('graph_test_json_logic', { rule: { frobnicate: [1] }, context: {} });
    expect(unknownOp.structuredContent).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/unknown JSON Logic operator 'frobnicate'/) } });
    const runtime = await call('graph_test_json_logic', { rule: { '==': [{ var: '$notAFunction(1)' }, 1] }, context: {} });
    expect(runtime.structuredContent).toEqual({
      ok: false,
      error: { kind: 'runtime', message: expect.stringMatching(/non-function/), code: 'T1006', expression: '$notAFunction(1)', position: 14, line: 1, column: 14 },
    });
  });
});
