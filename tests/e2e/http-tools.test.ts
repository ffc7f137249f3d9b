import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { isAlive } from '../helpers/processes';
import { HttpServerProcess, waitFor, type HttpConn } from './helpers/http-server';
import { OutputSchemaChecker } from './helpers/output-schemas';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Every module's tools over streamable HTTP through the SDK's StreamableHTTPClientTransport against the built server:
 * the same tools/list as stdio, progress and cancellation, sampling, tools/list_changed to two clients, per-session
 * roots.
 */
const ROOT = path.resolve(__dirname, '../..');
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('streamable HTTP: every module (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let projectRoot: string;
  let server: HttpServerProcess;
  let conn: HttpConn;
  let schemas: OutputSchemaChecker;

  beforeAll(async () => {
    tmp = tempDir('wg-http-tools-');
    graphs = path.join(tmp.dir, 'graphs');
    projectRoot = path.join(tmp.dir, 'project');
    fs.mkdirSync(graphs);
    fs.mkdirSync(projectRoot);
    fs.copyFileSync(path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), path.join(graphs, 'sum_to_n.yaml'));
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs, '--allow-root', tmp.dir] });
    conn = await server.connect();
    schemas = await OutputSchemaChecker.fromClient(conn.client);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    server?.kill();
    tmp.cleanup();
  });

  async function ok(c: HttpConn, name: string, args: Record<string, unknown>): Promise<Structured> {
    const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    schemas.check(name, r);
    return r.structuredContent as Structured;
  }

  it('tools/list is the same answer as over stdio', async () => {
    const stdio = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs] });
    try {
      expect((await conn.client.listTools()).tools).toEqual((await stdio.client.listTools()).tools);
    } finally {
      await stdio.close();
    }
  });

  it('workflow module: workflow_list and workflow_next', async () => {
    const list = await ok(conn, 'workflow_list', {});
    expect(list.workflows.map((w: { id: string }) => w.id)).toContain('fix-failing-test');
    const next = await ok(conn, 'workflow_next', { workflowId: 'fix-failing-test', completedSteps: [] });
    expect(next.step).toBeTruthy();
  });

  it('tasks module: init_project_graph, get_ready_tasks, start_task, validate_task_loop', async () => {
    await ok(conn, 'init_project_graph', {
      projectName: 'http-proj',
      projectRoot,
      nodes: [{ id: 'one', title: 'One', depends_on: [], validation_command: 'echo ok' }],
    });
    const ready = await ok(conn, 'get_ready_tasks', { project: 'http-proj' });
    expect(JSON.stringify(ready)).toContain('one');
    await ok(conn, 'start_task', { project: 'http-proj', nodeId: 'one' });
    const v = await ok(conn, 'validate_task_loop', { project: 'http-proj', nodeId: 'one' });
    expect(v.validation_passed).toBe(true);
  });

  it('knowledge module: add_nodes and list_nodes', async () => {
    await ok(conn, 'add_nodes', { projectContext: 'http-k', nodes: [{ id: 'n1', thought: 'Over HTTP.', role: 'actor' }] });
    const listed = await ok(conn, 'list_nodes', { projectContext: 'http-k' });
    expect(JSON.stringify(listed)).toContain('n1');
  });

  it('graph module: a graph tool and graph_inspect', async () => {
    const r = (await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 100 } })) as CallToolResult;
    expect(r.structuredContent).toEqual({ sum: 5050 });
    const executionId = r._meta?.['workgraph/executionId'] as string;
    const inspected = await ok(conn, 'graph_inspect', { executionId });
    expect(JSON.stringify(inspected)).toContain('sum_to_n');
  });

  it('progress notifications reach the client, and cancelling a long validate_task_loop kills its command', async () => {
    await ok(conn, 'init_project_graph', {
      projectName: 'http-progress',
      projectRoot,
      nodes: [{ id: 'slow', title: 'Slow', depends_on: [], validation_command: 'echo first line; sleep 2; echo done' }],
    });
    await ok(conn, 'start_task', { project: 'http-progress', nodeId: 'slow' });
    const updates: Array<{ progress: number; message?: string }> = [];
    const done = (await conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'http-progress', nodeId: 'slow' } }, undefined, {
      onprogress: (p) => updates.push(p),
    })) as CallToolResult;
    expect((done.structuredContent as Structured).validation_passed).toBe(true);
    expect(updates.some((u) => (u.message ?? '').includes('first line'))).toBe(true);

    const pidFile = path.join(projectRoot, 'http-cancel.pid');
    await ok(conn, 'init_project_graph', {
      projectName: 'http-cancel',
      projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok(conn, 'start_task', { project: 'http-cancel', nodeId: 'long' });
    const controller = new AbortController();
    const pending = conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'http-cancel', nodeId: 'long' } }, undefined, {
      signal: controller.signal,
    });
    const sleepPid = await waitFor('the pid file', () => (fs.existsSync(pidFile) && /^\d+$/.test(fs.readFileSync(pidFile, 'utf8').trim()) ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined));
    expect(isAlive(sleepPid)).toBe(true);
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();
    await waitFor('the cancelled command to be gone', () => !isAlive(sleepPid));
    const back = await waitFor('IN_PROGRESS after cancel', async () => {
      const g = await ok(conn, 'get_project_graph', { project: 'http-cancel' });
      const n = (g.nodes as Structured[]).find((x) => x.id === 'long');
      return n?.status === 'IN_PROGRESS' ? n : undefined;
    });
    expect(back.current_attempt).toBe(0);
  });

  it('sampling during a knowledge delete goes to the calling client over its SSE stream', async () => {
    const sampler = await server.connect({ capabilities: { sampling: {} } });
    const asked: string[] = [];
    sampler.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(JSON.stringify(request.params.messages));
      return { role: 'assistant', content: { type: 'text', text: 'Sampled summary over HTTP.' }, model: 'test' };
    });
    try {
      await ok(sampler, 'add_nodes', {
        projectContext: 'http-sampled',
        nodes: [
          { id: 'a', thought: 'Add a cache in front of the store.', role: 'actor' },
          { id: 'c', thought: 'Typo node, to be removed.', role: 'actor' },
          { id: 'sum', thought: 'Old summary.', role: 'summary', summarizedSegment: ['a', 'c'] },
        ],
      });
      const result = await ok(sampler, 'delete_nodes', { projectContext: 'http-sampled', nodeIds: ['c'], recalculateSummaries: true });
      expect(result.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'sampling' })]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('Add a cache');
      expect((await ok(sampler, 'get_node', { projectContext: 'http-sampled', id: 'sum' })).node.thought).toBe('Sampled summary over HTTP.');
    } finally {
      await sampler.close();
    }
  });

  it('tools/list_changed after a graph file edit reaches two connected clients', async () => {
    const other = await server.connect({ name: 'second' });
    let first = 0;
    let second = 0;
    conn.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void first++);
    other.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void second++);
    try {
      fs.copyFileSync(path.join(ROOT, 'examples/graphs/count_files.yaml'), path.join(graphs, 'count_files.yaml'));
      await waitFor('list_changed on both clients', () => first > 0 && second > 0);
      for (const c of [conn, other]) expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('count_files');
    } finally {
      await other.close();
    }
  });

  it('the MCP log level is per session: the server log reaches the session that asked for info, not the one at error', async () => {
    const chatty = await server.connect({ name: 'chatty' });
    const quiet = await server.connect({ name: 'quiet' });
    const heard: Record<string, string[]> = { chatty: [], quiet: [] };
    chatty.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void heard.chatty.push(`${n.params.level} ${JSON.stringify(n.params.data)}`));
    quiet.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void heard.quiet.push(`${n.params.level} ${JSON.stringify(n.params.data)}`));
    try {
      await chatty.client.setLoggingLevel('info');
      await quiet.client.setLoggingLevel('error');
      const file = path.join(graphs, 'sum_to_n.yaml');
      fs.appendFileSync(file, '\n# touched\n');
      await waitFor('the graph reload logged to the info session', () => heard.chatty.some((l) => l.startsWith('info') && l.includes('graph file loaded')));
      await new Promise((r) => setTimeout(r, 500));
      expect(heard.quiet.filter((l) => l.includes('graph file loaded'))).toEqual([]);
    } finally {
      await chatty.close();
      await quiet.close();
    }
  });
});

