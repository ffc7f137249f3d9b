import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Several agents share one plan: each loops claim_next_task → validate_task_loop until every task is COMPLETED.
 * Every task is claimed and completed exactly once — two agents on two server processes sharing a data dir, and four
 * server processes on one PostgreSQL database.
 */
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const TASKS = 50;
// Five chains of ten: agents find work, then wait on dependencies, then find work again.
const nodes = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, ...(i >= 5 ? { depends_on: [`t${i - 5}`] } : {}) }));

async function ok(c: Conn, name: string, args: Record<string, unknown>): Promise<Structured> {
  const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${(r.content as Array<{ text: string }>)[0].text}`);
  return r.structuredContent as Structured;
}

/** One agent's loop, bounded: claim, complete, again; when nothing is ready yet, a short pause. */
async function agentLoop(c: Conn, agent: string): Promise<string[]> {
  const done: string[] = [];
  for (let round = 0; round < 2_000; round++) {
    const next = await ok(c, 'claim_next_task', { project: 'shared', agent });
    if (!next.claimed) {
      if (/every task \(\d+\) is COMPLETED/.test(next.message)) return done;
      await new Promise((r) => setTimeout(r, 10));
      continue;
    }
    const v = await ok(c, 'validate_task_loop', { project: 'shared', nodeId: next.node.id, agent });
    expect(v.validation_passed).toBe(true);
    done.push(next.node.id);
  }
  throw new Error(`agent ${agent} did not finish`);
}

async function runAgents(conns: Conn[], root: string): Promise<void> {
  await ok(conns[0], 'init_project_graph', { projectName: 'shared', projectRoot: root, nodes });
  const results = await Promise.all(conns.map((c, i) => agentLoop(c, `agent-${i}`)));
  const all = results.flat();
  expect(all.sort()).toEqual(nodes.map((n) => n.id).sort());
  expect(new Set(all).size).toBe(TASKS);
  const graph = await ok(conns[0], 'get_project_graph', { project: 'shared' });
  expect(graph.counts.COMPLETED).toBe(TASKS);
  // The history names one claim per task, by the agent that completed it.
  for (const [i, ids] of results.entries()) {
    for (const id of ids) {
      const details = await ok(conns[(i + 1) % conns.length], 'get_task_details', { project: 'shared', nodeId: id });
      const claims = details.history.filter((h: Structured) => h.action === 'claim_next_task');
      expect(claims.map((h: Structured) => h.actor.agent)).toEqual([`agent-${i}`]);
      expect(details.transitions.filter((t: Structured) => t.to === 'IN_PROGRESS')).toHaveLength(1);
    }
  }
}

describe('agents sharing a plan through claim_next_task', () => {
  it('two agents on two server processes (one data dir): every task claimed and completed exactly once', async () => {
    const tmp = tempDir();
    const root = path.join(tmp.dir, 'project');
    fs.mkdirSync(root);
    const conns = await Promise.all([0, 1].map(() => connectClient({ dataDir: path.join(tmp.dir, 'data') })));
    try {
      await runAgents(conns, root);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
      tmp.cleanup();
    }
  }, 180_000);

  describe('PostgreSQL', () => {
    let pg: TestPostgres;
    beforeAll(async () => {
      pg = await startTestPostgres();
    }, 120_000);
    afterAll(async () => pg?.stop());

    it('four server processes on one database: every task claimed and completed exactly once', async () => {
      const tmp = tempDir();
      const root = path.join(tmp.dir, 'project');
      fs.mkdirSync(root);
      const url = await pg.createTestDatabase();
      const first = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--database-url', url] });
      const rest = await Promise.all([1, 2, 3].map(() => connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--database-url', url] })));
      const conns = [first, ...rest];
      try {
        await runAgents(conns, root);
      } finally {
        await Promise.all(conns.map((c) => c.close()));
        tmp.cleanup();
      }
    }, 240_000);
  });
});
