import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, RawServer, tempDir } from './helpers/server-process';
import { text, useTasksServer, type Structured } from './helpers/tasks-servers';
import { LIVENESS_MS, waitFor } from './helpers/http-server';
import { isAlive } from '../helpers/processes';

/**
 * The tasks module's validation commands through the built server and the SDK's real client: progress while one
 * runs, cancelling (the command tree killed, no attempt used), waitSeconds and a run shared by concurrent calls,
 * timeouts; the client's MCP roots deciding the allowed folders; the server ending with its client (and its
 * commands with it). (The DAG, Mermaid, refusals and docs scaffolding: tasks.test.ts.)
 */

async function readPid(file: string): Promise<number> {
  return waitFor(`pid file ${file}`, () => {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  });
}

describe('tasks e2e: validation commands (built server, SDK client)', () => {
  const t = useTasksServer('wg-e2e-tasks-commands');
  const { call, ok, node } = t;

  it('sends progress notifications while a command runs when the call has a progressToken', async () => {
    await ok('init_project_graph', {
      projectName: 'progress',
      projectRoot: t.projectRoot,
      nodes: [{ id: 'slow', title: 'Slow', depends_on: [], validation_command: 'echo first line; sleep 2.5; echo done' }],
    });
    await ok('start_task', { project: 'progress', nodeId: 'slow' });
    const updates: Array<{ progress: number; message?: string }> = [];
    const result = await call('validate_task_loop', { project: 'progress', nodeId: 'slow' }, { onprogress: (p) => updates.push(p) });
    expect((result.structuredContent as Structured).validation_passed).toBe(true);
    expect(updates.length).toBeGreaterThanOrEqual(1);
    // progress must grow (the SDK requires it) and carry the last output line
    for (let i = 1; i < updates.length; i++) expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
    expect(updates.some((u) => (u.message ?? '').includes('first line'))).toBe(true);
  });

  it('cancelling a call kills the command and puts the task back to IN_PROGRESS without using an attempt', async () => {
    const pidFile = path.join(t.projectRoot, 'cancel.pid');
    await ok('init_project_graph', {
      projectName: 'cancel',
      projectRoot: t.projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'cancel', nodeId: 'long' });
    const controller = new AbortController();
    const pending = t.conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'cancel', nodeId: 'long' } }, undefined, {
      signal: controller.signal,
    });
    const sleepPid = await readPid(pidFile);
    expect(isAlive(sleepPid)).toBe(true);
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();

    const back = await waitFor('IN_PROGRESS after cancel', async () => {
      const n = await node('cancel', 'long');
      return n.status === 'IN_PROGRESS' ? n : undefined;
    });
    expect(back.current_attempt).toBe(0);
    expect(back.error_logs).toEqual([]);
    await waitFor('the cancelled command to be gone', () => !isAlive(sleepPid));

    // The node can be validated again (it was not left VALIDATING).
    const again = await call('reset_task_node', { project: 'cancel', nodeId: 'long' });
    expect(again.isError).toBeFalsy();
  });

  it('answers running: true after waitSeconds, and the next call returns the result of that same run', async () => {
    const runs = path.join(t.projectRoot, 'runs.txt');
    await ok('init_project_graph', {
      projectName: 'wait',
      projectRoot: t.projectRoot,
      nodes: [{ id: 'w', title: 'Wait', depends_on: [], validation_command: `echo run >> '${runs}'; sleep 3; echo finished` }],
    });
    await ok('start_task', { project: 'wait', nodeId: 'w' });
    const first = await ok('validate_task_loop', { project: 'wait', nodeId: 'w', waitSeconds: 1 });
    expect(first).toMatchObject({ validation_passed: null, running: true });
    expect(first.message).toContain('validate_task_loop');
    expect((await node('wait', 'w')).status).toBe('VALIDATING');

    const second = await ok('validate_task_loop', { project: 'wait', nodeId: 'w', waitSeconds: 30 });
    expect(second.validation_passed).toBe(true);
    expect(second.result.stdout).toBe('finished\n');
    expect(second.result.durationMs).toBeGreaterThanOrEqual(2500);
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\n'); // one run, not two
  });

  it('two concurrent calls on one node share one run and get the same answer', async () => {
    const runs = path.join(t.projectRoot, 'concurrent-runs.txt');
    await ok('init_project_graph', {
      projectName: 'concurrent',
      projectRoot: t.projectRoot,
      nodes: [{ id: 'c', title: 'C', depends_on: [], validation_command: `echo run >> '${runs}'; sleep 1; exit 3` }],
    });
    await ok('start_task', { project: 'concurrent', nodeId: 'c' });
    const [a, b] = await Promise.all([
      call('validate_task_loop', { project: 'concurrent', nodeId: 'c' }),
      call('validate_task_loop', { project: 'concurrent', nodeId: 'c' }),
    ]);
    expect(a.isError).toBeFalsy();
    expect(b.structuredContent).toEqual(a.structuredContent);
    expect((a.structuredContent as Structured).result.exitCode).toBe(3);
    expect((a.structuredContent as Structured).node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('cancelling a call that waits for an earlier run cancels that run', async () => {
    const pidFile = path.join(t.projectRoot, 'cancel2.pid');
    await ok('init_project_graph', {
      projectName: 'cancel-later',
      projectRoot: t.projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'cancel-later', nodeId: 'long' });
    const first = await ok('validate_task_loop', { project: 'cancel-later', nodeId: 'long', waitSeconds: 0.2 });
    expect(first.running).toBe(true);
    const sleepPid = await readPid(pidFile);
    const controller = new AbortController();
    const pending = t.conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'cancel-later', nodeId: 'long' } }, undefined, {
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();
    await waitFor('the command to be gone', () => !isAlive(sleepPid));
    const back = await waitFor('IN_PROGRESS after cancel', async () => {
      const n = await node('cancel-later', 'long');
      return n.status === 'IN_PROGRESS' ? n : undefined;
    });
    expect(back.current_attempt).toBe(0);
  });

  it('a timeout through the server kills the command tree and uses an attempt', async () => {
    const pidFile = path.join(t.projectRoot, 'timeout.pid');
    await ok('init_project_graph', {
      projectName: 'timeout',
      projectRoot: t.projectRoot,
      nodes: [{ id: 't', title: 'T', depends_on: [], timeout_ms: 500, max_attempts: 2, validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'timeout', nodeId: 't' });
    const r = await ok('validate_task_loop', { project: 'timeout', nodeId: 't' });
    expect(r.validation_passed).toBe(false);
    expect(r.node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(r.node.error_logs[0]).toMatchObject({ attempt: 1, timed_out: true });
    expect(r.message).toContain('attempt 1/2');
    await waitFor('the timed-out command tree to be gone', () => !isAlive(Number(fs.readFileSync(pidFile, 'utf8').trim())));
  });
});

describe('tasks e2e: the client MCP roots decide the allowed folders', () => {
  it('allows only the folder the client lists in roots/list', async () => {
    const tmp = tempDir('wg-e2e-roots-');
    const allowed = path.join(tmp.dir, 'allowed');
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(allowed);
    fs.mkdirSync(other);
    // --allow-root names the parent of both: the client's roots must win.
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir], capabilities: { roots: { listChanged: true } } });
    let listed = 0;
    conn.client.setRequestHandler(ListRootsRequestSchema, async () => {
      listed++;
      return { roots: [{ uri: pathToFileURL(allowed).href, name: 'allowed' }] };
    });
    try {
      const refused = (await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'r1', projectRoot: other, nodes: [{ id: 'a', title: 'A', depends_on: [] }] },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^path_not_allowed: /);
      const accepted = (await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'r2', projectRoot: allowed, nodes: [{ id: 'a', title: 'A', depends_on: [] }] },
      })) as CallToolResult;
      expect(accepted.isError).toBeFalsy();
      expect(listed).toBeGreaterThanOrEqual(1);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  });
});

