import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client as PgClient } from 'pg';
import { connectClient, tempDir } from './helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Workflow sessions in PostgreSQL through two built servers with their own data dirs: a session started on one is
 * continued, listed and resumed on the other (one token key per database), a stale token gets `conflict`, and nothing
 * of the sessions lands in either data dir.
 */
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('PostgreSQL workflow sessions (built servers)', () => {
  let pg: TestPostgres;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    pg = await startTestPostgres();
    tmp = tempDir('wg-pgsess-');
  }, 120_000);
  afterAll(async () => {
    tmp?.cleanup();
    await pg?.stop();
  });

  it('a session started through one server continues and resumes through another', async () => {
    const url = await pg.createTestDatabase();
    const open = async (name: string) => {
      const conn = await connectClient({ dataDir: path.join(tmp.dir, name), args: ['--workflows', WORKFLOWS, '--database-url', url] });
      const call = async (tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; value: Answer; text: string }> => {
        const r = (await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }> };
        return { ok: !r.isError, value: r.structuredContent ?? {}, text: r.content[0]?.text ?? '' };
      };
      return { ...conn, call };
    };
    const a = await open('host-a');
    const b = await open('host-b');
    try {
      const started = await a.call('workflow_start', { workflowId: 'session-demo', goal: 'shared across hosts', workspacePath: '/srv/repo', context: { goal: 'x', files: ['a.ts'] } });
      expect(started.ok).toBe(true);
      const sessionId = started.value.sessionId as string;
      const next = await b.call('workflow_continue', { continueToken: started.value.continueToken, output: { notesMarkdown: 'planned on host b' } });
      expect(next.ok).toBe(true);
      expect(next.value.status).toBe('advanced');
      // The same token again with a different output: the head moved on, so it is a conflict (on either host).
      const stale = await a.call('workflow_continue', { continueToken: started.value.continueToken, output: { notesMarkdown: 'something else' } });
      expect(stale.ok).toBe(false);
      expect(stale.text).toMatch(/^conflict: /);
      const listed = await a.call('workflow_sessions', {});
      expect(listed.value.sessions.map((s: Answer) => s.sessionId)).toContain(sessionId);
      const resumed = await a.call('workflow_resume', { workspacePath: '/srv/repo' });
      expect(resumed.value.candidates[0].sessionId ?? resumed.value.candidates[0].session?.sessionId).toBe(sessionId);
      const timeline = await b.call('workflow_session', { sessionId });
      expect(JSON.stringify(timeline.value)).toContain('planned on host b');
      for (const host of ['host-a', 'host-b']) expect(fs.existsSync(path.join(tmp.dir, host, 'sessions'))).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
  it("a workspace's own workflow is pinned in the database: started on one server, continued on another", async () => {
    const url = await pg.createTestDatabase();
    const workspace = path.join(tmp.dir, 'repo');
    fs.mkdirSync(path.join(workspace, '.workgraph', 'workflows'), { recursive: true });
    const own = { id: 'repo-flow', name: 'Repo flow', description: 'Lives in the repository.', version: '1.0.0', steps: [{ id: 'a', title: 'A', prompt: 'Do A.' }, { id: 'b', title: 'B', prompt: 'Do B.' }] };
    fs.writeFileSync(path.join(workspace, '.workgraph', 'workflows', 'repo-flow.json'), JSON.stringify(own));
    const open = (name: string) => connectClient({ dataDir: path.join(tmp.dir, name), args: ['--database-url', url] });
    const a = await open('ws-a');
    const b = await open('ws-b');
    const call = async (conn: typeof a, tool: string, args: Record<string, unknown>) =>
      ((await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as { structuredContent: Answer }).structuredContent;
    try {
      const started = await call(a, 'workflow_start', { workflowId: 'repo-flow', workspacePath: workspace });
      expect(started.step).toMatchObject({ id: 'a' });
      // The file goes away: the session runs on from the pinned copy, and says the workflow can no longer be loaded.
      fs.rmSync(path.join(workspace, '.workgraph', 'workflows', 'repo-flow.json'));
      const next = await call(b, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'did A' } });
      expect(next.step).toMatchObject({ id: 'b' });
      const timeline = await call(b, 'workflow_session', { sessionId: started.sessionId });
      expect(timeline.workflow).toMatchObject({ id: 'repo-flow', newerVersionAvailable: false });
      expect(timeline.workflow.note).toMatch(/can no longer be loaded/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("bounded sessions in PostgreSQL: one output's artifacts and a session's log are capped (limit_exceeded, nothing written)", async () => {
    // Before, --session-log-mb held only the file store's events.ndjson: a PostgreSQL session's log grew without bound.
    const url = await pg.createTestDatabase();
    const conn = await connectClient({
      dataDir: path.join(tmp.dir, 'bounded'),
      args: ['--workflows', WORKFLOWS, '--database-url', url, '--session-artifacts-mb', '0.01', '--session-log-mb', '0.03'],
    });
    const raw = async (tool: string, args: Record<string, unknown>) =>
      (await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }>; _meta?: Answer };
    const code = (r: Awaited<ReturnType<typeof raw>>) => r._meta?.['workgraph/errorCode'];
    const events = async (sessionId: string) => (await raw('workflow_session', { sessionId, limit: 500 })).structuredContent!;
    try {
      const files = Array.from({ length: 20 }, (_, i) => `f${i}.ts`);
      const s = (await raw('workflow_start', { workflowId: 'session-demo', workspacePath: '/srv/bounded', context: { files } })).structuredContent!;
      const big = await raw('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'plan', artifacts: [{ text: 'x'.repeat(11_000) }] } });
      expect(code(big)).toBe('limit_exceeded');
      expect(big.content[0]!.text).toContain('--session-artifacts-mb');
      expect((await events(s.sessionId)).totalEvents).toBe(1);

      let token: string = s.continueToken;
      let steps = 0;
      let refused: Awaited<ReturnType<typeof raw>> | undefined;
      for (let i = 0; i < 20 && !refused; i++) {
        const before = await events(s.sessionId);
        const r = await raw('workflow_continue', { continueToken: token, output: { notesMarkdown: `step ${i}`, artifacts: [{ text: 'y'.repeat(6_000) }] } });
        if (r.isError) {
          refused = r;
          // Nothing half-written: the timeline is exactly what it was, and the same token still names the head.
          expect(await events(s.sessionId)).toEqual(before);
        } else {
          token = r.structuredContent!.continueToken;
          steps++;
        }
      }
      expect(code(refused!)).toBe('limit_exceeded');
      expect(refused!.content[0]!.text).toContain('--session-log-mb');
      expect(steps).toBeGreaterThan(1);
      const timeline = await events(s.sessionId);
      expect(timeline.totalEvents).toBe(steps + 1);
      // What the database holds stays under the cap, counted as the file store's NDJSON would hold it.
      const db = new PgClient({ connectionString: url });
      await db.connect();
      try {
        const [row] = (
          await db.query(
            `SELECT s.log_bytes::int AS counted, (SELECT sum(octet_length(e.event::text) + 1)::int FROM wg_session_events e WHERE e.session_id = s.session_id) AS stored
             FROM wg_sessions s WHERE s.session_id = $1`,
            [s.sessionId],
          )
        ).rows;
        expect(row.counted).toBe(row.stored);
        expect(row.stored).toBeLessThanOrEqual(0.03 * 1024 * 1024);
        expect(row.stored).toBeGreaterThan(0.03 * 1024 * 1024 - 7_000);
      } finally {
        await db.end();
      }
    } finally {
      await conn.close();
    }
  });
});
