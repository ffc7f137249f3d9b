import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { CLI, connectClient, RawServer, tempDir } from './helpers/server-process';
import { fileNumber, groupMembers, isAlive, waitUntilGone } from '../helpers/processes';
import { verifyWorkflowSetup } from './helpers/verify-workflow';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Issue 24 against the built server: a session's verification step run by the server — a daemon past the time limit
 * killed with its whole process group, SIGTERM of the server mid-run (exit 0, nothing left, the session resumes at the
 * verification step), and the PostgreSQL session store.
 */

type Answer = Record<string, any>;

function setup(command: string, more: Record<string, unknown> = {}) {
  return verifyWorkflowSetup('wg-e2e-verify-', 'wg.e2e-verify', { command, ...more });
}

describe('verification steps: the built server runs the command', () => {
  it('a command that forks a daemon and sleeps past timeout_ms: killed with its process group and the daemon, blocked, nothing left', async () => {
    const { tmp, ws, args } = setup(`ps -o pgid= $$ | tr -d ' ' > pgid; setsid sh -c 'echo $$ > daemon; exec sleep 300' & sleep 300`, { timeout_ms: 1500 });
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args });
    const call = async (name: string, a: Record<string, unknown>) => ((await conn.client.callTool({ name, arguments: a }, undefined, { timeout: 60_000 })) as CallToolResult).structuredContent as Answer;
    try {
      const s = await call('workflow_start', { workflowId: 'wg.e2e-verify', workspacePath: ws });
      const v = await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
      expect(v.step).toMatchObject({ id: 'build__verification', verificationCommand: { runsOn: 'server' } });
      const blocked = await call('workflow_continue', { continueToken: v.continueToken });
      expect(blocked).toMatchObject({ status: 'blocked', verification: { timedOut: true, verified: false, timeoutMs: 1500 }, blockers: [{ code: 'verification_failed' }] });
      const pgid = await fileNumber(path.join(ws, 'pgid'));
      const daemon = await fileNumber(path.join(ws, 'daemon'));
      expect(await waitUntilGone(daemon)).toBe(true);
      expect(groupMembers(pgid)).toEqual([]);
      const t = await call('workflow_session', { sessionId: s.sessionId });
      expect(t.events.filter((e: Answer) => e.kind === 'verification_run')).toEqual([expect.objectContaining({ timedOut: true, attempt: 1, ranBy: 'server' })]);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  }, 120_000);

  it('a command past waitSeconds: "running" (nothing recorded, the command goes on); the next call waits for it or takes its outcome; it ran once', async () => {
    const { tmp, ws, args } = setup(`echo run >> runs; sleep 2; echo done`);
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args });
    const call = async (name: string, a: Record<string, unknown>) => ((await conn.client.callTool({ name, arguments: a }, undefined, { timeout: 60_000 })) as CallToolResult).structuredContent as Answer;
    try {
      const s = await call('workflow_start', { workflowId: 'wg.e2e-verify', workspacePath: ws });
      const v = await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
      const running = await call('workflow_continue', { continueToken: v.continueToken, waitSeconds: 0 });
      expect(running).toMatchObject({ status: 'running', step: { id: 'build__verification' } });
      expect(running.guidance.prompt).toMatch(/## Still running\nThe verification command `echo run >> runs; sleep 2; echo done` has been running for \d+s/);
      expect((await call('workflow_session', { sessionId: s.sessionId })).events.some((e: Answer) => e.kind === 'verification_run')).toBe(false);
      // Called again (the same point's token): waits for the same run, which ends meanwhile.
      const again = await call('workflow_continue', { continueToken: running.continueToken, waitSeconds: 0 });
      expect(['running', 'advanced']).toContain(again.status);
      // Ended while nobody waited: the next call takes its outcome without running it again.
      await new Promise((r) => setTimeout(r, 3_000));
      const done = again.status === 'advanced' ? again : await call('workflow_continue', { continueToken: again.continueToken, waitSeconds: 0 });
      expect(done).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { verified: true, stdoutTail: 'done\n' } });
      expect(fs.readFileSync(path.join(ws, 'runs'), 'utf8')).toBe('run\n');
      const t = await call('workflow_session', { sessionId: s.sessionId });
      expect(t.events.filter((e: Answer) => e.kind === 'verification_run')).toEqual([expect.objectContaining({ verified: true, attempt: 1 })]);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  }, 120_000);

  it('progress notifications while the command runs (about one a second, with the elapsed time)', async () => {
    const { tmp, ws, args } = setup(`echo started; sleep 2.5`);
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args });
    try {
      const progress: Array<{ progress: number; message?: string }> = [];
      const r = (await conn.client.callTool(
        { name: 'workflow_next', arguments: { workflowId: 'wg.e2e-verify', completedSteps: ['build', 'build__verification'], workspacePath: ws } },
        undefined,
        { timeout: 60_000, onprogress: (p) => progress.push(p) },
      )) as CallToolResult;
      expect((r.structuredContent as Answer).verification).toMatchObject({ verified: true, stdoutTail: 'started\n' });
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress[0].message).toMatch(/^verifying `echo started; sleep 2.5`: running \d+s/);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  }, 120_000);

  it('SIGTERM of the server mid-run: exit 0, no orphan, and the session resumes at the verification step', async () => {
    const { tmp, ws, args } = setup(`test -f fixed || { sleep 300 & echo $! > sleeper; wait; }`);
    const dataDir = path.join(tmp.dir, 'data');
    const first = new RawServer({ dataDir, args: [...args, '--shutdown-grace', '1'] });
    const tool = async (server: RawServer, id: string, name: string, a: Record<string, unknown>) => {
      server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: a } });
      const r = await server.response(id, 60_000);
      return (r.result as { structuredContent?: Answer } | undefined)?.structuredContent as Answer;
    };
    try {
      await first.initialize();
      const s = await tool(first, 's', 'workflow_start', { workflowId: 'wg.e2e-verify', workspacePath: ws });
      const v = await tool(first, 'v', 'workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
      first.send({ jsonrpc: '2.0', id: 'run', method: 'tools/call', params: { name: 'workflow_continue', arguments: { continueToken: v.continueToken } } });
      const sleeper = await fileNumber(path.join(ws, 'sleeper'));
      expect(isAlive(sleeper)).toBe(true);
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
      expect(await waitUntilGone(sleeper)).toBe(true);

      const second = new RawServer({ dataDir, args });
      try {
        await second.initialize();
        const t = await tool(second, 't', 'workflow_session', { sessionId: s.sessionId });
        expect(t.step.completionId).toBe('build__verification');
        expect(t.events[t.events.length - 1]).toMatchObject({ kind: 'verification_run', cancelled: true, verified: false });
        fs.writeFileSync(path.join(ws, 'fixed'), '');
        const resumed = await tool(second, 'r', 'workflow_continue', { continueToken: v.continueToken });
        expect(resumed).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { verified: true, exitCode: 0 } });
      } finally {
        second.kill();
      }
    } finally {
      first.kill();
      tmp.cleanup();
    }
  }, 120_000);
});

