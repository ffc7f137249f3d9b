import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { HttpServerProcess, MCP_POST_HEADERS, initializeBody, rawRequest, waitFor } from './helpers/http-server';
import { MODERN_ENVELOPE, connectModernHttp, connectModernStdio, modernHeaders, type ModernConn } from './helpers/modern-client';
import { RawServer, connectClient, tempDir } from './helpers/server-process';

/**
 * The 2026-07-28 revision end to end, on the built server, with the SDK's v2 client pinned to the modern era over
 * stdio and HTTP — beside a 2025-era client (the v1 SDK) on the same server: server/discover, every module's tools,
 * cache hints, subscriptions/listen after a task transition and a graph file edit, the header checks.
 */
const ROOT = path.resolve(__dirname, '../..');
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');
const COUNT_FILES = path.join(ROOT, 'examples/graphs/count_files.yaml');
const SESSION_DEMO = path.join(ROOT, 'tests/fixtures/session-workflows/session-demo.json');

type Answer = Record<string, any>;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

/** One call of each module's tools, checked by what it answers. */
async function everyModule(client: Client, projectRoot: string, project: string): Promise<void> {
  const listing = await call(client, 'workflow_list', {});
  expect(listing.workflows.length).toBeGreaterThan(0);
  const init = await call(client, 'init_project_graph', { projectName: project, projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
  expect(init.project_id ?? init.projectId ?? project).toBeTruthy();
  const ready = await call(client, 'get_ready_tasks', { project });
  expect(JSON.stringify(ready)).toContain('"a"');
  await call(client, 'add_nodes', { projectContext: project, nodes: [{ id: 'm1', thought: 'modern era thought', role: 'actor' }] });
  const listed = await call(client, 'list_nodes', { projectContext: project });
  expect(JSON.stringify(listed)).toContain('modern era thought');
  const inspect = await client.callTool({ name: 'graph_inspect', arguments: { executionId: 'no-such-run' } });
  expect(JSON.stringify(inspect.content)).toMatch(/not_found|no-such-run/);
}

/** Collects change notifications that arrive on a listen stream. */
function collect(client: Client): { updated: string[]; toolsChanged: number; promptsChanged: number } {
  const seen = { updated: [] as string[], toolsChanged: 0, promptsChanged: 0 };
  client.setNotificationHandler('notifications/resources/updated', async (n) => void seen.updated.push(n.params.uri));
  client.setNotificationHandler('notifications/tools/list_changed', async () => void seen.toolsChanged++);
  client.setNotificationHandler('notifications/prompts/list_changed', async () => void seen.promptsChanged++);
  return seen;
}

describe('the modern era (2026-07-28) beside the legacy one', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-modern-')));
  afterEach(() => tmp.cleanup());

  function setup() {
    const graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    fs.copyFileSync(SUM_TO_N, path.join(graphs, 'sum.yaml'));
    const projectRoot = path.join(tmp.dir, 'proj');
    fs.mkdirSync(projectRoot);
    const workflows = path.join(tmp.dir, 'workflows');
    fs.mkdirSync(workflows);
    return { graphs, projectRoot, workflows, args: ['--graphs', graphs, '--workflows', workflows, '--allow-root', tmp.dir] };
  }

  async function modernJourney(conn: ModernConn, { graphs, projectRoot, workflows }: { graphs: string; projectRoot: string; workflows: string }): Promise<void> {
    const { client } = conn;
    expect(client.getProtocolEra()).toBe('modern');
    // server/discover: identity (result _meta), capabilities, instructions.
    expect(client.getServerVersion()).toMatchObject({ name: 'workgraph' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } });
    // Logging per request (its envelope's log level): tests/e2e/modern-era-ops.test.ts.
    expect(client.getServerCapabilities()).toHaveProperty('logging');
    expect(client.getInstructions()).toContain('task DAG');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['workflow_next', 'validate_task_loop', 'add_nodes', 'graph_inspect', 'sum_to_n']));
    await everyModule(client, projectRoot, 'modern');

    const seen = collect(client);
    const tasksUri = 'workgraph://projects/modern/tasks';
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [tasksUri] });
    expect(sub.honoredFilter).toMatchObject({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [tasksUri] });
    await call(client, 'start_task', { project: 'modern', nodeId: 'a' });
    await waitFor('resources/updated after start_task', () => seen.updated.includes(tasksUri));
    // A graph file edit: a new tool, announced on the stream, and listed.
    fs.copyFileSync(COUNT_FILES, path.join(graphs, 'count_files.yaml'));
    await waitFor('tools/list_changed after a graph file edit', () => seen.toolsChanged > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('count_files');
    // A workflow folder change: the prompt list (one prompt per workflow) is announced changed.
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('session-demo');
    fs.copyFileSync(SESSION_DEMO, path.join(workflows, 'session-demo.json'));
    await waitFor('prompts/list_changed after a workflow folder change', () => seen.promptsChanged > 0);
    await waitFor('the new workflow listed as a prompt', async () => (await client.listPrompts()).prompts.some((p) => p.name === 'session-demo'));
    await sub.close();
  }

  it('stdio: discover, every module, cache hints, listen after a task transition and a graph file edit', async () => {
    const s = setup();
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: s.args });
    try {
      await modernJourney(conn, s);
    } finally {
      await conn.close();
    }
  });

  it('stdio, raw: results stamped with resultType, server identity and cache hints; initialize refused on a modern connection', async () => {
    const raw = new RawServer({ dataDir: path.join(tmp.dir, 'data') });
    try {
      raw.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN_ENVELOPE } });
      const discover = (await raw.response(1)).result as Answer;
      expect(discover.supportedVersions).toEqual(['2026-07-28']);
      expect(discover).toMatchObject({ resultType: 'complete', cacheScope: 'public', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'workgraph' } } });
      expect(discover.ttlMs).toBeGreaterThan(0);
      for (const [id, method] of [
        [2, 'tools/list'],
        [3, 'prompts/list'],
        [4, 'resources/list'],
      ] as const) {
        raw.send({ jsonrpc: '2.0', id, method, params: { _meta: MODERN_ENVELOPE } });
        const r = (await raw.response(id)).result as Answer;
        expect(r.resultType).toBe('complete');
        expect(typeof r.ttlMs).toBe('number');
        expect(['public', 'private']).toContain(r.cacheScope);
      }
      raw.send({ jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      expect(((await raw.response(5)).error as Answer).code).toBe(-32022);
    } finally {
      raw.kill();
    }
  });

  it('stdio, legacy: a 2025-era client gets exactly the handshake era (no cache fields, logging announced)', async () => {
    const raw = new RawServer({ dataDir: path.join(tmp.dir, 'data') });
    try {
      await raw.initialize();
      const init = raw.messages().find((m) => m.id === 'init')!.result as Answer;
      expect(init.capabilities).toMatchObject({ logging: {}, tools: { listChanged: true } });
      raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const list = (await raw.response(2)).result as Answer;
      expect(list).not.toHaveProperty('ttlMs');
      expect(list).not.toHaveProperty('resultType');
      raw.send({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: {} });
      expect(((await raw.response(3)).error as Answer).code).toBe(-32601);
    } finally {
      raw.kill();
    }
  });

  describe('over HTTP', () => {
    let server: HttpServerProcess;
    let s: ReturnType<typeof setup>;
    beforeEach(async () => {
      s = setup();
      server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: s.args });
    });
    afterEach(() => server.kill());

    it('discover, every module, listen after a task transition and a graph file edit; a legacy session beside it', async () => {
      const legacy = await server.connect();
      const conn = await connectModernHttp(server.url);
      try {
        await modernJourney(conn, s);
        // The 2025-era session on the same server still works, with its session id.
        expect(legacy.transport.sessionId).toBeTruthy();
        const { tools } = await legacy.client.listTools();
        expect(tools.map((t) => t.name)).toContain('count_files');
      } finally {
        await conn.close();
        await legacy.close();
      }
    });

    const post = (body: unknown, headers: Record<string, string>) => rawRequest(server.url, { method: 'POST', headers, body: JSON.stringify(body) });

    it('header/body mismatch 400 -32020; unsupported version 400 -32022 naming the supported ones; unknown method 404 -32601', async () => {
      const mismatch = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_ENVELOPE } }, modernHeaders('prompts/list'));
      expect(mismatch.status).toBe(400);
      expect(JSON.parse(mismatch.body).error.code).toBe(-32020);
      const name = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'workflow_list', arguments: {}, _meta: MODERN_ENVELOPE } },
        modernHeaders('tools/call', 'workflow_next'),
      );
      expect(name.status).toBe(400);
      expect(JSON.parse(name.body).error.code).toBe(-32020);

      const future = { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
      const unsupported = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: future } }, { ...modernHeaders('tools/list'), 'MCP-Protocol-Version': '2099-01-01' });
      expect(unsupported.status).toBe(400);
      const error = JSON.parse(unsupported.body).error;
      expect(error.code).toBe(-32022);
      expect(error.data.supported).toEqual(['2026-07-28']);

      const unknown = await post({ jsonrpc: '2.0', id: 4, method: 'nope/never', params: { _meta: MODERN_ENVELOPE } }, modernHeaders('nope/never'));
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body).error.code).toBe(-32601);

      // No session is opened for a modern request, and a legacy initialize still gets one.
      const ok = await post({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: MODERN_ENVELOPE } }, modernHeaders('tools/list'));
      expect(ok.status).toBe(200);
      expect(ok.headers['mcp-session-id']).toBeUndefined();
      const list = JSON.parse(ok.body).result;
      // Views are on by default: the tool list differs by client capability, so it is private (mcp-apps-resources).
      expect(list).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
      expect(list.ttlMs).toBeGreaterThan(0);
      const init = await rawRequest(server.url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
      expect(init.status).toBe(200);
      expect(init.headers['mcp-session-id']).toBeTruthy();
    });
  });

  it('a legacy stdio client (v1 SDK) keeps roots, logging and its session on the same build', async () => {
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data') });
    try {
      expect(conn.client.getServerCapabilities()).toMatchObject({ logging: {} });
      await conn.client.setLoggingLevel('info');
      expect((await conn.client.listTools()).tools.length).toBeGreaterThan(20);
    } finally {
      await conn.close();
    }
  });
});
