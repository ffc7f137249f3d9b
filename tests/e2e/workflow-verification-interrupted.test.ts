import * as fs from 'node:fs';
import * as path from 'node:path';
import { RawServer } from './helpers/server-process';
import { fileNumber, groupMembers, isAlive, waitUntilGone } from '../helpers/processes';
import { verifyWorkflowSetup } from './helpers/verify-workflow';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Issue 24: a verification command left by a SIGKILLed server. The session's store holds the running record (owner,
 * run id, pgid) while the command runs; the next server that continues the session kills what is left (checked in
 * /proc), writes the attempt as interrupted (not counted) and runs the verification again — over the files and over
 * PostgreSQL.
 */

type Answer = Record<string, any>;

function setup() {
  // Until `fixed` exists: the shell writes its pid (it leads the command's process group), starts a sleeper and waits.
  const command = `test -f fixed || { echo $$ > shell; sleep 300 & echo $! > sleeper; wait; }`;
  return verifyWorkflowSetup('wg-e2e-verify-kill-', 'wg.e2e-verify-kill', { command });
}

async function tool(server: RawServer, id: string, name: string, a: Record<string, unknown>): Promise<Answer> {
  server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: a } });
  const r = await server.response(id, 60_000);
  const result = r.result as { structuredContent?: Answer; isError?: boolean; content?: unknown } | undefined;
  if (!result?.structuredContent || result.isError) throw new Error(`${name}: ${JSON.stringify(r)}`);
  return result.structuredContent;
}

/** SIGKILL mid-verification, restart, continue: the journey both stores run. */
async function killedMidRun(dataDir: string, ws: string, args: string[], runningRecords: (sessionId: string) => Promise<number>): Promise<void> {
  const first = new RawServer({ dataDir, args });
  let second: RawServer | undefined;
  try {
    await first.initialize();
    const s = await tool(first, 's', 'workflow_start', { workflowId: 'wg.e2e-verify-kill', workspacePath: ws });
    const v = await tool(first, 'v', 'workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
    first.send({ jsonrpc: '2.0', id: 'run', method: 'tools/call', params: { name: 'workflow_continue', arguments: { continueToken: v.continueToken } } });
    const shell = await fileNumber(path.join(ws, 'shell'));
    const sleeper = await fileNumber(path.join(ws, 'sleeper'));
    expect(await runningRecords(s.sessionId)).toBe(1);
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The dead server's command is still there: an orphan.
    expect(isAlive(sleeper)).toBe(true);
    expect(groupMembers(shell).length).toBeGreaterThan(0);

    second = new RawServer({ dataDir, args });
    await second.initialize();
    const before = await tool(second, 'b', 'workflow_session', { sessionId: s.sessionId });
    expect(before.step.completionId).toBe('build__verification');
    fs.writeFileSync(path.join(ws, 'fixed'), '');
    // The continue finds the record: the orphan is killed, the attempt recorded as interrupted, the command runs again.
    const resumed = await tool(second, 'r', 'workflow_continue', { continueToken: v.continueToken });
    expect(resumed).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { verified: true, exitCode: 0 } });
    expect(resumed.verification).not.toHaveProperty('runId');
    expect(await waitUntilGone(sleeper)).toBe(true);
    expect(groupMembers(shell)).toEqual([]);
    const t = await tool(second, 't', 'workflow_session', { sessionId: s.sessionId });
    const runs = t.events.filter((e: Answer) => e.kind === 'verification_run');
    expect(runs.map((e: Answer) => [e.attempt, e.interrupted === true, e.verified, e.exitCode])).toEqual([
      [1, true, false, null],
      [1, false, true, 0],
    ]);
    // Not a failed attempt: nothing blocked.
    expect(t.events.some((e: Answer) => e.kind === 'output_blocked')).toBe(false);
    expect(await runningRecords(s.sessionId)).toBe(0);
  } finally {
    first.kill();
    second?.kill();
  }
}

describe('a verification command left by a SIGKILLed server', () => {
  it('files: the next server kills it, records the attempt as interrupted and runs the verification again', async () => {
    const { tmp, ws, args } = setup();
    const dataDir = path.join(tmp.dir, 'data');
    try {
      await killedMidRun(dataDir, ws, args, async (id) => fs.readdirSync(path.join(dataDir, 'sessions', id)).filter((f) => /^running-.*\.json$/.test(f)).length);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  describe('PostgreSQL', () => {
    let pg: TestPostgres;
    beforeAll(async () => {
      pg = await startTestPostgres();
    }, 120_000);
    afterAll(async () => pg?.stop());

    it('the same over the PostgreSQL session store', async () => {
      const { tmp, ws, args } = setup();
      const url = await pg.createTestDatabase();
      const { Client } = await import('pg');
      const db = new Client({ connectionString: url });
      await db.connect();
      try {
        await killedMidRun(path.join(tmp.dir, 'data'), ws, [...args, '--database-url', url], async (id) => {
          const r = await db.query('SELECT count(*)::int AS n FROM wg_session_verifications WHERE session_id = $1', [id]);
          return r.rows[0].n as number;
        });
      } finally {
        await db.end();
        tmp.cleanup();
      }
    }, 120_000);
  });
});