describe('workgraph validate', () => {
  it('reports a verification without command in one line naming the step', () => {
    const tmp = tempDir('wg-e2e-verify-validate-');
    try {
      const file = path.join(tmp.dir, 'w.json');
      fs.writeFileSync(file, JSON.stringify({ id: 'wg.x', name: 'x', description: 'd', version: '1.0.0', steps: [{ id: 'build', title: 'Build', prompt: 'b', verification: { prompt: 'check' } }] }));
      const r = spawnSync(process.execPath, [CLI, 'validate', file], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/^.*w\.json:1:\d+: \/steps\/0\/verification: step 'build': verification needs a command/m);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('verification steps over the PostgreSQL session store', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => pg?.stop());

  it('failing command → blocked with the tail; fixed → advances; both runs in the timeline', async () => {
    const { tmp, ws, args } = setup(`test -f ok || { echo 'ok is missing' >&2; exit 2; }`);
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: [...args, '--database-url', await pg.createTestDatabase()] });
    const call = async (name: string, a: Record<string, unknown>) => ((await conn.client.callTool({ name, arguments: a }, undefined, { timeout: 60_000 })) as CallToolResult).structuredContent as Answer;
    try {
      const s = await call('workflow_start', { workflowId: 'wg.e2e-verify', workspacePath: ws });
      const v = await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
      const failed = await call('workflow_continue', { continueToken: v.continueToken });
      expect(failed).toMatchObject({ status: 'blocked', verification: { exitCode: 2, stderrTail: 'ok is missing\n' } });
      fs.writeFileSync(path.join(ws, 'ok'), '');
      const passed = await call('workflow_continue', { continueToken: failed.retryToken });
      expect(passed).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { verified: true } });
      const t = await call('workflow_session', { sessionId: s.sessionId });
      expect(t.events.filter((e: Answer) => e.kind === 'verification_run').map((e: Answer) => [e.attempt, e.exitCode, e.verified])).toEqual([
        [1, 2, false],
        [2, 0, true],
      ]);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  }, 120_000);
});
