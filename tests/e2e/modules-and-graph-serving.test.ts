import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, RawServer, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');
const TEST_SERVER = path.join(ROOT, 'tests/fixtures/mcp-servers/test-server.js');
const SSE_SERVER = path.join(ROOT, 'tests/fixtures/mcp-servers/sse-server.js');

/** A nested-format graph file with one tool that calls `echo` on server `srv` (defined by `servers`, if given). */
function echoGraph(tool: string, servers?: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    server: { name: `g-${tool}`, version: '2.3.4' },
    ...(servers ? { mcpServers: servers } : {}),
    ...extra,
    tools: [
      {
        name: tool,
        description: `echo through ${tool}`,
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        outputSchema: { type: 'object' },
        nodes: [
          { id: 'entry', type: 'entry', next: 'call' },
          { id: 'call', type: 'mcp', server: 'srv', tool: 'echo', args: { message: { expr: '$.entry.message' } }, next: 'exit' },
          { id: 'exit', type: 'exit' },
        ],
      },
    ],
  });
}

const structured = (r: unknown) => (r as { structuredContent: Record<string, unknown> }).structuredContent;

describe('--modules, unknown tools, and serving graph files as mcpgraph does (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-modules-');
  });
  afterAll(() => tmp.cleanup());

  it('--modules workflow,tasks serves only those modules; WORKGRAPH_MODULES does the same', async () => {
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--modules', 'workflow,tasks'] });
    try {
      const names = (await conn.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('workflow_next');
      expect(names).toContain('validate_task_loop');
      expect(names.some((n) => ['add_nodes', 'graph_inspect', 'list_nodes'].includes(n))).toBe(false);
      expect(conn.client.getInstructions()).toMatch(/workflow/);
      expect(conn.client.getInstructions()).not.toMatch(/knowledge graph/);
    } finally {
      await conn.close();
    }
    const env = await connectClient({ dataDir: path.join(tmp.dir, 'data'), env: { WORKGRAPH_MODULES: 'knowledge' } });
    try {
      const names = (await env.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['add_nodes', 'delete_nodes', 'get_node', 'list_nodes', 'restore_nodes', 'search_nodes']);
    } finally {
      await env.close();
    }
  }, 60_000);

  it('answers the plain JSON-RPC workflow methods only when the workflow module is served', async () => {
    const without = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--modules', 'tasks'] });
    try {
      without.send({ jsonrpc: '2.0', id: 1, method: 'workflow_list', params: {} });
      expect(((await without.response(1)).error as { code: number }).code).toBe(-32601);
    } finally {
      without.kill();
    }
    const withIt = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--modules', 'workflow'] });
    try {
      withIt.send({ jsonrpc: '2.0', id: 1, method: 'workflow_list', params: {} });
      expect(((await withIt.response(1)).result as { workflows: unknown[] }).workflows.length).toBeGreaterThan(0);
      withIt.send({ jsonrpc: '2.0', id: 2, method: 'workflow_lst', params: {} });
      const err = (await withIt.response(2)).error as { code: number; message: string };
      expect(err.code).toBe(-32601);
      expect(err.message).toContain("did you mean 'workflow_list'?");
    } finally {
      withIt.kill();
    }
  }, 60_000);

  it('an unknown module is a usage error naming it and the known ones (exit 2)', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli/main.js'), 'serve', '--modules', 'workflow,flows']);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(2);
    expect(err).toContain("unknown module 'flows' (modules: workflow, graph, tasks, knowledge)");
  }, 30_000);

  it('an unknown tool is -32602 listing the tools and the closest name', async () => {
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data') });
    try {
      const err = await conn.client.callTool({ name: 'workflow_lst', arguments: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32602);
      expect((err as McpError).message).toContain("Unknown tool: \"workflow_lst\" (did you mean 'workflow_list'?)");
      expect((err as McpError).message).toContain('tools: add_nodes, add_tasks, claim_next_task, delete_nodes,');
      const far = await conn.client.callTool({ name: 'zzzzzzzz', arguments: {} }).catch((e: unknown) => e);
      expect((far as McpError).message).not.toContain('did you mean');
    } finally {
      await conn.close();
    }
  }, 60_000);

  it('--graphs FILE --only-graphs serves that file with its own server name, version, title and instructions', async () => {
    const file = path.join(tmp.dir, 'titled.yaml');
    const text = fs
      .readFileSync(SUM_TO_N, 'utf8')
      .replace('  description: "Example with a loop using history functions"', '  title: "Loop Example"\n  instructions: "Call sum_to_n with n."\n  description: "x"');
    fs.writeFileSync(file, text);
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', file, '--only-graphs'] });
    try {
      expect(conn.client.getServerVersion()).toMatchObject({ name: 'loopExample', version: '1.0.0', title: 'Loop Example' });
      expect(conn.client.getInstructions()).toBe('Call sum_to_n with n.');
      expect((await conn.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['graph_inspect', 'sum_to_n']);
      expect(structured(await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 10 } }))).toEqual({ sum: 55 });
    } finally {
      await conn.close();
    }
  }, 60_000);

  it('a graph tool named like a built-in is refused naming tool, file and --only-graphs; the other files are served; --only-graphs serves it', async () => {
    const dir = path.join(tmp.dir, 'clash');
    fs.mkdirSync(dir);
    const srv = { srv: { command: process.execPath, args: [TEST_SERVER] } };
    fs.writeFileSync(path.join(dir, 'a-clash.json'), echoGraph('workflow_list', srv));
    fs.writeFileSync(path.join(dir, 'b-fine.json'), echoGraph('fine_tool', srv));
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', dir] });
    try {
      const tools = (await conn.client.listTools()).tools;
      expect(tools.map((t) => t.name)).toContain('fine_tool');
      expect(tools.find((t) => t.name === 'workflow_list')?.description).not.toContain('echo through');
      const err = conn.stderr();
      expect(err).toContain(`${path.join(dir, 'a-clash.json')}: tool 'workflow_list' clashes with workgraph's built-in tool 'workflow_list'`);
      expect(err).toContain('--only-graphs');
    } finally {
      await conn.close();
    }
    const only = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', path.join(dir, 'a-clash.json'), '--only-graphs'] });
    try {
      expect(structured(await only.client.callTool({ name: 'workflow_list', arguments: { message: 'hi' } }))).toMatchObject({ message: 'hi' });
    } finally {
      await only.close();
    }
  }, 90_000);

  it('--mcp-config merges server definitions (the graph file\'s own win); a file with no tools loads with a warning', async () => {
    const mcpConfig = path.join(tmp.dir, 'mcp.json');
    fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { srv: { command: process.execPath, args: [TEST_SERVER], env: { FIXTURE_TAG: 'from-mcp-config' } } } }));
    const graph = path.join(tmp.dir, 'needs-srv.json');
    fs.writeFileSync(graph, echoGraph('needs_srv'));
    const empty = path.join(tmp.dir, 'empty.yaml');
    fs.writeFileSync(empty, 'server: { name: "empty", version: "1" }\ntools: []\n');
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graph, '--graphs', empty, '--mcp-config', mcpConfig], env: { WORKGRAPH_LOG_LEVEL: 'info' } });
    try {
      expect(structured(await conn.client.callTool({ name: 'needs_srv', arguments: { message: 'm' } }))).toMatchObject({ message: 'm', tag: 'from-mcp-config' });
      expect(conn.stderr()).toMatch(/empty\.yaml.*declares no tools/);
    } finally {
      await conn.close();
    }
  }, 60_000);

  it('an sse server entry is called through the SDK SSE client transport, with its headers', async () => {
    const sse: ChildProcessWithoutNullStreams = spawn(process.execPath, [SSE_SERVER]);
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        sse.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /PORT (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        sse.on('exit', () => reject(new Error('sse fixture exited')));
      });
      const graph = path.join(tmp.dir, 'sse.json');
      fs.writeFileSync(graph, echoGraph('via_sse', { srv: { type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: { Authorization: 'Bearer t0ken' } } }));
      const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graph, '--only-graphs'] });
      try {
        expect(structured(await conn.client.callTool({ name: 'via_sse', arguments: { message: 'over sse' } }))).toEqual({
          message: 'over sse',
          transport: 'sse',
          auth: 'Bearer t0ken',
        });
      } finally {
        await conn.close();
      }
    } finally {
      sse.kill();
    }
  }, 60_000);
});
