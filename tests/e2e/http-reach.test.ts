import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, MCP_POST_HEADERS, initializeBody, rawRequest, type HttpConn } from './helpers/http-server';
import { tempDir } from './helpers/server-process';
import { SUM_TO_N } from './helpers/dashboard-seed';

/**
 * Reach over HTTP (issue 20 "Identities, each with its own reach"): with token A confined to roots `a` and B to `b`,
 * A listed B's sessions, read B's notes, advanced B's session, started and validated B's task, overwrote B's project
 * and started a session in /etc. Now each sees and changes only what lies under its roots (graph runs: only its
 * own), another's is answered exactly as a missing one, and a third identity with both roots sees both.
 */
const A = 'alice-token-0123456789abcdef';
const B = 'bob-token-0123456789abcdefgh';
const C = 'carol-token-0123456789abcdef';

type Answer = CallToolResult & { structuredContent?: Record<string, any> };

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  return (await client.callTool({ name, arguments: args })) as Answer;
}
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await tool(client, name, args);
  if (r.isError) throw new Error(`${name}: ${text(r)}`);
  return r.structuredContent!;
}
function text(r: CallToolResult): string {
  return (r.content as Array<{ type: string; text: string }>)[0].text;
}
function code(r: CallToolResult): unknown {
  return (r._meta as Record<string, unknown> | undefined)?.['workgraph/errorCode'];
}

