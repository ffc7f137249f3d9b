import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;

function jsonGraph(tool: string, expr: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    server: { name: `g-${tool}`, version: '1.0.0' },
    ...extra,
    tools: [
      {
        name: tool,
        description: `graph tool ${tool}`,
        inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        outputSchema: { type: 'object', properties: { y: { type: 'number' } } },
        nodes: [
          { id: 'entry', type: 'entry', next: 'calc' },
          { id: 'calc', type: 'transform', transform: { expr }, next: 'exit' },
          { id: 'exit', type: 'exit' },
        ],
      },
    ],
  });
}

/** Graph files served as MCP tools by the built server, through the SDK client. */
describe('graph tools (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let listChanged = 0;

  beforeAll(async () => {
    tmp = tempDir('wg-graphs-');
    graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    fs.copyFileSync(path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), path.join(graphs, 'sum_to_n.yaml'));
    fs.copyFileSync(path.join(ROOT, 'examples/graphs/count_files.yaml'), path.join(graphs, 'count_files.yaml'));
    fs.writeFileSync(path.join(graphs, 'clash.json'), jsonGraph('workflow_list', '{"y": 1}'));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs], env: { WORKGRAPH_LOG_LEVEL: 'info' } });
    conn.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      listChanged++;
    });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; server stderr: ${conn.stderr().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const toolNames = async () => (await conn.client.listTools()).tools.map((t) => t.name);

  it('serves each graph tool with its schemas; a clashing file is refused naming both sides', async () => {
    const { tools } = await conn.client.listTools();
    const sum = tools.find((t) => t.name === 'sum_to_n');
    expect(sum?.inputSchema).toMatchObject({ type: 'object', required: ['n'] });
    expect(sum?.outputSchema?.type).toBe('object');
    expect(tools.filter((t) => t.name === 'workflow_list')).toHaveLength(1);
    expect(conn.stderr()).toMatch(/clash\.json/);
    // The start line counts the tools of graph files only (not the built-in graph_inspect).
    await waitFor(async () => conn.stderr().includes('serving on stdio'), 'the start line');
    expect(conn.stderr()).toMatch(/serving on stdio: \d+ tools, \d+ workflows, 2 graph tools, data dir/);
  });

  it('runs the seed loop example unchanged and names the run in _meta', async () => {
    const r = await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 1000 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ sum: 500500 });
    const executionId = r._meta?.['workgraph/executionId'];
    expect(typeof executionId).toBe('string');

    const run = await conn.client.callTool({ name: 'graph_inspect', arguments: { executionId, limit: 5 } });
    const state = run.structuredContent as { status: string; executionCount: number; history: Array<{ nodeId: string }>; historyTotal: number };
    expect(state.status).toBe('finished');
    expect(state.historyTotal).toBe(state.executionCount);
    expect(state.executionCount).toBe(1 + 2 * 1000 + 2);
    expect(state.history.map((h) => h.nodeId)).toEqual(['entry_sum', 'increment_node', 'check_condition', 'increment_node', 'check_condition']);

    // Time travel: the context node 3 (the second increment) saw holds the first increment's output.
    const at = await conn.client.callTool({ name: 'graph_inspect', arguments: { executionId, executionIndex: 3 } });
    const seen = at.structuredContent as { record: { nodeId: string }; context: Record<string, { counter?: number }> };
    expect(seen.record.nodeId).toBe('increment_node');
    expect(seen.context.increment_node.counter).toBe(1);
  });

  it('checks graph tool arguments against the tool input schema', async () => {
    const r = await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 'ten' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^invalid_arguments: n: /);
  });

  it('calls the official filesystem MCP server from an mcp node (count_files)', async () => {
    const r = await conn.client.callTool({ name: 'count_files', arguments: { directory: path.join(ROOT, 'tests/fixtures/count-files') } });
    expect(text(r)).not.toMatch(/error/);
    expect(r.structuredContent).toEqual({ count: 3 });
  });

  it('reloads an added file, keeps the last good graph on a broken edit, and drops a deleted file', async () => {
    const file = path.join(graphs, 'double.json');
    fs.writeFileSync(file, jsonGraph('double', '{"y": $.entry.x * 2}'));
    await waitFor(async () => (await toolNames()).includes('double'), 'double to appear');
    expect(listChanged).toBeGreaterThan(0);
    expect((await conn.client.callTool({ name: 'double', arguments: { x: 21 } })).structuredContent).toEqual({ y: 42 });

    fs.writeFileSync(file, jsonGraph('double', '{"y": $.entry.x * 3}'));
    await waitFor(async () => ((await conn.client.callTool({ name: 'double', arguments: { x: 1 } })).structuredContent as { y: number }).y === 3, 'the edit');

    fs.writeFileSync(file, jsonGraph('double', '{"y": $.entry.x * (((('));
    await waitFor(async () => /graph file not loaded.*double\.json/.test(conn.stderr()), 'the broken edit to be logged');
    expect((await conn.client.callTool({ name: 'double', arguments: { x: 2 } })).structuredContent).toEqual({ y: 6 });

    fs.rmSync(file);
    await waitFor(async () => !(await toolNames()).includes('double'), 'double to disappear');
  });

  it('ends a runaway graph at its execution limit with a clear error that still names the run', async () => {
    const file = path.join(graphs, 'forever.json');
    const forever = JSON.parse(jsonGraph('forever', '{"y": 1}', { executionLimits: { maxNodeExecutions: 50 } }));
    forever.tools[0].nodes = [
      { id: 'entry', type: 'entry', next: 'calc' },
      { id: 'calc', type: 'transform', transform: { expr: '{"y": 1}' }, next: 'again' },
      { id: 'again', type: 'switch', conditions: [{ rule: { '==': [1, 1] }, target: 'calc' }, { target: 'exit' }] },
      { id: 'exit', type: 'exit' },
    ];
    fs.writeFileSync(file, JSON.stringify(forever));
    await waitFor(async () => (await toolNames()).includes('forever'), 'forever to appear');
    const r = await conn.client.callTool({ name: 'forever', arguments: { x: 1 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^execution_limit: .*maxNodeExecutions/);
    expect(typeof r._meta?.['workgraph/executionId']).toBe('string');
  });
});

/** A long graph run must not starve the server: pings and other tools are answered, and cancellation stops it. */
describe('graph runs and the event loop (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    tmp = tempDir('wg-graph-loop-');
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml')] });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('answers pings and workflow tools while a long run goes on, and stops the run on cancellation', async () => {
    const controller = new AbortController();
    const long = conn.client
      .callTool({ name: 'sum_to_n', arguments: { n: 5_000_000 } }, undefined, { signal: controller.signal, timeout: 120_000 })
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    // Served in between the run's time slices (a liveness check, not a speed figure).
    for (let i = 0; i < 3; i++) await expect(conn.client.ping({ timeout: 5_000 })).resolves.toBeDefined();
    const list = await conn.client.callTool({ name: 'workflow_list', arguments: {} }, undefined, { timeout: 5_000 });
    expect(list.isError).toBeFalsy();
    controller.abort();
    expect(await long).toBeInstanceOf(Error);
    // The cancelled run has stopped: a fresh small run completes right away with the right answer.
    const small = await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 10 } }, undefined, { timeout: 10_000 });
    expect(small.structuredContent).toEqual({ sum: 55 });
  });
});
