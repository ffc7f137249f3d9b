/**
 * The dashboard's JSON API, end to end: the built `workgraph dashboard` over a data dir that the built MCP server
 * (driven by the SDK's real client) writes. 401 without the token (and the token file's rules), and every read
 * endpoint. (POST refused when read-only, live change events, the actions when allowed: dashboard-api-actions.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from './helpers/server-process';
import { startDashboardProcess } from './helpers/dashboard-process';
import { call } from './helpers/dashboard-seed';
import { eventually, get, useSeededDashboard, type SeededDashboard } from './helpers/dashboard-api';

jest.setTimeout(120_000);

const t = useSeededDashboard();
let data: SeededDashboard['data'];
let mcp: SeededDashboard['mcp'];
let dash: SeededDashboard['dash'];
let seeded: SeededDashboard['seeded'];
beforeAll(() => ({ data, mcp, dash, seeded } = t));

describe('access', () => {
  test('the API answers 401 without the token or with a wrong one; the page itself loads', async () => {
    for (const p of ['/api/meta', '/api/overview', '/api/projects/demo-app/tasks', '/api/events']) {
      const r = await get(dash, p, null);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    expect((await get(dash, '/api/overview', 'wrong-token-000000000000')).status).toBe(401);
    const page = await get(dash, '/', null);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    expect((await get(dash, `/api/meta?token=${dash.token}`, null)).status).toBe(200);
  });

  test('the printed URL carries a random token, different at each start', async () => {
    expect(dash.token).toMatch(/^[0-9a-f]{48}$/);
    const other = await startDashboardProcess({ dataDir: data.dir });
    try {
      expect(other.token).not.toBe(dash.token);
      expect((await get(other, '/api/meta', dash.token)).status).toBe(401);
    } finally {
      await other.stop();
    }
  });

  test('--auth-token-file reads the token file of docs/http.md: comments skipped, every token opens it, the URL encodes it', async () => {
    // Issue 27: the first line `# one token per line` was taken as the token and printed unencoded; the real one got 401.
    const file = path.join(data.dir, 'token.txt');
    const first = 'my-secret+token/123=';
    const second = 'second-secret-token-456';
    fs.writeFileSync(file, `# one token per line\n\n${first}\n${second} name=bob scopes=read\n`);
    const d = await startDashboardProcess({ dataDir: data.dir, args: ['--auth-token-file', file] });
    try {
      expect(d.url).toContain(`?token=${encodeURIComponent(first)}`);
      expect(d.url).not.toContain(first);
      expect(d.token).toBe(first);
      expect((await get(d, '/api/meta')).status).toBe(200);
      const bySecond = await fetch(`${d.origin}/api/meta`, { headers: { Authorization: `Bearer ${second}` } });
      expect(bySecond.status).toBe(200);
      const byComment = await fetch(`${d.origin}/api/meta`, { headers: { Authorization: 'Bearer # one token per line' } });
      expect(byComment.status).toBe(401);
    } finally {
      await d.stop();
    }
    await expect(startDashboardProcess({ dataDir: data.dir, args: ['--auth-token-file', path.join(data.dir, 'nope')] })).rejects.toThrow(/auth-token-file: cannot read/);
  });

  test('a token file with a short token or none stops the dashboard with one line, exit 2', async () => {
    const short = path.join(data.dir, 'short.txt');
    fs.writeFileSync(short, '# one token per line\nshort-token\n');
    const comments = path.join(data.dir, 'comments.txt');
    fs.writeFileSync(comments, '# one token per line\n');
    for (const [file, message] of [
      [short, `--auth-token-file: '${short}' line 2: a token must be at least 16 characters (this one has 11)`],
      [comments, `--auth-token-file: '${comments}' holds no token`],
    ]) {
      const r = spawnSync(process.execPath, [CLI, 'dashboard', '--port', '0', '--data-dir', data.dir, '--auth-token-file', file], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
  });
});

describe('read endpoints', () => {
  test('meta says read-only', async () => {
    const r = await get(dash, '/api/meta');
    expect(r.body).toMatchObject({ allowActions: false, dataDir: data.dir });
  });

  test('overview: projects with counts per status, recent graph runs, knowledge projects', async () => {
    const { body } = await get(dash, '/api/overview');
    const demo = body.projects.find((p: any) => p.id === 'demo-app');
    expect(demo).toMatchObject({ name: 'Demo App', total: 4 });
    expect(demo.counts).toMatchObject({ COMPLETED: 1, RETRYING: 1, READY: 1, PENDING: 1 });
    expect(body.graphRuns.map((r: any) => r.runId)).toContain(seeded.runId);
    expect(body.knowledge.map((k: any) => k.project)).toEqual(['demo-notes']);
    expect(body.knowledge[0].backups).toBe(1);
  });

  test('task graph, task details with attempts and transitions; unknown project and task are 404 not_found', async () => {
    const g = (await get(dash, '/api/projects/demo-app/tasks')).body;
    expect(g.nodes.map((n: any) => [n.id, n.status])).toEqual([['setup', 'COMPLETED'], ['build', 'RETRYING'], ['docs', 'READY'], ['release', 'PENDING']]);
    expect(g.mermaid).toBeUndefined();
    const d = (await get(dash, '/api/projects/demo-app/tasks/build')).body;
    expect(d.node.error_logs[0]).toMatchObject({ attempt: 1, exit_code: 3 });
    expect(d.node.error_logs[0].stderr_tail).toContain('parse error');
    expect(d.transitions.map((t: any) => `${t.from}>${t.to}`)).toEqual(['PENDING>PENDING', 'PENDING>READY', 'READY>IN_PROGRESS', 'IN_PROGRESS>VALIDATING', 'VALIDATING>RETRYING']);
    expect(d.dependents).toEqual(['release']);
    const missing = await get(dash, '/api/projects/nope/tasks');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await get(dash, '/api/projects/demo-app/tasks/nope')).status).toBe(404);
    // A name is slugged like the tools do (`../etc` is project `etc`); one with nothing usable is refused.
    expect((await get(dash, '/api/projects/..%2Fetc/tasks')).status).toBe(404);
    const bad = await get(dash, '/api/projects/!!!/tasks');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_arguments');
  });

  test('graph tools: drawn from the file with switch conditions on the edges; runs and time travel', async () => {
    const list = (await get(dash, '/api/graphs')).body;
    expect(list.tools).toEqual([expect.objectContaining({ name: 'sum_to_n', loaded: true, nodeCount: 5, runs: 1 })]);
    const tool = (await get(dash, '/api/graphs/sum_to_n')).body;
    expect(tool.nodes.map((n: any) => `${n.id}:${n.type}`)).toEqual(['entry_sum:entry', 'increment_node:transform', 'check_condition:switch', 'exit_sum:transform', 'exit_sum_final:exit']);
    const fromSwitch = tool.edges.filter((e: any) => e.source === 'check_condition');
    expect(fromSwitch).toEqual([
      {
        source: 'check_condition',
        target: 'increment_node',
        label: expect.stringContaining('$.increment_node.counter'),
        // The rule itself, which the page spells out as a condition.
        rule: { '<': [{ var: '$.increment_node.counter' }, { var: '$.increment_node.target' }] },
      },
      { source: 'check_condition', target: 'exit_sum', label: 'default' },
    ]);
    expect(tool.inputSchema.properties.n.type).toBe('number');
    expect(tool.recentRuns[0].runId).toBe(seeded.runId);

    const run = (await get(dash, `/api/runs/${seeded.runId}`)).body;
    expect(run).toMatchObject({ tool: 'sum_to_n', status: 'completed', input: { n: 4 }, result: { sum: 10 } });
    expect(run.executions[0]).toMatchObject({ executionIndex: 0, nodeId: 'entry_sum', nodeType: 'entry' });
    // increment_node's third execution saw its second output in the context.
    const incs = run.executions.filter((e: any) => e.nodeId === 'increment_node');
    const third = (await get(dash, `/api/runs/${seeded.runId}/executions/${incs[2].executionIndex}`)).body;
    expect(third.context.increment_node).toMatchObject({ counter: 2, sum: 3 });
    expect(third.context.entry_sum).toEqual({ n: 4 });
    expect(third.execution.output).toMatchObject({ counter: 3, sum: 6 });
    expect((await get(dash, '/api/runs/no-such-run')).status).toBe(404);
    expect((await get(dash, `/api/runs/${seeded.runId}/executions/9999`)).status).toBe(404);
    expect((await get(dash, `/api/runs/${seeded.runId}/executions/x`)).status).toBe(400);
  });

  test('knowledge: newest first, filters by role, tag and text, node page with links, deleted with reason, backups', async () => {
    const all = (await get(dash, '/api/knowledge/demo-notes/nodes')).body;
    expect(all.nodes.map((n: any) => n.id)).toEqual([...seeded.keptIds].reverse());
    expect((await get(dash, '/api/knowledge/demo-notes/nodes?role=critic')).body.nodes.map((n: any) => n.id)).toEqual([seeded.keptIds[1]]);
    expect((await get(dash, '/api/knowledge/demo-notes/nodes?tag=design')).body.nodes.map((n: any) => n.id)).toEqual([seeded.keptIds[0]]);
    const found = (await get(dash, '/api/knowledge/demo-notes/nodes?q=ERROR%20MESSAGES')).body;
    expect(found.nodes.map((n: any) => n.id)).toEqual([seeded.keptIds[1]]);
    // Text is a server-side search_nodes: ranked hits with the matching words marked in a snippet.
    expect(found.nodes[0].snippet).toMatch(/\*\*error\*\*/i);
    expect(found.total).toBe(1);
    expect(found.totalExact).toBe(true);
    expect((await get(dash, '/api/knowledge/demo-notes/nodes?q=the')).status).toBe(400);
    expect((await get(dash, '/api/knowledge/demo-notes/nodes?role=actor&tag=review')).body.nodes).toEqual([]);
    expect((await get(dash, '/api/knowledge/demo-notes/nodes?role=boss')).status).toBe(400);
    const node = (await get(dash, `/api/knowledge/demo-notes/nodes/${seeded.keptIds[0]}`)).body;
    expect(node.thought).toContain('recursive descent');
    const deleted = (await get(dash, '/api/knowledge/demo-notes/deleted')).body;
    expect(deleted.records).toEqual([expect.objectContaining({ nodeId: seeded.deletedId, reason: 'superseded by the hand-written parser' })]);
    const backups = (await get(dash, '/api/knowledge/demo-notes/backups')).body;
    expect(backups.backups).toHaveLength(1);
    expect(backups.backups[0].file).toMatch(/^knowledge_graph_\d{8}-\d{6}\.ndjson$/);
    expect((await get(dash, '/api/knowledge/demo-notes/nodes/nope')).status).toBe(404);
  });

  test('workflow sessions: the list and a session page with the steps, the current prompt and a timeline', async () => {
    const started = await call(mcp.client, 'workflow_start', { workflowId: 'review-change', goal: 'dashboard check' });
    const sessionId = started.sessionId as string;
    expect(typeof sessionId).toBe('string');
    expect((await get(dash, '/api/meta')).body.features.sessions).toBe(true);
    const list = await eventually(async () => {
      const b = (await get(dash, '/api/sessions')).body;
      return b.sessions?.some((x: any) => x.id === sessionId) ? b : undefined;
    }, 'the session in the list');
    expect(list.available).toBe(true);
    const page = (await get(dash, `/api/sessions/${sessionId}`)).body;
    expect(page).toMatchObject({ id: sessionId, workflowId: 'review-change', status: 'active' });
    expect(page.steps.length).toBeGreaterThan(1);
    expect(page.steps.filter((x: any) => x.state === 'current')).toHaveLength(1);
    expect(page.timeline[0].kind).toBe('created');
    expect((await get(dash, '/api/overview')).body.sessions.active.map((x: any) => x.id)).toContain(sessionId);
    expect((await get(dash, '/api/sessions/no-such-session')).status).toBe(404);
  });

  test('unknown endpoints are 404, wrong methods 405', async () => {
    expect((await get(dash, '/api/nope')).status).toBe(404);
    const r = await fetch(`${dash.origin}/api/overview`, { method: 'POST', headers: { Authorization: `Bearer ${dash.token}` } });
    expect(r.status).toBe(405);
  });
});