describe('streamable HTTP: two clients with different roots in one server', () => {
  it('each is confined to its own roots', async () => {
    const tmp = tempDir('wg-http-roots-');
    const alpha = path.join(tmp.dir, 'alpha');
    const beta = path.join(tmp.dir, 'beta');
    fs.mkdirSync(alpha);
    fs.mkdirSync(beta);
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data') });
    const a = await server.connect({ roots: [alpha], name: 'alpha' });
    const b = await server.connect({ roots: [beta], name: 'beta' });
    const init = (c: HttpConn, name: string, root: string) =>
      c.client.callTool({ name: 'init_project_graph', arguments: { projectName: name, projectRoot: root, nodes: [{ id: 'x', title: 'X' }] } }) as Promise<CallToolResult>;
    try {
      expect((await init(a, 'a-own', alpha)).isError).toBeFalsy();
      expect((await init(b, 'b-own', beta)).isError).toBeFalsy();
      const aIntoB = await init(a, 'a-other', beta);
      expect(aIntoB.isError).toBe(true);
      expect(JSON.stringify(aIntoB.content)).toContain('path_not_allowed');
      const bIntoA = await init(b, 'b-other', alpha);
      expect(bIntoA.isError).toBe(true);
      expect(JSON.stringify(bIntoA.content)).toContain('path_not_allowed');
    } finally {
      await a.close();
      await b.close();
      server.kill();
      tmp.cleanup();
    }
  });
});
