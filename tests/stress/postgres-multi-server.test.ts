import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from '../e2e/helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Several built servers (separate processes, "hosts" for the purpose) on one PostgreSQL database: mixed task traffic
 * for a while, then the invariants — every task's status is the `to` of its last logged transition, every transition
 * chains from the previous one — and start_task races with exactly one winner each. CI-sized by default; `npm run
 * stress` sets PG_STRESS_SECONDS=30 and PG_STRESS_RACES=100 (the sizes).
 */
const SERVERS = 4;
const SECONDS = Number(process.env.PG_STRESS_SECONDS || 6);
const RACES = Number(process.env.PG_STRESS_RACES || 20);
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;

jest.setTimeout(120_000 + SECONDS * 2000 + RACES * 2000);

describe(`${SERVERS} servers on one PostgreSQL database`, () => {
  let pg: TestPostgres;
  let url: string;
  let tmp: ReturnType<typeof tempDir>;
  let projectRoot: string;
  const conns: Conn[] = [];
  const call = async (c: Conn, name: string, args: Record<string, unknown>) => (await c.client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    pg = await startTestPostgres();
    url = await pg.createTestDatabase();
    tmp = tempDir();
    projectRoot = path.join(tmp.dir, 'root');
    fs.mkdirSync(projectRoot);
    for (let i = 0; i < SERVERS; i++) conns.push(await connectClient({ dataDir: path.join(tmp.dir, `data${i}`), args: ['--database-url', url] }));
  });
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    tmp?.cleanup();
    await pg?.stop();
  });

  it('mixed traffic keeps every task status equal to the end of its transition log', async () => {
    const nodes = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, validation_command: i % 3 === 0 ? 'false' : 'true', max_attempts: 100 }));
    const init = await call(conns[0], 'init_project_graph', { projectName: 'mixed', projectRoot, nodes });
    expect(init.isError).toBeFalsy();
    const end = Date.now() + SECONDS * 1000;
    const counts = { ok: 0, refused: 0, other: [] as string[] };
    await Promise.all(
      conns.map(async (c, s) => {
        let i = s;
        while (Date.now() < end) {
          const nodeId = `t${(i * 7 + s) % nodes.length}`;
          const tool = ['start_task', 'validate_task_loop', 'reset_task_node', 'get_ready_tasks'][i % 4];
          const r = await call(c, tool, tool === 'get_ready_tasks' ? { project: 'mixed' } : { project: 'mixed', nodeId });
          if (!r.isError) counts.ok++;
          else if (/^(invalid_transition|conflict): /.test(text(r))) counts.refused++;
          else counts.other.push(text(r));
          i++;
        }
      }),
    );
    expect(counts.other).toEqual([]);
    expect(counts.ok).toBeGreaterThan(SERVERS);
    // Invariants, read back through the tools and straight from the database.
    const graph = (await call(conns[1], 'get_project_graph', { project: 'mixed' })).structuredContent as Structured;
    const { Client } = require('pg') as typeof import('pg');
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      const rows = (await db.query('SELECT node, from_status, to_status FROM wg_task_transitions WHERE project_id = $1 ORDER BY seq', ['mixed'])).rows;
      for (const n of graph.nodes as Structured[]) {
        const log = rows.filter((r) => r.node === n.id);
        expect(log.length).toBeGreaterThan(0);
        for (let k = 1; k < log.length; k++) expect(`${n.id}: ${log[k].from_status}`).toBe(`${n.id}: ${log[k - 1].to_status}`);
        expect(`${n.id}: ${log[log.length - 1].to_status}`).toBe(`${n.id}: ${n.status}`);
      }
    } finally {
      await db.end();
    }
  });

  it(`start_task races across the servers: ${RACES}/${RACES} single winners`, async () => {
    await call(conns[0], 'init_project_graph', { projectName: 'races', projectRoot, nodes: [{ id: 'n', title: 'N' }] });
    let singleWinners = 0;
    for (let round = 0; round < RACES; round++) {
      const results = await Promise.all(conns.map((c) => call(c, 'start_task', { project: 'races', nodeId: 'n' })));
      const winners = results.filter((r) => !r.isError).length;
      if (winners === 1 && results.filter((r) => r.isError).every((r) => /^invalid_transition: /.test(text(r)))) singleWinners++;
      expect((await call(conns[round % SERVERS], 'reset_task_node', { project: 'races', nodeId: 'n' })).isError).toBeFalsy();
    }
    expect(singleWinners).toBe(RACES);
  });

  it('a database restart in the middle of traffic: clear errors during the outage, full service after, no acknowledged write lost', async () => {
    await call(conns[0], 'init_project_graph', { projectName: 'outage', projectRoot, nodes: Array.from({ length: 8 }, (_, i) => ({ id: `o${i}`, title: `O${i}` })) });
    const acknowledged = new Map<string, string>(); // node -> status an acknowledged call left it in (last writer)
    const errors: string[] = [];
    let stop = false;
    const traffic = Promise.all(
      conns.map(async (c, s) => {
        let i = 0;
        while (!stop) {
          const nodeId = `o${(s * 2 + (i % 2)) % 8}`; // each server owns two nodes: its acknowledged writes are its own
          const tool = i % 2 === 0 ? 'start_task' : 'reset_task_node';
          const r = await call(c, tool, { project: 'outage', nodeId });
          if (!r.isError) acknowledged.set(nodeId, tool === 'start_task' ? 'IN_PROGRESS' : 'READY');
          else errors.push(text(r));
          i++;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 1500));
    await pg.stopServer!();
    await new Promise((r) => setTimeout(r, 2500));
    await pg.startServer!();
    await new Promise((r) => setTimeout(r, 2500));
    stop = true;
    await traffic;
    expect(errors.some((e) => e.startsWith('storage_unavailable: '))).toBe(true);
    expect(errors.filter((e) => !/^(storage_unavailable|invalid_transition): /.test(e))).toEqual([]);
    expect(errors.every((e) => !e.includes('wg-test-secret'))).toBe(true);
    const graph = (await call(conns[2], 'get_project_graph', { project: 'outage' })).structuredContent as Structured;
    for (const [nodeId, status] of acknowledged) expect(`${nodeId}: ${(graph.nodes as Structured[]).find((n) => n.id === nodeId)!.status}`).toBe(`${nodeId}: ${status}`);
    for (const c of conns) expect((await call(c, 'get_ready_tasks', { project: 'outage' })).isError).toBeFalsy();
  });
});
