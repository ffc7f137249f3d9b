import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from '../e2e/helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { answerText as text, KnowledgeTraffic } from './knowledge-traffic';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

/**
 * Several built servers (separate processes, "hosts" for the purpose) on one PostgreSQL database:
 *
 * - Mixed task, knowledge and workflow-session traffic for a while, then the invariants. Tasks: every status is the
 *   `to` of the node's last logged transition, each transition chaining from the previous one. Sessions: each loads
 *   with at least its acknowledged steps. Knowledge (./knowledge-traffic.ts: adds with parents from other servers,
 *   summaries, deletes through the dependents confirmation, summary recalculation, restores, list_nodes paging, into
 *   projects all servers share): every node present exactly once, live or deleted and with the content its
 *   acknowledged writes left, refused adds leaving nothing, counters matching rows, each delete's backup holding
 *   what it deleted, paging giving every id once.
 * - start_task races with exactly one winner each.
 * - The database stopped for 6 s in the middle of that traffic: every server answers storage_unavailable (retryable
 *   `_meta`) within 5 s of the database going down, serves fully after the restart, and has lost no acknowledged
 *   task, knowledge or session write; no validation command ran twice.
 *
 * CI-sized by default (6 s of traffic, 20 races); `npm run stress` sets PG_STRESS_SECONDS=30 and PG_STRESS_RACES=100
 * (the issue's sizes). docs/postgres.md has the figures.
 */
const SERVERS = 4;
const SECONDS = Number(process.env.PG_STRESS_SECONDS || 6);
const RACES = Number(process.env.PG_STRESS_RACES || 20);
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

jest.setTimeout(120_000 + SECONDS * 2000 + RACES * 2000);

