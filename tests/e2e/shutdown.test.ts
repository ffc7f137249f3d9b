import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAlive, waitUntilGone } from '../helpers/processes';
import { CLI, RawServer, assertBuilt, tempDir } from './helpers/server-process';

/**
 * The one shutdown path (docs/hardening.md "Shutdown"): SIGTERM, SIGINT and SIGHUP while a validation command runs a
 * `setsid` child and a background job in its own process group → every process gone, exit 0 (not by the signal), the
 * in-flight call answered, the task back to IN_PROGRESS and usable at once by a new server; a second signal exits at
 * once; the end of stdin answers every request already received (the README's pipe example).
 */

type Msg = Record<string, unknown>;

/** A generous liveness bound (the machine is loaded), not a speed figure. */
const EXIT_BOUND_MS = 30_000;

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A command whose processes escape its process group: a `setsid` child (new session) and, with job control on
 * (`set -m`), a background job in a group of its own; each writes its pid, then the shell waits.
 */
const ESCAPING_COMMAND = [
  "setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &",
  'set -m',
  'sleep 300 & echo $! > bg.pid',
  'echo $$ > shell.pid',
  'wait',
].join('\n');

const PID_FILES = ['setsid.pid', 'bg.pid', 'shell.pid'];

describe('shutdown (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: RawServer | undefined;
  const stray: number[] = [];
  beforeAll(assertBuilt);
  beforeEach(() => {
    tmp = tempDir('wg-shutdown-');
  });
  afterEach(() => {
    server?.kill();
    server = undefined;
    for (const pid of stray.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    tmp.cleanup();
  });

  async function call(s: RawServer, id: string, name: string, args: Msg): Promise<Msg> {
    s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    return (await s.response(id, 30_000)).result as Msg;
  }

  /** A server, a project whose task runs `command`, the task started and its validation in flight; returns the pids. */
  async function startValidation(command: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ s: RawServer; root: string; dataDir: string; pids: number[] }> {
    const root = path.join(tmp.dir, 'project');
    const dataDir = path.join(tmp.dir, 'data');
    fs.mkdirSync(root, { recursive: true });
    const s = (server = new RawServer({ dataDir, args: ['--allow-root', root, ...args], env }));
    await s.initialize();
    const init = await call(s, 'create', 'init_project_graph', { projectName: 'p', projectRoot: root, nodes: [{ id: 't', title: 'T', validation_command: command }] });
    expect(init.isError).toBeFalsy();
    const started = await call(s, 'start', 'start_task', { project: 'p', nodeId: 't' });
    expect(started.isError ? JSON.stringify(started.content) : 'ok').toBe('ok');
    s.send({ jsonrpc: '2.0', id: 'validate', method: 'tools/call', params: { name: 'validate_task_loop', arguments: { project: 'p', nodeId: 't' } } });
    const files = PID_FILES.map((f) => path.join(root, f));
    await waitFor(() => files.every((f) => fs.existsSync(f) && /^\d+\s*$/.test(fs.readFileSync(f, 'utf8'))), 30_000, 'the command and its children to start');
    const pids = files.map((f) => Number(fs.readFileSync(f, 'utf8').trim()));
    stray.push(...pids);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    return { s, root, dataDir, pids };
  }

  /** What a fresh server says about the task, and that it can act on it at once (no "another server process"). */
  async function taskAfterRestart(root: string, dataDir: string): Promise<Msg> {
    const s = (server = new RawServer({ dataDir, args: ['--allow-root', root] }));
    await s.initialize();
    const graph = (await call(s, 'g', 'get_project_graph', { project: 'p' })).structuredContent as { nodes: Msg[] };
    const node = graph.nodes.find((n) => n.id === 't')!;
    const reset = await call(s, 'r', 'reset_task_node', { project: 'p', nodeId: 't' });
    expect(reset.isError).toBeFalsy();
    s.child.stdin.end();
    expect(await within(s.exited, EXIT_BOUND_MS, 'second server did not exit')).toEqual({ code: 0, signal: null });
    return node;
  }

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s during a validation: the call is answered, every process of the command is gone, exit 0, task back to IN_PROGRESS',
    async (sig) => {
      const { s, root, dataDir, pids } = await startValidation(ESCAPING_COMMAND, ['--shutdown-grace', '1']);
      s.child.kill(sig);
      const exit = await within(s.exited, EXIT_BOUND_MS, `server did not exit after ${sig}`);
      expect(exit).toEqual({ code: 0, signal: null });
      for (const pid of pids) expect(await waitUntilGone(pid, 10_000)).toBe(true);
      // The in-flight call got its answer before the exit: cancelled, nothing counted.
      const answer = (await s.response('validate', 1_000)).result as Msg;
      expect(answer.isError).toBe(true);
      expect((answer._meta as Msg)['workgraph/errorCode']).toBe('cancelled');
      expect(s.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
      const node = await taskAfterRestart(root, dataDir);
      expect(node.status).toBe('IN_PROGRESS');
      expect(node.current_attempt ?? 0).toBe(0);
    },
    120_000,
  );

  it('in-flight calls that end within the grace period finish normally', async () => {
    const { s, root } = await startValidation(`${ESCAPING_COMMAND.replace('wait', 'sleep 2; kill $(cat setsid.pid) $(cat bg.pid); exit 0')}`, [
      '--shutdown-grace',
      '60',
    ], { WORKGRAPH_LOG_LEVEL: 'info' });
    s.child.kill('SIGTERM');
    await waitFor(() => s.stderr.includes('received SIGTERM'), 30_000, 'the server to take the signal');
    // A call arriving after the signal is refused (the transport still reads, nothing new is taken).
    s.send({ jsonrpc: '2.0', id: 'late', method: 'tools/call', params: { name: 'get_ready_tasks', arguments: { project: 'p' } } });
    const late = (await s.response('late')).result as Msg;
    expect(late.isError).toBe(true);
    expect((late.content as Array<{ text: string }>)[0].text).toContain('shutting down');
    const exit = await within(s.exited, EXIT_BOUND_MS, 'server did not exit');
    expect(exit).toEqual({ code: 0, signal: null });
    const answer = (await s.response('validate', 1_000)).result as Msg;
    expect(answer.isError).toBeFalsy();
    expect((answer.structuredContent as Msg).validation_passed).toBe(true);
    expect(fs.existsSync(root)).toBe(true);
  }, 120_000);

  it('a second signal exits at once, after killing the command trees', async () => {
    // The shell ignores SIGTERM, so only the second signal's SIGKILL ends it; the grace is long.
    const { s, pids } = await startValidation(`trap '' TERM\n${ESCAPING_COMMAND}`, ['--shutdown-grace', '120']);
    s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(s.child.exitCode).toBeNull(); // still draining
    s.child.kill('SIGINT');
    const exit = await within(s.exited, EXIT_BOUND_MS, 'server did not exit after the second signal');
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(await waitUntilGone(pid, 10_000)).toBe(true);
  }, 120_000);

  it('end of stdin: a validation still running gets the grace period, then is cancelled and answered', async () => {
    const { s, root, dataDir, pids } = await startValidation(ESCAPING_COMMAND, ['--shutdown-grace', '1']);
    s.child.stdin.end();
    const exit = await within(s.exited, EXIT_BOUND_MS, 'server did not exit after stdin closed');
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(await waitUntilGone(pid, 10_000)).toBe(true);
    expect(((await s.response('validate', 1_000)).result as Msg).isError).toBe(true);
    expect((await taskAfterRestart(root, dataDir)).status).toBe('IN_PROGRESS');
  }, 120_000);

  it("the README's pipe example prints the answer (echo ... | workgraph serve)", () => {
    const dataDir = path.join(tmp.dir, 'data');
    const env = { ...process.env, WORKGRAPH_DATA_DIR: dataDir, WORKGRAPH_LOG_LEVEL: 'warn' };
    const out = spawnSync('sh', ['-c', `echo '{"jsonrpc":"2.0","id":1,"method":"workflow_list","params":{}}' | "${process.execPath}" "${CLI}" serve`], {
      env,
      encoding: 'utf8',
      timeout: EXIT_BOUND_MS,
    });
    expect(out.status).toBe(0);
    const lines = out.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const answer = JSON.parse(lines[0]) as { id: number; result: { workflows: Array<{ id: string }> } };
    expect(answer.id).toBe(1);
    expect(answer.result.workflows.map((w) => w.id)).toContain('fix-failing-test');
  });

  it('end of stdin answers every request already received, the last one without a trailing newline too', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, WORKGRAPH_DATA_DIR: dataDir, WORKGRAPH_LOG_LEVEL: 'warn' } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const requests = Array.from({ length: 20 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: i % 2 ? 'workflow_list' : 'workflow_get_schema', params: {} }));
    child.stdin.end(requests.join('\n'));
    expect(await within(exited, EXIT_BOUND_MS, 'server did not exit')).toBe(0);
    const ids = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: number; result?: unknown }))
      .filter((m) => m.result !== undefined)
      .map((m) => m.id)
      .sort((a, b) => a - b);
    expect(ids).toEqual(requests.map((_, i) => i));
  });
});