describe('two identities with disjoint roots see and change only their own; a third with both sees both', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  let rootA: string;
  let rootB: string;
  let a: Client;
  let b: Client;
  let c: Client;
  const conns: HttpConn[] = [];
  let sessionA: { sessionId: string; continueToken: string };
  let runA: string;

  beforeAll(async () => {
    tmp = tempDir('wg-reach-');
    const base = fs.realpathSync(tmp.dir);
    rootA = path.join(base, 'a');
    rootB = path.join(base, 'b');
    fs.mkdirSync(rootA);
    fs.mkdirSync(rootB);
    const tokens = path.join(base, 'tokens');
    fs.writeFileSync(
      tokens,
      [
        '# identities with their own reach',
        `${A} name=alice roots=${rootA} scopes=read,write,run`,
        `${B} name=bob roots=${rootB} scopes=read,write,run`,
        `${C} name=carol roots=${rootA}:${rootB} scopes=read,write,run,admin`,
      ].join('\n'),
    );
    server = await HttpServerProcess.start({
      dataDir: path.join(base, 'data'),
      args: ['--auth-token-file', tokens, '--allow-root', base, '--graphs', SUM_TO_N, '--max-sessions', '6', '--dashboard'],
    });
    for (const token of [A, B, C]) conns.push(await server.connect({ token }));
    [a, b, c] = conns.map((x) => x.client);

    await ok(a, 'init_project_graph', {
      projectName: 'Alpha',
      projectRoot: rootA,
      nodes: [{ id: 't', title: 'T', depends_on: [], validation_command: `touch ${path.join(rootA, 'validated')}` }],
    });
    await ok(b, 'init_project_graph', { projectName: 'Beta', projectRoot: rootB, nodes: [{ id: 't', title: 'T', depends_on: [] }] });
    sessionA = (await ok(a, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'alpha work', workspacePath: rootA })) as typeof sessionA;
    await ok(b, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'beta work', workspacePath: rootB });
    await ok(a, 'add_nodes', { projectContext: path.join(rootA, 'app'), nodes: [{ thought: 'alpha secret', role: 'actor' }] });
    const run = await a.callTool({ name: 'sum_to_n', arguments: { n: 3 } });
    runA = (run._meta as Record<string, string>)['workgraph/executionId'];
  }, 90_000);
  afterAll(async () => {
    await Promise.all(conns.map((x) => x.close()));
    server?.kill();
    tmp.cleanup();
  });

  it("task projects: naming another's is answered exactly like a project that does not exist", async () => {
    const missing = await tool(b, 'get_project_graph', { project: 'Nowhere' });
    for (const [name, args] of [
      ['get_project_graph', { project: 'Alpha' }],
      ['get_ready_tasks', { project: 'Alpha' }],
      ['start_task', { project: 'Alpha', nodeId: 't' }],
      ['validate_task_loop', { project: 'Alpha', nodeId: 't' }],
      ['reset_task_node', { project: 'Alpha', nodeId: 't' }],
    ] as const) {
      const r = await tool(b, name, args);
      expect(code(r)).toBe('not_found');
      expect(text(r)).toBe(text(missing).replace(/Nowhere/g, 'Alpha').replace("'nowhere'", "'alpha'"));
    }
    expect(fs.existsSync(path.join(rootA, 'validated'))).toBe(false);
    // Alpha was not touched: its task is still READY for alice.
    expect((await ok(a, 'get_project_graph', { project: 'Alpha' })).nodes[0].status).toBe('READY');
  });

  it("replace: true of another's project is refused, and a project outside one's roots cannot be created", async () => {
    const replaced = await tool(b, 'init_project_graph', { projectName: 'Alpha', projectRoot: rootB, replace: true, nodes: [{ id: 'x', title: 'X', depends_on: [] }] });
    expect(code(replaced)).toBe('already_exists');
    expect((await ok(a, 'get_project_graph', { project: 'Alpha' })).project_root).toBe(rootA);
    const outside = await tool(b, 'init_project_graph', { projectName: 'Gamma', projectRoot: rootA, nodes: [{ id: 'x', title: 'X', depends_on: [] }] });
    expect(code(outside)).toBe('path_not_allowed');
  });

  it('sessions: listed, named, resumed and advanced only under one\'s roots; none started outside them', async () => {
    const listedB = (await ok(b, 'workflow_sessions', {})).sessions as Array<{ goal: string }>;
    expect(listedB.map((s) => s.goal)).toEqual(['beta work']);
    const resumedB = (await ok(b, 'workflow_resume', { status: ['active', 'needs_attention', 'complete'] })).candidates as Array<{ goal: string }>;
    expect(resumedB.map((s) => s.goal)).toEqual(['beta work']);
    const missingText = text(await tool(b, 'workflow_session', { sessionId: '0123456789abcdef' }));
    for (const [name, args] of [
      ['workflow_session', { sessionId: sessionA.sessionId }],
      ['workflow_resume', { sessionId: sessionA.sessionId }],
      ['workflow_continue', { continueToken: sessionA.continueToken, output: { notesMarkdown: 'hijacked' } }],
      ['workflow_checkpoint', { continueToken: sessionA.continueToken, note: 'hijacked' }],
    ] as const) {
      const r = await tool(b, name, args);
      expect(code(r)).toBe('not_found');
      expect(text(r)).toBe(missingText.replace('0123456789abcdef', sessionA.sessionId));
    }
    const timeline = await ok(a, 'workflow_session', { sessionId: sessionA.sessionId });
    expect(JSON.stringify(timeline)).not.toContain('hijacked');

    const etc = await tool(b, 'workflow_start', { workflowId: 'fix-failing-test', workspacePath: '/etc' });
    expect(code(etc)).toBe('path_not_allowed');
    const none = await tool(b, 'workflow_start', { workflowId: 'fix-failing-test' });
    expect(code(none)).toBe('invalid_arguments');
    expect(text(none)).toContain('workspacePath');
  });

  it("knowledge: another's folder is refused as an argument, whether or not a graph is there", async () => {
    for (const [name, args] of [
      ['list_nodes', { projectContext: path.join(rootA, 'app') }],
      ['get_node', { projectContext: path.join(rootA, 'app'), id: 'x' }],
      ['add_nodes', { projectContext: path.join(rootA, 'app'), nodes: [{ thought: 'planted', role: 'actor' }] }],
      ['delete_nodes', { projectContext: path.join(rootA, 'app'), nodeIds: ['x'] }],
      ['restore_nodes', { projectContext: path.join(rootA, 'app'), nodeIds: ['x'] }],
      ['list_nodes', { projectContext: path.join(rootA, 'nothing-here') }],
    ] as const) {
      const r = await tool(b, name, args);
      expect(code(r)).toBe('path_not_allowed');
      expect(text(r)).not.toContain('alpha secret');
    }
    const mine = (await ok(a, 'list_nodes', { projectContext: path.join(rootA, 'app') })).nodes as Array<{ thought: string }>;
    expect(mine.map((n) => n.thought)).toEqual(['alpha secret']);
  });

  it("knowledge: a bare-name project is its creator's; another's answers as a missing one and is not listed", async () => {
    await ok(a, 'add_nodes', { projectContext: 'team-notes', nodes: [{ id: 'tn1', thought: 'alpha bare secret', role: 'actor' }] });
    const missing = await ok(b, 'list_nodes', { projectContext: 'no-such-notes' });
    expect(await ok(b, 'list_nodes', { projectContext: 'team-notes' })).toEqual({ ...missing, project: 'team-notes' });
    const missingGet = await tool(b, 'get_node', { projectContext: 'no-such-notes', id: 'tn1' });
    const get = await tool(b, 'get_node', { projectContext: 'team-notes', id: 'tn1' });
    expect(code(get)).toBe('not_found');
    expect(text(get)).toBe(text(missingGet).replace("'no-such-notes'", "'team-notes'"));
    await expect(b.readResource({ uri: 'workgraph://knowledge/team-notes' })).rejects.toThrow(/not_found/);
    expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain('workgraph://knowledge/team-notes');
    const dash = await fetch(`${server.origin}/dashboard/api/knowledge`, { headers: { Authorization: `Bearer ${B}` } });
    expect(JSON.stringify(await dash.json())).not.toContain('team-notes');
    // alice still has it; carol (admin) finds it in her listing (a confined identity's bare-name project is kept
    // under the name plus a hash of its identity) and reads it.
    expect(((await ok(a, 'list_nodes', { projectContext: 'team-notes' })).nodes as unknown[]).length).toBe(1);
    const carols = (await c.listResources()).resources.map((r) => r.uri).filter((u) => u.startsWith('workgraph://knowledge/team-notes'));
    expect(carols).toHaveLength(1);
    const id = carols[0]!.slice('workgraph://knowledge/'.length);
    expect(((await ok(c, 'list_nodes', { projectContext: id })).nodes as Array<{ thought: string }>).map((n) => n.thought)).toEqual(['alpha bare secret']);
  });

  it("graph runs: another identity's run is an unknown one", async () => {
    expect((await ok(a, 'graph_inspect', { executionId: runA })).status).toBeDefined();
    const r = await tool(b, 'graph_inspect', { executionId: runA });
    expect(code(r)).toBe('not_found');
    expect(text(r)).toBe(`not_found: execution '${runA}' not found (only the last runs are kept)`);
    expect(code(await tool(b, 'graph_inspect', { executionId: runA, executionIndex: 0 }))).toBe('not_found');
  });

  it('resources/list and resources/read follow the same reach', async () => {
    const listed = (await b.listResources()).resources.map((r) => r.uri);
    expect(listed.some((u) => u.includes(sessionA.sessionId))).toBe(false);
    expect(listed).toContain('workgraph://projects/beta/tasks');
    expect(listed).not.toContain('workgraph://projects/alpha/tasks');
    await expect(b.readResource({ uri: `workgraph://sessions/${sessionA.sessionId}` })).rejects.toThrow(/not_found/);
    await expect(b.readResource({ uri: 'workgraph://projects/alpha/tasks' })).rejects.toThrow(/not_found/);
  });

  it("the dashboard answers as the token's identity: the same reach as its tools", async () => {
    const get = async (token: string, p: string) => {
      const r = await fetch(`${server.origin}/dashboard/api${p}`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: r.status, body: (await r.json()) as any };
    };
    const overview = await get(B, '/overview');
    expect(overview.status).toBe(200);
    expect(overview.body.projects.map((p: { name: string }) => p.name)).toEqual(['Beta']);
    expect(JSON.stringify(overview.body.graphRuns)).not.toContain(runA);
    expect((await get(B, '/projects/alpha/tasks')).status).toBe(404);
    expect((await get(B, `/sessions/${sessionA.sessionId}`)).status).toBe(404);
    const sessions = (await get(B, '/sessions')).body.sessions as unknown[];
    expect(sessions).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain(sessionA.sessionId);
    expect((await get(B, `/runs/${runA}`)).status).toBe(404);
    expect((await get(A, '/projects/alpha/tasks')).status).toBe(200);
    expect((await get(C, '/overview')).body.projects.map((p: { name: string }) => p.name).sort()).toEqual(['Alpha', 'Beta']);
  });

  it('the identity with both roots (and admin) sees both', async () => {
    expect((await ok(c, 'get_project_graph', { project: 'Alpha' })).project_root).toBe(rootA);
    expect((await ok(c, 'get_project_graph', { project: 'Beta' })).project_root).toBe(rootB);
    const goals = ((await ok(c, 'workflow_sessions', {})).sessions as Array<{ goal: string }>).map((s) => s.goal).sort();
    expect(goals).toEqual(['alpha work', 'beta work']);
    expect(((await ok(c, 'list_nodes', { projectContext: path.join(rootA, 'app') })).nodes as unknown[]).length).toBe(1);
    expect((await ok(c, 'graph_inspect', { executionId: runA })).executionId).toBe(runA);
  });

  it('records keep their actor: the identity and the agent client, shown by the tools that return them', async () => {
    const actor = { name: 'alice', client: 'workgraph-http-e2e' };
    const timeline = await ok(a, 'workflow_session', { sessionId: sessionA.sessionId });
    expect(timeline.events[0]).toMatchObject({ kind: 'session_started', actor });
    await ok(a, 'workflow_checkpoint', { continueToken: sessionA.continueToken, note: 'mine' });
    const after = await ok(a, 'workflow_session', { sessionId: sessionA.sessionId });
    expect(after.events.find((e: { kind: string }) => e.kind === 'checkpoint_created')).toMatchObject({ actor });
    const listed = await ok(a, 'list_nodes', { projectContext: path.join(rootA, 'app') });
    const node = await ok(a, 'get_node', { projectContext: path.join(rootA, 'app'), id: listed.nodes[0].id });
    expect(node.node.actor).toEqual(actor);
    expect((await ok(a, 'graph_inspect', { executionId: runA })).actor).toEqual(actor);
    // carol (admin) sees who did it.
    expect((await ok(c, 'graph_inspect', { executionId: runA })).actor).toEqual(actor);
  });

  it('the session cap is shared: one identity holds at most half of --max-sessions', async () => {
    // alice already holds one session (of 6); two more reach her share of 3, the next is refused — bob still gets one.
    for (let i = 0; i < 2; i++) conns.push(await server.connect({ token: A }));
    const refused = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${A}` }, body: initializeBody() });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toContain("identity 'alice' holds 3 sessions, its share of --max-sessions 6");
    const bob = await server.connect({ token: B });
    conns.push(bob);
    expect((await ok(bob.client, 'workflow_sessions', {})).total).toBe(1);
  });
});
