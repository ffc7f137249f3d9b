import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { HttpServerProcess, waitFor } from './helpers/http-server';
import { connectModernHttp, connectModernStdio, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';
import { TASKS_CAPABILITY, callAsTask, cancelTask, untilTerminal } from './helpers/tasks-extension-client';

/**
 * Issue 24, the tasks extension for verification steps (2026-07-28, the SDK's v2 client, stdio and HTTP): a
 * workflow_continue (or workflow_next) that runs a verification command becomes a task as the command starts — the
 * command's progress is the task's statusMessage, the continue's answer its result, tasks/cancel kills the command
 * without counting the attempt — while a continue that runs no command answers directly, and a client without the
 * extension waits for the answer as before.
 */

type Answer = Record<string, any>;

/** Prints a line a second for `seconds`, then exits 0 (long enough for a loaded machine's polls to see a tick). */
const ticking = (seconds: number) => `node -e "let i=0;const t=setInterval(()=>{console.log('tick '+(++i));if(i>=${seconds}){clearInterval(t)}},1000)"`;
/** Never ends by itself; leaves its pid in `marker` while it runs. */
const forever = (marker: string) => `node -e "require('fs').writeFileSync('${marker}',String(process.pid));setInterval(()=>{},1000)"`;

function writeWorkflows(dir: string, marker: string): string {
  const workflows = path.join(dir, 'workflows');
  fs.mkdirSync(workflows, { recursive: true });
  const wf = (id: string, command: string) => ({
    id,
    name: id,
    description: 'A step proven by a command.',
    version: '1.0.0',
    steps: [
      { id: 'build', title: 'Build', prompt: 'Build.', verification: { command } },
      { id: 'ship', title: 'Ship', prompt: 'Ship.' },
    ],
  });
  fs.writeFileSync(path.join(workflows, 'slow.json'), JSON.stringify(wf('wg.slow-check', ticking(5))));
  fs.writeFileSync(path.join(workflows, 'stuck.json'), JSON.stringify(wf('wg.stuck-check', forever(marker))));
  return workflows;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function journey(client: Client, ws: string, marker: string): Promise<void> {
  // A continue that runs no command answers directly, as always.
  const s = await call(client, 'workflow_start', { workflowId: 'wg.slow-check', workspacePath: ws });
  const v = await call(client, 'workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
  expect(v).toMatchObject({ status: 'advanced', step: { id: 'build__verification', verificationCommand: { runsOn: 'server' } } });

  // The continue into the command: a task at once; the command's lines as statusMessage; the continue's answer as result.
  const created = await callAsTask(client, 'workflow_continue', { continueToken: v.continueToken });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const { task, messages } = await untilTerminal(client, created.taskId);
  expect(task.status).toBe('completed');
  expect(task.result.isError).not.toBe(true);
  expect(task.result.structuredContent).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { ranBy: 'server', verified: true, exitCode: 0 } });
  expect(messages.some((m) => /^verifying `node -e .*`: running \d+s.*tick \d/.test(m))).toBe(true);

  // workflow_next (stateless) the same way.
  const next = await callAsTask(client, 'workflow_next', { workflowId: 'wg.slow-check', completedSteps: ['build', 'build__verification'], workspacePath: ws });
  const nextDone = await untilTerminal(client, next.taskId);
  expect(nextDone.task.result.structuredContent).toMatchObject({ verification: { verified: true }, step: { id: 'ship' } });

  // tasks/cancel kills the command: the task ends cancelled, the attempt is not counted, the session stays at the
  // verification step.
  const s2 = await call(client, 'workflow_start', { workflowId: 'wg.stuck-check', workspacePath: ws });
  const v2 = await call(client, 'workflow_continue', { continueToken: s2.continueToken, output: { notesMarkdown: 'built' } });
  const stuck = await callAsTask(client, 'workflow_continue', { continueToken: v2.continueToken });
  const pid = Number(await waitFor('the stuck command to start', () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8')));
  expect(alive(pid)).toBe(true);
  await cancelTask(client, stuck.taskId);
  expect((await untilTerminal(client, stuck.taskId)).task.status).toBe('cancelled');
  await waitFor('the cancelled command to be killed', () => !alive(pid));
  const t = await call(client, 'workflow_session', { sessionId: s2.sessionId });
  expect(t.step.completionId).toBe('build__verification');
  const runs = t.events.filter((e: Answer) => e.kind === 'verification_run');
  expect(runs).toEqual([expect.objectContaining({ cancelled: true, verified: false, attempt: 1 })]);
  expect(t.events.some((e: Answer) => e.kind === 'output_blocked')).toBe(false);
}

describe('verification steps as tasks (tasks extension, 2026-07-28)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let ws: string;
  let marker: string;
  let workflows: string;
  beforeEach(() => {
    tmp = tempDir('wg-tasks-verify-');
    ws = path.join(tmp.dir, 'ws');
    fs.mkdirSync(ws);
    marker = path.join(tmp.dir, 'stuck.pid');
    workflows = writeWorkflows(tmp.dir, marker);
  });
  afterEach(() => tmp.cleanup());

  it('stdio: a continue into the command is a task (progress, result, cancel); one without a command answers directly', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', workflows, '--allow-root', tmp.dir], capabilities: TASKS_CAPABILITY });
    try {
      await journey(conn.client, ws, marker);
    } finally {
      await conn.close();
    }
  }, 120_000);

  it('HTTP: the same journey over stateless requests', async () => {
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', workflows, '--allow-root', tmp.dir] });
    let conn: ModernConn | undefined;
    try {
      conn = await connectModernHttp(server.url, { capabilities: TASKS_CAPABILITY });
      await journey(conn.client, ws, marker);
    } finally {
      await conn?.close();
      server.kill();
    }
  }, 120_000);

  it('a client without the extension: the continue into the command waits for its answer, as before', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', workflows, '--allow-root', tmp.dir] });
    try {
      const s = await call(conn.client, 'workflow_start', { workflowId: 'wg.slow-check', workspacePath: ws });
      const v = await call(conn.client, 'workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
      const done = await call(conn.client, 'workflow_continue', { continueToken: v.continueToken });
      expect(done).toMatchObject({ status: 'advanced', step: { id: 'ship' }, verification: { verified: true } });
    } finally {
      await conn.close();
    }
  }, 120_000);
});