describe(`${SERVERS} servers on one PostgreSQL database`, () => {
  let pg: TestPostgres;
  let url: string;
  let tmp: ReturnType<typeof tempDir>;
  let projectRoot: string;
  const conns: Conn[] = [];
  /** Every storage_unavailable answer: which server, when it arrived, how long the call took, whether _meta says retryable. */
  const unavailable: Array<{ server: number; at: number; ms: number; retryable: boolean }> = [];
  const call = async (c: Conn, name: string, args: Record<string, unknown>) => {
    const t0 = Date.now();
    const r = (await c.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
    if (r.isError && text(r).startsWith('storage_unavailable: ')) {
      unavailable.push({ server: conns.indexOf(c), at: Date.now(), ms: Date.now() - t0, retryable: r._meta?.['workgraph/retryable'] === true });
    }
    return r;
  };
  const onServer = (s: number, name: string, args: Record<string, unknown>) => call(conns[s], name, args);
  /** Runs `sql` on a fresh connection to the test database (the invariants read the rows themselves). */
  const query = async (sql: string, params: unknown[]) => {
    const { Client } = require('pg') as typeof import('pg');
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      return (await db.query(sql, params)).rows;
    } finally {
      await db.end();
    }
  };

  /**
   * One server's walk through session-demo sessions (plan, two files, report): start one, continue it to the end,
   * start the next. Counts the steps each session had acknowledged; a failed call is retried with the same token.
   */
  const sessionWalker = (c: Conn, acked: Map<string, number>, errors: string[]) => {
    let token: string | undefined;
    let sessionId = '';
    let step = 0;
    return async () => {
      const r = token
        ? await call(c, 'workflow_continue', { continueToken: token, output: { notesMarkdown: step === 3 ? 'all DONE' : `step ${step}` } })
        : await call(c, 'workflow_start', { workflowId: 'session-demo', goal: 'stress', workspacePath: '/srv/stress', context: { goal: 'g', files: ['a.ts', 'b.ts'] } });
      if (r.isError) return void errors.push(text(r));
      const a = r.structuredContent as Structured;
      if (!token) {
        sessionId = a.sessionId;
        acked.set(sessionId, 0);
        step = 0;
      } else {
        acked.set(sessionId, ++step);
      }
      token = a.status === 'complete' ? undefined : a.continueToken;
    };
  };
  /** Every acknowledged session loads, through any server, with at least its acknowledged steps done. */
  const expectSessionsLoad = async (acked: Map<string, number>) => {
    expect(acked.size).toBeGreaterThan(0);
    let k = 0;
    for (const [sessionId, steps] of acked) {
      const r = await call(conns[k++ % SERVERS], 'workflow_session', { sessionId });
      expect(`${sessionId}: ${r.isError ? text(r) : 'loads'}`).toBe(`${sessionId}: loads`);
      expect(((r.structuredContent as Structured).completedSteps as string[]).length).toBeGreaterThanOrEqual(steps);
    }
  };

  beforeAll(async () => {
    pg = await startTestPostgres();
    url = await pg.createTestDatabase();
    tmp = tempDir();
    projectRoot = path.join(tmp.dir, 'root');
    fs.mkdirSync(projectRoot);
    for (let i = 0; i < SERVERS; i++) conns.push(await connectClient({ dataDir: path.join(tmp.dir, `data${i}`), args: ['--workflows', WORKFLOWS, '--database-url', url] }));
  });
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    tmp?.cleanup();
    await pg?.stop();
  });

  it('mixed task, knowledge and session traffic keeps every task status equal to the end of its transition log, every knowledge node once as acknowledged, and every session loads', async () => {
    const nodes = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, validation_command: i % 3 === 0 ? 'false' : 'true', max_attempts: 100 }));
    const init = await call(conns[0], 'init_project_graph', { projectName: 'mixed', projectRoot, nodes });
    expect(init.isError).toBeFalsy();
    const end = Date.now() + SECONDS * 1000;
    const counts = { ok: 0, refused: 0, other: [] as string[] };
    const acked = new Map<string, number>();
    const knowledge = new KnowledgeTraffic(['notes-a', 'notes-b'], onServer, counts.other, 'm');
    await Promise.all(
      conns.map(async (c, s) => {
        let i = s;
        const walk = sessionWalker(c, acked, counts.other);
        const know = knowledge.walker(s);
        // The time, and at least until every kind of knowledge write has happened (a loaded machine makes fewer calls).
        for (const first = i; Date.now() < end || (!knowledge.coversEveryKind() && i < first + 400); ) {
          if (i % 3 === 0) await walk();
          await know();
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
    console.info(`postgres stress, ${SECONDS} s × ${SERVERS} servers: task calls ${counts.ok} acknowledged, ${counts.refused} refused; sessions ${acked.size}; knowledge ${JSON.stringify(knowledge.counts)}`);
    expect(counts.other).toEqual([]);
    expect(counts.ok).toBeGreaterThan(SERVERS);
    // Invariants, read back through the tools and straight from the database.
    const graph = (await call(conns[1], 'get_project_graph', { project: 'mixed' })).structuredContent as Structured;
    const rows = await query('SELECT node, from_status, to_status FROM wg_task_transitions WHERE project_id = $1 ORDER BY seq', ['mixed']);
    for (const n of graph.nodes as Structured[]) {
      const log = rows.filter((r) => r.node === n.id);
      expect(log.length).toBeGreaterThan(0);
      for (let k = 1; k < log.length; k++) expect(`${n.id}: ${log[k].from_status}`).toBe(`${n.id}: ${log[k - 1].to_status}`);
      expect(`${n.id}: ${log[log.length - 1].to_status}`).toBe(`${n.id}: ${n.status}`);
    }
    await expectSessionsLoad(acked);
    expect(await knowledge.verify(query, SERVERS)).toEqual([]);
    // Each kind of knowledge write happened (the verification above would pass vacuously otherwise).
    expect({ ...knowledge.counts, everyKind: knowledge.coversEveryKind() }).toEqual({ ...knowledge.counts, everyKind: true });
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

  it('a database restart in the middle of task, knowledge and session traffic: storage_unavailable within 5 s of the outage on every server, full service after, no acknowledged write lost, no validation run twice', async () => {
    // Each validation writes its node id to a log: a command run twice for one call would show its id twice.
    const runLog = path.join(tmp.dir, 'validations.log');
    const validated = Array.from({ length: 400 }, (_, i) => ({ id: `v${i}`, title: `V${i}`, validation_command: `echo v${i} >> '${runLog}' && sleep 0.1` }));
    const owned = Array.from({ length: 8 }, (_, i) => ({ id: `o${i}`, title: `O${i}` }));
    expect((await call(conns[0], 'init_project_graph', { projectName: 'outage', projectRoot, nodes: [...owned, ...validated] })).isError).toBeFalsy();
    const acknowledged = new Map<string, string>(); // node -> status an acknowledged call left it in (last writer)
    const validateCalls = new Map<string, boolean>(); // node -> its one validate call was acknowledged
    const sessions = new Map<string, number>();
    const errors: string[] = [];
    const knowledge = new KnowledgeTraffic(['outage-notes'], onServer, errors, 'o');
    // Every server has loaded its modules and migrated before the outage (run alone, a server's first call would
    // otherwise still be loading when the database stops: a cold start is not what the bound is about).
    for (const c of conns) expect((await call(c, 'list_nodes', { projectContext: '/srv/stress-knowledge/outage-notes' })).isError).toBeFalsy();
    let stop = false;
    let nextValidated = 0;
    const traffic = Promise.all(
      conns.map(async (c, s) => {
        const walk = sessionWalker(c, sessions, errors);
        const know = knowledge.walker(s);
        for (let i = 0; !stop; i++) {
          await know();
          if (i % 3 === 2) {
            await walk();
            continue;
          }
          // Each server owns two nodes (its acknowledged writes are its own) and validates fresh nodes, one call each.
          const fresh = i % 3 === 1 && nextValidated < validated.length ? `v${nextValidated++}` : undefined;
          const nodeId = fresh ?? `o${(s * 2 + (i % 2)) % 8}`;
          const tool = fresh ? 'validate_task_loop' : i % 2 === 0 ? 'start_task' : 'reset_task_node';
          const timed = async (name: string) => {
            const r = await call(c, name, { project: 'outage', nodeId });
            if (r.isError) errors.push(text(r));
            return r;
          };
          if (fresh && (await timed('start_task')).isError) continue;
          const r = await timed(tool);
          if (fresh) validateCalls.set(nodeId, !r.isError);
          else if (!r.isError) acknowledged.set(nodeId, tool === 'start_task' ? 'IN_PROGRESS' : 'READY');
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 1500));
    const stopping = Date.now();
    await pg.stopServer!();
    const down = Date.now();
    // Longer than the 5 s bound, so a server that took longer to notice would be caught still waiting.
    await new Promise((r) => setTimeout(r, 6000));
    await pg.startServer!();
    await new Promise((r) => setTimeout(r, 3000));
    stop = true;
    await traffic;
    expect(errors.some((e) => e.startsWith('storage_unavailable: '))).toBe(true);
    expect(errors.filter((e) => !/^(storage_unavailable|invalid_transition|conflict): /.test(e))).toEqual([]);
    expect(errors.every((e) => !e.includes('wg-test-secret'))).toBe(true);
    const during = unavailable.filter((u) => u.at >= stopping);
    expect(during.every((u) => u.retryable)).toBe(true);
    // Per server: from the moment the database goes down to its first storage_unavailable answer, counted from the
    // stop command (the stricter start: the shutdown itself takes a while, and servers already answer during it).
    // The issue's bound is 5 s; the connect timeout is 5 s and a stopped server refuses connections at once, so this
    // measures how fast a call notices, not a timeout.
    const first = conns.map((_, s) => during.find((u) => u.server === s)?.at ?? Infinity);
    const fromStop = first.map((at) => at - stopping);
    const fromDown = first.map((at) => Math.max(0, at - down));
    const slowestCall = Math.max(...during.map((u) => u.ms));
    console.info(
      `postgres outage (shutdown took ${down - stopping} ms): first storage_unavailable per server ${fromStop.join(', ')} ms after the stop command ` +
        `(${fromDown.join(', ')} ms after it completed); slowest storage_unavailable call ${slowestCall} ms; ${during.length} such answers; knowledge ${JSON.stringify(knowledge.counts)}`,
    );
    for (const [s, ms] of fromStop.entries()) expect(`server ${s}: ${ms < 5000 ? 'under 5 s' : `${ms} ms`}`).toBe(`server ${s}: under 5 s`);
    // Every single failing call answered well within the client's patience (a liveness bound for a loaded machine).
    expect(slowestCall).toBeLessThan(10_000);
    // Full service after: every server reads, writes and starts sessions again.
    for (const [s, c] of conns.entries()) {
      expect((await call(c, 'get_ready_tasks', { project: 'outage' })).isError).toBeFalsy();
      expect((await call(c, 'workflow_start', { workflowId: 'session-demo', goal: 'after', context: { goal: 'g', files: [] } })).isError).toBeFalsy();
      expect(await knowledge.probe(s)).toBeUndefined();
    }
    // Acknowledged knowledge writes survived the restart: every node as its acknowledged writes left it.
    expect(await knowledge.verify(query, SERVERS)).toEqual([]);
    const graph = (await call(conns[2], 'get_project_graph', { project: 'outage' })).structuredContent as Structured;
    const status = (id: string) => (graph.nodes as Structured[]).find((n) => n.id === id)!.status;
    for (const [nodeId, st] of acknowledged) expect(`${nodeId}: ${status(nodeId)}`).toBe(`${nodeId}: ${st}`);
    const runs = fs.existsSync(runLog) ? fs.readFileSync(runLog, 'utf8').split('\n').filter(Boolean) : [];
    const perNode = new Map<string, number>();
    for (const id of runs) perNode.set(id, (perNode.get(id) ?? 0) + 1);
    expect([...perNode].filter(([, n]) => n > 1)).toEqual([]);
    for (const [nodeId, ok] of validateCalls) if (ok) expect(`${nodeId}: ${status(nodeId)} ran ${perNode.get(nodeId) ?? 0}`).toBe(`${nodeId}: COMPLETED ran 1`);
    await expectSessionsLoad(sessions);
  });
});
