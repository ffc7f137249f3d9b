/**
 * The dashboard's API when it acts, end to end (the built `workgraph dashboard` over a data dir the built MCP server
 * writes): read-only, every POST is refused with 403 and changes nothing; a change the MCP server makes reaches the
 * SSE stream; with --allow-actions, the actions go through the same use cases as the tools. (Access and the read
 * endpoints: dashboard-api.test.ts.)
 */
import * as http from 'node:http';
import { startDashboardProcess, type DashboardProcess } from './helpers/dashboard-process';
import { call, SUM_TO_N } from './helpers/dashboard-seed';
import { eventually, get, post, useSeededDashboard } from './helpers/dashboard-api';

jest.setTimeout(120_000);

const t = useSeededDashboard();

describe('read-only', () => {
  test('every action is refused with 403 read_only and changes nothing', async () => {
    for (const [p, body] of [
      ['/api/projects/demo-app/tasks/build/reset', {}],
      ['/api/knowledge/demo-notes/restore', { nodeIds: [t.seeded.deletedId] }],
      ['/api/graphs/sum_to_n/run', { args: { n: 2 } }],
    ] as const) {
      const r = await post(t.dash, p, body);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('read_only');
    }
    const d = (await get(t.dash, '/api/projects/demo-app/tasks/build')).body;
    expect(d.node.status).toBe('RETRYING');
  });
});

describe('live updates', () => {
  test('a change made by the MCP server reaches the SSE stream as an event naming the project', async () => {
    const events: any[] = [];
    const req = http.get(`${t.dash.origin}/api/events?token=${t.dash.token}`);
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    let buf = '';
    res.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const line = block.split('\n').find((l) => l.startsWith('data: '));
        if (block.includes('event: change') && line) events.push(JSON.parse(line.slice(6)));
      }
    });
    try {
      await call(t.mcp.client, 'start_task', { project: 'Demo App', nodeId: 'docs' });
      await eventually(async () => (events.some((e) => e.kind === 'tasks' && e.project === 'demo-app') ? true : undefined), 'a tasks event');
      await call(t.mcp.client, 'add_nodes', { projectContext: '/work/demo-notes', nodes: [{ thought: 'live', role: 'actor' }] });
      await eventually(async () => (events.some((e) => e.kind === 'knowledge' && e.project === 'demo-notes') ? true : undefined), 'a knowledge event');
      await t.mcp.client.callTool({ name: 'sum_to_n', arguments: { n: 2 } });
      await eventually(async () => (events.some((e) => e.kind === 'graph-run' && e.project === 'sum_to_n') ? true : undefined), 'a graph-run event');
      expect(events.every((e) => typeof e.at === 'string')).toBe(true);
    } finally {
      req.destroy();
    }
  });
});

describe('actions (--allow-actions)', () => {
  let act: DashboardProcess;
  beforeAll(async () => {
    act = await startDashboardProcess({ dataDir: t.data.dir, args: ['--graphs', SUM_TO_N, '--allow-actions'], env: { WORKGRAPH_LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    await act?.stop();
  });

  test('reset a task through reset_task_node, with the same errors and codes as the tool', async () => {
    expect((await get(act, '/api/meta')).body.allowActions).toBe(true);
    const r = await post(act, '/api/projects/demo-app/tasks/build/reset', {});
    expect(r.status).toBe(200);
    expect((await get(act, '/api/projects/demo-app/tasks/build')).body.node.status).toBe('READY');
    const refused = await post(act, '/api/projects/demo-app/tasks/release/reset', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_transition');
    expect(act.stderr()).toContain('reset_task_node');
  });

  test('restore a deleted knowledge node; a bad body is 400 naming the field', async () => {
    const r = await post(act, '/api/knowledge/demo-notes/restore', { nodeIds: [t.seeded.deletedId] });
    expect(r.status).toBe(200);
    expect(r.body.restored).toEqual([t.seeded.deletedId]);
    expect((await get(act, '/api/knowledge/demo-notes/deleted')).body.records).toEqual([]);
    const bad = await post(act, '/api/knowledge/demo-notes/restore', { nodeIds: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^nodeIds:/);
  });

  test('run a graph tool; its run is recorded; bad arguments are invalid_arguments', async () => {
    const r = await post(act, '/api/graphs/sum_to_n/run', { args: { n: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.output).toEqual({ sum: 6 });
    await eventually(async () => ((await get(act, `/api/runs/${r.body.runId}`)).status === 200 ? true : undefined), 'the recorded run');
    const bad = await post(act, '/api/graphs/sum_to_n/run', { args: { n: 'three' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_arguments');
  });
});