describe('tasks e2e: the server ends with its client', () => {
  async function startLongValidation(
    callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>,
    projectRoot: string,
    pidFile: string,
  ): Promise<number> {
    await callTool('init_project_graph', {
      projectName: 'bye',
      projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await callTool('start_task', { project: 'bye', nodeId: 'long' });
    void callTool('validate_task_loop', { project: 'bye', nodeId: 'long' }).catch(() => undefined);
    return readPid(pidFile);
  }

  it('closing the SDK client while a command runs ends the server and the command tree', async () => {
    const tmp = tempDir('wg-e2e-close-');
    try {
      const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
      const serverPid = conn.transport.pid!;
      const sleepPid = await startLongValidation((name, args) => conn.client.callTool({ name, arguments: args }), tmp.dir, path.join(tmp.dir, 'close.pid'));
      expect(isAlive(sleepPid)).toBe(true);
      // The SDK transport ends stdin, then sends SIGTERM after 2 s: a clean exit on end of stdin is code 0, no signal.
      const proc = (conn.transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
      const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
      await conn.close();
      expect(await exited).toEqual({ code: 0, signal: null });
      await waitFor('the server to exit', () => !isAlive(serverPid));
      await waitFor('the command tree to be gone', () => !isAlive(sleepPid));
    } finally {
      tmp.cleanup();
    }
  });

  it('end of stdin while a command runs: the server exits 0 and kills the command tree', async () => {
    const tmp = tempDir('wg-e2e-eof-');
    const raw = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
    try {
      await raw.initialize();
      let id = 0;
      const callTool = async (name: string, args: Record<string, unknown>) => {
        const myId = `c${++id}`;
        raw.send({ jsonrpc: '2.0', id: myId, method: 'tools/call', params: { name, arguments: args } });
        if (name === 'validate_task_loop') return undefined; // never answered: the server is ended first
        const response = await raw.response(myId);
        if ((response.result as Structured)?.isError) throw new Error(JSON.stringify(response.result));
        return response;
      };
      const sleepPid = await startLongValidation(callTool, tmp.dir, path.join(tmp.dir, 'eof.pid'));
      raw.child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        raw.exited,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('server did not exit')), LIVENESS_MS))),
      ]).finally(() => clearTimeout(timer));
      expect(exit).toEqual({ code: 0, signal: null });
      await waitFor('the command tree to be gone', () => !isAlive(sleepPid));
      // The task was cancelled by the shutdown, not failed: no attempt used.
      const stored = JSON.parse(fs.readFileSync(path.join(tmp.dir, 'data', 'projects', 'bye', 'task_graph.json'), 'utf8'));
      expect(stored.nodes[0]).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0 });
    } finally {
      raw.kill();
      tmp.cleanup();
    }
  });
});
