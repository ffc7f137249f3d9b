import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { HttpServerProcess, waitFor } from './helpers/http-server';
import { connectModernHttp, connectModernStdio, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';
import { TASKS_CAPABILITY, callAsTask, cancelTask, getTask, untilTerminal, updateTask } from './helpers/tasks-extension-client';

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) end to end on the built server, with the SDK's v2 client in
 * the 2026-07-28 era over stdio and HTTP: validate_task_loop as a task with progress (its statusMessage) and its
 * result, a cancellation that kills the command, a graph tool as a task, the extension's errors, and — on one
 * PostgreSQL — status, result and cancellation answered by an instance other than the one running the task.
 */
const ROOT = path.resolve(__dirname, '../..');
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');

type Answer = Record<string, any>;

/** A validation command that prints a line a second for `seconds`, then exits 0. */
const ticking = (seconds: number) => `node -e "let i=0;const t=setInterval(()=>{console.log('tick '+(++i));if(i>=${seconds}){clearInterval(t)}},1000)"`;
/** A validation command that never ends by itself, and leaves a marker file while it runs. */
const forever = (marker: string) => `node -e "require('fs').writeFileSync('${marker}',String(process.pid));setInterval(()=>{},1000)"`;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

async function plan(client: Client, project: string, projectRoot: string, nodes: Array<{ id: string; command: string }>): Promise<void> {
  await call(client, 'init_project_graph', { projectName: project, projectRoot, nodes: nodes.map((n) => ({ id: n.id, title: n.id, depends_on: [], validation_command: n.command })) });
  for (const n of nodes) await call(client, 'start_task', { project, nodeId: n.id });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** validate_task_loop and a graph tool as tasks, then a cancellation: the journey each transport runs. */
async function taskJourney(client: Client, dir: string, project: string): Promise<void> {
  const projectRoot = path.join(dir, `root-${project}`);
  fs.mkdirSync(projectRoot);
  const marker = path.join(dir, `${project}.pid`);
  await plan(client, project, projectRoot, [
    { id: 'slow', command: ticking(6) }, // long enough for a loaded machine's polls to see a tick
    { id: 'stuck', command: forever(marker) },
  ]);

  // validate_task_loop: answered at once with a working task; its progress shows in statusMessage; its result is the
  // tool's own answer.
  const created = await callAsTask(client, 'validate_task_loop', { project, nodeId: 'slow' });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
  expect(created.ttlMs).toBeGreaterThan(0);
  expect(created.pollIntervalMs).toBeGreaterThan(0);
  expect(created).not.toHaveProperty('content');
  const { task, messages } = await untilTerminal(client, created.taskId);
  expect(task.status).toBe('completed');
  expect(task.result.structuredContent).toMatchObject({ validation_passed: true, replayed: false, node: { id: 'slow', status: 'COMPLETED' } });
  expect(task.result.isError).not.toBe(true);
  // Progress: the command's lines while it ran (the tool's progress messages, as the task's statusMessage).
  expect(messages.some((m) => /tick \d/.test(m))).toBe(true);
  // A terminal task keeps answering the same.
  expect((await getTask(client, created.taskId)).result).toEqual(task.result);

  // A graph tool as a task.
  const sum = await callAsTask(client, 'sum_to_n', { n: 10 });
  const summed = await untilTerminal(client, sum.taskId);
  expect(summed.task).toMatchObject({ status: 'completed', result: { structuredContent: { sum: 55 } } });
  expect(summed.task.result._meta['workgraph/executionId']).toEqual(expect.any(String));

  // Cancellation: the command is killed, the task ends cancelled, and the attempt is not used.
  const stuck = await callAsTask(client, 'validate_task_loop', { project, nodeId: 'stuck' });
  const pid = Number(await waitFor('the stuck command to start', () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8')));
  expect(alive(pid)).toBe(true);
  expect(await cancelTask(client, stuck.taskId)).not.toHaveProperty('status');
  const cancelled = await untilTerminal(client, stuck.taskId);
  expect(cancelled.task.status).toBe('cancelled');
  expect(cancelled.task).not.toHaveProperty('result');
  await waitFor('the cancelled command to be killed', () => !alive(pid));
  const details = await call(client, 'get_task_details', { project, nodeId: 'stuck' });
  expect(JSON.stringify(details)).not.toMatch(/"status":"(VALIDATING|FAILED)"/);

  // The extension's errors: an unknown task is -32602; tasks/update of a task waiting for nothing is acknowledged.
  await expect(getTask(client, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
  expect(await updateTask(client, created.taskId, { nothing: { action: 'accept' } })).not.toHaveProperty('status');
}

describe('the tasks extension (2026-07-28)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-tasks-ext-')));
  afterEach(() => tmp.cleanup());

  function graphsDir(): string {
    const graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs, { recursive: true });
    fs.copyFileSync(SUM_TO_N, path.join(graphs, 'sum.yaml'));
    return graphs;
  }

  it('stdio: validate_task_loop with progress and its result, a graph tool, cancel, errors; the capability announced', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphsDir(), '--allow-root', tmp.dir], capabilities: TASKS_CAPABILITY });
    try {
      expect(conn.client.getServerCapabilities()).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
      await taskJourney(conn.client, tmp.dir, 'stdio');
      // The tasks live in the data dir (any process on it answers for them).
      expect(fs.readdirSync(path.join(tmp.dir, 'data', 'protocol', 'tasks')).filter((f) => f.endsWith('.json')).length).toBe(3);
    } finally {
      await conn.close();
    }
  });

  it('a client without the extension: the same tools answer as always (waitSeconds polling), and tasks/* are refused -32021', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphsDir(), '--allow-root', tmp.dir] });
    try {
      const projectRoot = path.join(tmp.dir, 'plain');
      fs.mkdirSync(projectRoot);
      await plan(conn.client, 'plain', projectRoot, [{ id: 'slow', command: ticking(2) }]);
      const first = await call(conn.client, 'validate_task_loop', { project: 'plain', nodeId: 'slow', waitSeconds: 0 });
      expect(first).toMatchObject({ running: true, validation_passed: null });
      const done = await call(conn.client, 'validate_task_loop', { project: 'plain', nodeId: 'slow', waitSeconds: 30 });
      expect(done).toMatchObject({ validation_passed: true });
      expect(await call(conn.client, 'sum_to_n', { n: 4 })).toEqual({ sum: 10 });
      await expect(getTask(conn.client, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
    } finally {
      await conn.close();
    }
  });

  it('HTTP: the same journey over stateless requests', async () => {
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphsDir(), '--allow-root', tmp.dir] });
    let conn: ModernConn | undefined;
    try {
      conn = await connectModernHttp(server.url, { capabilities: TASKS_CAPABILITY });
      await taskJourney(conn.client, tmp.dir, 'http');
    } finally {
      await conn?.close();
      server.kill();
    }
  });

  it('HTTP with tokens: a task is its creator\'s — another identity neither sees nor cancels it', async () => {
    const alice = 'a1ce0000000000000000000000000001';
    const bob = 'b0b00000000000000000000000000002';
    const tokens = path.join(tmp.dir, 'tokens');
    fs.writeFileSync(tokens, `${alice} name=alice scopes=read,write,run\n${bob} name=bob scopes=read,write,run\n`);
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphsDir(), '--allow-root', tmp.dir, '--auth-token-file', tokens] });
    const conns: ModernConn[] = [];
    try {
      const asAlice = await connectModernHttp(server.url, { token: alice, capabilities: TASKS_CAPABILITY });
      const asBob = await connectModernHttp(server.url, { token: bob, capabilities: TASKS_CAPABILITY });
      conns.push(asAlice, asBob);
      const created = await callAsTask(asAlice.client, 'sum_to_n', { n: 3 });
      await expect(getTask(asBob.client, created.taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
      await expect(cancelTask(asBob.client, created.taskId)).rejects.toMatchObject({ code: -32602 });
      expect((await untilTerminal(asAlice.client, created.taskId)).task).toMatchObject({ status: 'completed', result: { structuredContent: { sum: 6 } } });
    } finally {
      for (const c of conns) await c.close();
      server.kill();
    }
  });

  describe('two instances on one PostgreSQL', () => {
    let pg: TestPostgres;
    beforeAll(async () => (pg = await startTestPostgres()), 120_000);
    afterAll(async () => pg?.stop());

    it('status, progress, result and cancellation answered by the instance that did not start the task', async () => {
      const url = await pg.createTestDatabase();
      const args = ['--database-url', url, '--allow-root', tmp.dir];
      const a = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data-a'), args });
      const b = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data-b'), args });
      const conns: ModernConn[] = [];
      try {
        const onA = await connectModernHttp(a.url, { capabilities: TASKS_CAPABILITY });
        const onB = await connectModernHttp(b.url, { capabilities: TASKS_CAPABILITY });
        conns.push(onA, onB);
        const projectRoot = path.join(tmp.dir, 'shared');
        fs.mkdirSync(projectRoot);
        const marker = path.join(tmp.dir, 'shared.pid');
        await plan(onA.client, 'shared', projectRoot, [
          { id: 'slow', command: ticking(6) }, // long enough for a loaded machine's polls to see a tick
          { id: 'stuck', command: forever(marker) },
        ]);
        const created = await callAsTask(onA.client, 'validate_task_loop', { project: 'shared', nodeId: 'slow' });
        // Created durably: the other instance knows the task at once.
        expect((await getTask(onB.client, created.taskId)).status).toBe('working');
        const { task, messages } = await untilTerminal(onB.client, created.taskId);
        expect(task).toMatchObject({ status: 'completed', result: { structuredContent: { validation_passed: true } } });
        expect(messages.some((m) => /tick \d/.test(m))).toBe(true);

        // A cancellation asked through B stops the command A runs.
        const stuck = await callAsTask(onA.client, 'validate_task_loop', { project: 'shared', nodeId: 'stuck' });
        const pid = Number(await waitFor('the stuck command to start', () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8')));
        await cancelTask(onB.client, stuck.taskId);
        expect((await untilTerminal(onB.client, stuck.taskId)).task.status).toBe('cancelled');
        await waitFor('the cancelled command to be killed', () => !alive(pid));
        // Nothing of it in either data dir: the tasks are PostgreSQL's.
        for (const d of ['data-a', 'data-b']) expect(fs.existsSync(path.join(tmp.dir, d, 'protocol'))).toBe(false);
      } finally {
        for (const c of conns) await c.close();
        a.kill();
        b.kill();
      }
    });
  });
});
